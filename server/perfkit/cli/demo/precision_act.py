"""Act one of the demo: find a precision regression hidden behind a submodule bump.

Calls the same public functions the MCP tools are (bisect_start, bisect_run, evaluate_culprit),
then shows that the user's checkout and environment are as they were.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TextIO

from perfkit.repo import gitrepo


def _checkout_state(repo: Path) -> tuple[str, str, str]:
    return (
        gitrepo.git(repo, "rev-parse", "HEAD"),
        gitrepo.git(repo, "status", "--porcelain=v2"),
        gitrepo.git(repo, "submodule", "status"),
    )


def precision_act(root: Path, quiet: bool, out: TextIO) -> bool:
    import subprocess

    from perfkit.bisect.tool import bisect_run, bisect_start
    from perfkit.cli.demo.precision_repo import build
    from perfkit.cli.progressbar import ProgressBar
    from perfkit.cli.terms import Vocabulary, tool_words
    from perfkit.culprit.evaluate import evaluate_culprit
    from perfkit.registry import all_tools

    out.write("\n== 1. bisect-precision ==\n")
    sc = build(root)
    env_dir = root / "python-env"
    os.environ["DEMO_ENV"] = str(env_dir)
    # The user's environment points at their own checkout before the bisect, as after `pip install -e`.
    for cmd, cwd in ((sc.install, sc.compiler), (sc.install_submodule, sc.compiler / "runtime")):
        subprocess.run(cmd, shell=True, cwd=cwd, check=True, capture_output=True)
    n = len(gitrepo.git(sc.compiler, "rev-list", "--first-parent", f"{sc.good}..{sc.bad}").split())
    out.write(
        f"compiler repo {sc.compiler.name} with runtime submodule 'runtime': {n} commits from good "
        f"{sc.good[:10]} to HEAD; settings from its perfkit.toml\n"
    )
    before = _checkout_state(sc.compiler)
    start = bisect_start(str(sc.compiler), sc.good)
    # the demo is a command line: the messages name the commands a user types, not the MCP tools
    words = Vocabulary.of(all_tools())
    out.write(tool_words(start.message, words) + "\n")
    bar = None if quiet else ProgressBar()
    try:
        status = bisect_run(str(sc.compiler), progress=bar) if bar else bisect_run(str(sc.compiler))
    finally:
        if bar:
            bar.close()
    out.write(
        "  (max_abs_err: the last value the check printed, which is the largest; a point run again confirms\n"
        "   its verdict before a culprit is named)\n"
    )
    runs: dict[tuple[str, str | None], int] = {}
    for step in status.steps:
        point = (step.superproject, step.submodule)
        runs[point] = runs.get(point, 0) + 1
        again = f", confirming: run {runs[point]} of this point" if runs[point] > 1 else ""
        metric = f" max_abs_err={step.metric:.2e}" if step.metric is not None else ""
        out.write(
            f"  step {step.n:2d} [{step.phase}{again}] {step.short} {step.subject[:60]} -> {step.verdict}"
            f"{metric} ({step.reason})\n"
        )
    out.write(tool_words(status.message, words) + "\n")
    found = status.culprit.commit if status.culprit else None
    found_sub = status.submodule_culprit.commit if status.submodule_culprit else None
    if found:
        report = evaluate_culprit(str(sc.compiler), found, submodule="runtime")
        out.write("\nculprit in the compiler:\n" + report.human() + "\n")
    if found_sub:
        sub = evaluate_culprit(str(sc.compiler / "runtime"), found_sub)
        out.write("\nculprit in the runtime:\n" + sub.human() + "\n")
    out.write(
        f"\nruns {status.runs}, installs {status.installs} (saved {status.installs_saved} against "
        f"reinstalling both at every step)\n"
    )
    after = _checkout_state(sc.compiler)
    env_points = (env_dir / "compiler.path").read_text().strip()
    untouched = before == after
    restored = Path(env_points) == sc.compiler
    out.write(f"your checkout untouched (HEAD, status, submodule): {'yes' if untouched else 'NO'}\n")
    out.write(f"environment points at your checkout again: {'yes' if restored else 'NO: ' + env_points}\n")
    right = found == sc.culprit and found_sub == sc.runtime_culprit
    out.write(
        f"expected culprits {sc.culprit[:10]} / {sc.runtime_culprit[:10]}: {'found both' if right else 'NOT FOUND'}\n"
    )
    return right and untouched and restored
