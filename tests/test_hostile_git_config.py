"""A repository whose own config names a marker-writing program under every key git documents as
running one: no tool may run any of them, through the CLI or MCP, and the bisect only its filters.

Git always reads a repository's local config, so this is the case perfkit must armour against
without trusting the repository: a contributor's fork, a PR branch, a downloaded checkout.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from helpers.bisect_project import build
from helpers.gitbuild import run_git
from mcp import Client

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_CAMPAIGN = ROOT / "examples" / "campaign"


def _script(markers: Path, name: str) -> str:
    """A program that records `name`, then behaves like cat (filters and textconv pass through).

    A file rather than a command line: git starts some programs (gpg) without a shell."""
    path = markers.parent / "bin" / name.replace("/", "_").replace(":", "_")
    path.parent.mkdir(exist_ok=True)
    path.write_text(f'#!/bin/sh\ntouch "{markers}/{name}"\nexec cat "$@"\n')
    path.chmod(0o755)
    return str(path)


def _keys(markers: Path, tmp: Path) -> list[tuple[str, str]]:
    """Every config key git documents as naming a program (or selecting one), each with a marker."""
    m = lambda name: _script(markers, name)  # noqa: E731
    hooks = tmp / "hooks"
    return [
        ("core.hooksPath", str(hooks)),  # every hook: post-checkout, reference-transaction, post-index-change...
        ("core.fsmonitor", m("core.fsmonitor")),  # started by commands that look at the worktree
        ("core.sshCommand", m("core.sshCommand")),  # ssh transport
        ("core.askPass", m("core.askPass")),  # asks for credentials
        ("core.pager", m("core.pager")),  # pager of every command
        ("core.editor", m("core.editor")),  # editor
        ("sequence.editor", m("sequence.editor")),  # rebase todo editor
        ("core.gitProxy", m("core.gitProxy")),  # git:// proxy
        ("core.alternateRefsCommand", m("core.alternateRefsCommand")),  # alternates' tips on fetch and clone
        ("diff.external", m("diff.external")),  # external diff for every diff
        ("diff.evil.textconv", m("diff.evil.textconv")),  # diff driver (attribute diff=evil): log -p, blame, diff
        ("diff.evil.command", m("diff.evil.command")),  # diff driver's external diff
        ("diff.x=y.textconv", m("diff.eq.textconv")),  # a driver name holding '=' (attribute diff=x=y)
        ("filter.evil.clean", m("filter.evil.clean")),  # filter driver (attribute filter=evil): hashing files
        ("filter.evil.smudge", m("filter.evil.smudge")),  # filter driver: checkout
        ("filter.evil.process", m("filter.evil.process")),  # long-running filter process
        ("merge.evil.driver", m("merge.evil.driver")),  # merge driver (attribute merge=evil)
        ("merge.tool", "evil"),  # selects mergetool.evil.cmd
        ("mergetool.evil.cmd", m("mergetool.evil.cmd")),
        ("diff.tool", "evil"),  # selects difftool.evil.cmd
        ("difftool.evil.cmd", m("difftool.evil.cmd")),
        ("credential.helper", m("credential.helper")),  # credential helper for every URL
        ("credential.https://example.com.helper", m("credential.url.helper")),  # per-URL helper
        ("log.showSignature", "true"),  # turns on signature checks in log and show...
        ("gpg.program", m("gpg.program")),  # ... which run these
        ("gpg.openpgp.program", m("gpg.openpgp.program")),
        ("gpg.x509.program", m("gpg.x509.program")),
        ("gpg.ssh.program", m("gpg.ssh.program")),
        ("gpg.ssh.defaultKeyCommand", m("gpg.ssh.defaultKeyCommand")),  # signing key lookup
        ("uploadpack.packObjectsHook", m("uploadpack.packObjectsHook")),  # pack-objects wrapper on fetch/clone
        ("remote.origin.url", str(tmp / "nowhere")),
        ("remote.origin.uploadpack", m("remote.origin.uploadpack")),  # program at the other end of a fetch
        ("remote.origin.receivepack", m("remote.origin.receivepack")),
        ("submodule.simpler.update", "!" + m("submodule.update")),  # '!command' on submodule update
        ("pager.log", m("pager.log")),  # per-command pagers
        ("pager.show", m("pager.show")),
        ("pager.diff", m("pager.diff")),
        ("pager.blame", m("pager.blame")),
        ("pager.grep", m("pager.grep")),
        ("alias.lg", "!" + m("alias.lg")),  # shell aliases (perfkit runs built-in commands only)
        ("hook.evil.command", m("hook.evil.command")),  # config-defined hooks (newer git)
        ("hook.evil.event", "post-checkout"),
        ("man.viewer", "evil"),  # help viewers (never used)
        ("man.evil.cmd", m("man.evil.cmd")),
        ("web.browser", m("web.browser")),
        ("protocol.ext.allow", "always"),  # ext:: URLs run a program...
        ("protocol.allow", "always"),
        ("gc.auto", "1"),  # background gc after writing commands...
        ("gc.autoDetach", "false"),
        ("include.path", str(tmp / "included.config")),  # another file read as if it were here
        ("includeIf.gitdir:/.path", str(tmp / "included-if.config")),  # conditional include, always true
    ]


INCLUDED = {  # keys that arrive only through an include: perfkit must see them too
    "included.config": [("diff.inc.textconv", "diff.inc.textconv"), ("filter.inc.smudge", "filter.inc.smudge")],
    "included-if.config": [("filter.inc.clean", "filter.inc.clean"), ("diff.inc.command", "diff.inc.command")],
}
HOOKS = ["post-checkout", "pre-commit", "post-commit", "reference-transaction", "post-index-change", "pre-auto-gc"]
FILTERS = {"filter.evil.clean", "filter.evil.smudge", "filter.evil.process", "filter.inc.smudge", "filter.inc.clean"}


class World:
    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.markers = tmp / "markers"
        self.markers.mkdir()
        self.p = build(tmp, ["", ""], [("src", "", "ok"), ("ptr", 1, "moved"), ("src", "BUG", "bug")])
        self.repo = self.p.sup.path
        hooks = tmp / "hooks"
        hooks.mkdir()
        for h in HOOKS:
            (hooks / h).write_text(f"#!/bin/sh\ntouch '{self.markers}/hook-{h}'\n")
            (hooks / h).chmod(0o755)
        self.signed = self._signed_commit()
        for git_dir in (self.repo / ".git", self.repo / ".git" / "modules" / "simpler"):
            with (git_dir / "config").open("a") as f:
                for key, value in _keys(self.markers, tmp):
                    section, _, rest = key.partition(".")
                    sub, _, name = rest.rpartition(".")
                    head = f'[{section} "{sub}"]' if sub else f"[{section}]"
                    f.write(f"{head}\n\t{name} = {json.dumps(value)}\n")
            (git_dir / "info").mkdir(exist_ok=True)
            (git_dir / "info" / "attributes").write_text(
                "* filter=evil diff=evil merge=evil\n*.md filter=inc diff=inc\nREADME.md diff=x=y\n"
            )
        for name, keys in INCLUDED.items():
            lines = []
            for key, marker in keys:
                section, sub, leaf = key.split(".")
                lines.append(f'[{section} "{sub}"]\n\t{leaf} = {json.dumps(_script(self.markers, marker))}\n')
            (tmp / name).write_text("".join(lines))
        self.campaign = tmp / "campaign"
        shutil.copytree(EXAMPLE_CAMPAIGN, self.campaign)
        for side, text in (("good", "x = 1;\n"), ("bad", "x = 2;\n")):
            (tmp / "builds" / side / "kernels").mkdir(parents=True)
            (tmp / "builds" / side / "kernels" / "k.cpp").write_text(text)
        self.clear()

    def _signed_commit(self) -> str:
        """A commit carrying a (fake) signature on top of the history: verifying it would run gpg."""
        raw = run_git(self.repo, "cat-file", "commit", "HEAD")
        header, _, _message = raw.partition("\n\n")
        sig = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----"
        body = header.replace(header.split("\n")[0], f"tree {run_git(self.repo, 'rev-parse', 'HEAD^{tree}')}", 1)
        parent = run_git(self.repo, "rev-parse", "HEAD")
        lines = [ln for ln in body.split("\n") if not ln.startswith("parent ")]
        lines.insert(1, f"parent {parent}")
        text = "\n".join(lines) + "\n" + sig + "\n\nsigned: tidy readme\n"
        proc = subprocess.run(
            ["git", "-C", str(self.repo), "hash-object", "-t", "commit", "-w", "--stdin"],
            input=text.encode(),
            capture_output=True,
            check=True,
        )
        sha = proc.stdout.decode().strip()
        run_git(self.repo, "update-ref", "refs/heads/main", sha)
        return sha

    def clear(self) -> None:
        for f in self.markers.iterdir():
            f.unlink()

    def marks(self) -> set[str]:
        return {f.name for f in self.markers.iterdir()}


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    return World(tmp_path_factory.mktemp("hostile-config"))


def test_the_planted_config_would_run_its_programs_under_plain_git(world):
    """The repository is truly hostile: plain git (no perfkit armour) runs the planted programs."""
    subprocess.run(
        ["git", "-C", str(world.repo), "log", "-p", "-2"], capture_output=True, stdin=subprocess.DEVNULL, timeout=60
    )
    subprocess.run(["git", "-C", str(world.repo), "status"], capture_output=True, timeout=60)
    # status runs the filter only for a file whose index stat is racy, which timing decides: hashing a
    # file under its path runs it every time
    names = subprocess.run(["git", "-C", str(world.repo), "ls-files"], capture_output=True, text=True).stdout.split()
    plain = next(n for n in names if not n.endswith(".md"))
    subprocess.run(
        ["git", "-C", str(world.repo), "hash-object", "--path", plain, plain], capture_output=True, timeout=60
    )
    ran = world.marks()
    world.clear()
    assert {"gpg.openpgp.program", "diff.eq.textconv", "core.fsmonitor", "filter.evil.process"} <= ran, ran


def _cli(world: World, cases: list[tuple[str, list[str]]]) -> dict[str, dict]:
    job = {"root": str(world.tmp / "cwd"), "cases": []}
    (world.tmp / "cwd").mkdir(exist_ok=True)
    for case_id, argv in cases:
        job["cases"].append({"id": case_id, "argv": argv, "cwd": str(world.tmp / "cwd")})
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "helpers" / "cli_batch.py")],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {r["id"]: r for r in json.loads(proc.stdout)}


@pytest.mark.slow  # every tool through the CLI, a whole bisect included: about 30 s
def test_no_tool_runs_a_program_the_repository_config_names(world):
    repo, c = str(world.repo), world.p.c
    out = world.tmp / "out"
    analysis = [
        ("classify", ["classify-changes", repo, c["init"], "--json"]),
        ("blame", ["git-blame-removal", repo, c["init"], "--include-modified", "--json"]),
        ("culprit", ["evaluate-culprit", repo, world.signed, "--json"]),
        ("culprit-bump", ["evaluate-culprit", repo, c["moved"], "--submodule", "runtime", "--json"]),
        ("triage", ["triage-builds", str(world.tmp / "builds/good"), str(world.tmp / "builds/bad"), "--json"]),
        ("render", ["render-pr", str(world.campaign), repo, "--out-dir", str(out), "--json"]),
        ("lint", ["lint-wording", "--path", str(out / "proposed-pr-description.md"), "--repo", repo, "--json"]),
    ]
    results = _cli(world, analysis)
    for case_id, _ in analysis:
        r = results[case_id]
        # lint-wording exits 1 when the text has findings (render-pr was given no hardware to name)
        ok = 1 if case_id == "lint" and json.loads(r["stdout"] or "{}").get("findings") else 0
        assert r["rc"] == ok, (case_id, r["stderr"][-2000:])
    assert json.loads(results["culprit"]["stdout"])["subject"] == "signed: tidy readme"
    assert world.marks() == set(), world.marks()

    bisect = [
        ("start", ["bisect-start", repo, c["ok"], "--run", world.p.run_cmd(), "--json"]),
        ("run", ["bisect-run", repo, "--json"]),
        ("status", ["bisect-status", repo, "--json"]),
    ]
    results = _cli(world, bisect)
    for case_id, _ in bisect:
        assert results[case_id]["rc"] == 0, (case_id, results[case_id]["stderr"][-2000:])
    assert json.loads(results["run"]["stdout"])["culprit"]["commit"] == c["bug"]
    # only the checkout filters may run, and only in the bisect's own checkouts (docs/bisect.md)
    assert world.marks() <= FILTERS, world.marks() - FILTERS
    world.clear()
    reset = _cli(world, [("reset", ["bisect-reset", repo, "--json"])])["reset"]
    assert reset["rc"] == 0, reset["stderr"][-2000:]
    assert world.marks() <= FILTERS, world.marks() - FILTERS
    world.clear()


def test_no_program_runs_through_mcp_either(world):
    from perfkit.mcp_server.server import build_server

    async def go():
        async with Client(build_server(), mode="legacy") as client:
            a = await client.call_tool("classify_changes", {"repo": str(world.repo), "base": world.p.c["init"]})
            b = await client.call_tool("evaluate_culprit", {"repo": str(world.repo), "commit": world.signed})
            return a, b

    a, b = anyio.run(go)
    assert not a.is_error and not b.is_error, (a.content, b.content)
    assert b.structured_content["subject"] == "signed: tidy readme"
    assert world.marks() == set(), world.marks()


def test_keys_that_arrive_through_an_include_are_overridden_too(world):
    from perfkit.repo import gitrepo

    args = gitrepo.armour(world.repo)
    for key in (
        "diff.inc.textconv",
        "filter.inc.smudge",
        "filter.inc.clean",
        "diff.evil.textconv",
        "diff.x=y.textconv",
    ):
        assert any(a.startswith(f"--config-env={key}=PERFKIT_GIT_") for a in args), key
    assert not any(a.startswith("--config-env=filter.") for a in gitrepo.armour(world.repo, filters=True))


@pytest.mark.parametrize(
    "args",
    [
        ("hash-object", "src/codegen.py"),  # the clean filter of the worktree file
        ("cat-file", "--textconv", "HEAD:src/codegen.py"),  # textconv asked for explicitly
        ("cat-file", "--textconv", "HEAD:README.md"),  # ... of a driver whose name holds '='
        ("show", "--textconv", "HEAD~1", "--", "README.md"),
        ("diff", "--textconv", "--ext-diff", "HEAD~3", "--", "src/codegen.py"),  # driver and external diff asked for
        ("log", "-1", "--show-signature"),  # signature check asked for
        ("log", "-1", "--format=%G? %GS"),  # signature placeholders verify too
        ("verify-commit", "HEAD"),
        ("status", "--porcelain"),  # fsmonitor, hooks, clean filter
        ("checkout", "--force", "--detach", "HEAD~1"),  # smudge filter and post-checkout hook
    ],
)
def test_each_program_stays_off_even_when_a_command_asks_for_it(world, args):
    """Each layer of the armour alone, not only the flags perfkit's own commands pass."""
    from perfkit.repo import gitrepo

    world.clear()
    gitrepo.git(world.repo, *args, check=False, timeout=60)
    ran = world.marks()
    if args[0] == "checkout":  # back to the branch (plain git: it may run the planted programs)
        run_git(world.repo, "checkout", "-q", "--force", "main")
    world.clear()
    assert ran == set(), ran
