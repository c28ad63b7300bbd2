"""`perfkit demo`: argument parsing and the two acts, in a folder that stays.

The outputs are what a new user came for (the drafts, a finished bisect), so they stay in
./perfkit-demo unless --remove asks otherwise, and the demo says what to open first and which
commands to try next on them, so every CLI command can be run on real data before the user's own.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from perfkit.repo import gitrepo

DESCRIPTION = """\
Run the whole job on generated data, with no accelerator, network or agent: build a compiler repository
with a runtime submodule and bisect a precision regression at both levels, then turn an example campaign
into a PR description and an issue against a generated target repository. About a minute.

Everything stays in ./perfkit-demo (or --dir), replaced when the demo runs again there; the demo
prints what to open first and the commands to try next. --remove deletes it at the end.

Examples:
  perfkit demo                       # both acts, kept in ./perfkit-demo
  perfkit demo --only publish        # only the PR description and issue
  perfkit demo --dir /tmp/try --remove --quiet"""

MARKER = ".perfkit-demo"


def _finished_bisect(compiler: Path) -> tuple[str, list[str]]:
    """Tags the good end of the demo's finished bisect as `good`; returns it and the culprit commands."""
    from perfkit.bisect.tool import bisect_status

    q = shlex.quote
    status = bisect_status(str(compiler))
    if not status.good:
        return "", []
    gitrepo.git(compiler, "tag", "-f", "good", status.good)
    # the culprits get a name too, so the README's evaluate-culprit lines explain what the bisect found
    if status.culprit:
        gitrepo.git(compiler, "tag", "-f", "culprit", status.culprit.commit)
    if status.submodule_culprit and (compiler / "runtime" / ".git").exists():
        gitrepo.git(compiler / "runtime", "tag", "-f", "culprit", status.submodule_culprit.commit)
    explain = []
    if status.culprit:
        explain.append(f"perfkit evaluate-culprit {q(str(compiler))} {status.culprit.commit[:12]} --submodule runtime")
    if status.submodule_culprit:
        explain.append(
            f"perfkit evaluate-culprit {q(str(compiler / 'runtime'))} {status.submodule_culprit.commit[:12]}"
        )
    return "good", explain


def next_commands(root: Path) -> list[str]:
    """Commands a user can paste as they are, on what the demo kept under root."""
    q = shlex.quote
    lines: list[str] = []
    compiler = root / "bisect" / "pypto"
    if (compiler / ".git").exists():
        env = q(str(root / "bisect" / "python-env"))
        good, explain = _finished_bisect(compiler)
        lines += [f"perfkit bisect-status {q(str(compiler))}", *explain, f"perfkit bisect-reset {q(str(compiler))}"]
        if good:
            lines += [
                f"DEMO_ENV={env} perfkit bisect-start {q(str(compiler))} {good}",
                f"DEMO_ENV={env} perfkit bisect-run {q(str(compiler))}",
            ]
    campaign, target = root / "publish" / "campaign", root / "publish" / "target-repo"
    if campaign.is_dir() and target.is_dir():
        lines += [
            f"perfkit read-benchmark {q(str(campaign))}",
            f"perfkit classify-changes {q(str(target))} main",
            f"perfkit git-blame-removal {q(str(target))} main",
            f"perfkit lint-wording --path {q(str(campaign / 'proposed-pr-description.md'))} "
            f"--campaign-dir {q(str(campaign))} --repo {q(str(target))}",
        ]
    return lines


def _report_kept(root: Path, out: TextIO) -> None:
    out.write(f"Everything is kept in {root}:\n")
    draft = root / "publish" / "campaign" / "proposed-pr-description.md"
    if draft.is_file():
        out.write(f"Open first: {draft} (the PR description the demo drafted)\n")
    for rel, what in (
        ("bisect/pypto", "compiler repo with the runtime submodule; settings in perfkit.toml; tags good, culprit"),
        ("bisect/python-env", "the demo's stand-in for a Python environment (DEMO_ENV)"),
        ("publish/campaign", "the campaign folder, with the drafts render_pr wrote"),
        ("publish/target-repo", "the target repository; its delivery branch starts at main"),
    ):
        if (root / rel).exists():
            out.write(f"  {root / rel}  {what}\n")
    commands = next_commands(root)
    if commands:
        out.write("Try next:\n" + "".join(f"  {c}\n" for c in commands))


def _prepare(root: Path) -> None:
    """An earlier demo's folder is replaced; any other folder with files in it is refused, never emptied."""
    from perfkit.errors import InputError

    if root.exists() and not root.is_dir():
        raise InputError("--dir", f"{root} is a file", "pass a folder path")
    if root.is_dir() and any(root.iterdir()):
        if not (root / MARKER).is_file():
            raise InputError(
                "--dir", f"{root} holds files that are not an earlier demo's", "pass another --dir, or empty it first"
            )
        shutil.rmtree(root)
    root.mkdir(parents=True, exist_ok=True)
    (root / MARKER).write_text("made by `perfkit demo`; the next demo in this folder replaces everything here\n")


def _run(ns: argparse.Namespace) -> int:
    root = Path(ns.dir).resolve()
    _prepare(root)
    out = sys.stdout
    out.write(f"perfkit demo in {root}\n")
    started = time.monotonic()
    ok = True
    try:
        if ns.only in (None, "bisect"):
            from perfkit.cli.demo.precision_act import precision_act

            ok &= precision_act(root / "bisect", quiet=ns.quiet, out=out)
        if ns.only in (None, "publish"):
            from perfkit.cli.demo.publish_act import publish_act

            ok &= publish_act(root / "publish", out=out)
    finally:
        elapsed = time.monotonic() - started
        if ns.remove:
            shutil.rmtree(root, ignore_errors=True)
            out.write(f"\nDone in {elapsed:.0f} s. Removed {root}, as --remove asked.\n")
        else:
            out.write(f"\nDone in {elapsed:.0f} s. ")
            _report_kept(root, out)
    return 0 if ok else 1


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--dir",
        metavar="PATH",
        default="perfkit-demo",
        help="folder for everything the demo makes; an earlier demo's folder is replaced (default: ./perfkit-demo)",
    )
    p.add_argument("--remove", action="store_true", help="delete the folder at the end instead of keeping it")
    p.add_argument("--only", choices=["bisect", "publish"], help="run one act only")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(_run=_run)


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    description: str
    configure: Callable[[argparse.ArgumentParser], None]


COMMAND = Command(
    "demo",
    "the whole job on generated data (bisect, PR, issue)",
    DESCRIPTION,
    _configure,
)
