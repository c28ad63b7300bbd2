"""`perfkit demo` end to end: both acts, the right culprits, clean drafts, folder handling."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from helpers.procs import perfkit


def test_demo_finds_both_culprits_and_writes_clean_drafts(tmp_path):
    work = tmp_path / "demo"
    proc = perfkit("demo", "--dir", str(work), "--quiet", timeout=300)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "found both" in out
    assert "Next: perfkit bisect-run" in out and "Next: bisect_run" not in out  # a command line names commands
    assert "your checkout untouched (HEAD, status, submodule): yes" in out
    assert "environment points at your checkout again: yes" in out
    assert "kind    submodule_bump" in out
    assert "lint_wording findings: 0" in out
    pr = work / "publish" / "campaign" / "proposed-pr-description.md"
    issue = work / "publish" / "campaign" / "proposed-issue.md"
    assert pr.is_file() and issue.is_file()
    assert re.match(r"# \[perf\] .+ on 8 H100: [\d.]+ s to [\d.]+ s per step", pr.read_text())
    assert str(pr) in out and str(issue) in out
    for kind in ("setting", "default", "source", "removal"):
        assert re.search(rf"classify_changes: .*{kind} \d", out), kind
    assert "(PR #88)" in out
    # what is whose: the draft's prose is named as such, and a point run again says it confirms
    assert out.count("is the example draft's, examples/") == 2
    steps = re.findall(r"^  step +\d+ \[(\w+)(, confirming: run (\d) of this point)?\] (\S+)", out, re.M)
    seen: dict[str, int] = {}
    for _, label, k, point in steps:
        seen[point] = seen.get(point, 0) + 1
        assert (int(k) if label else 1) == seen[point], (point, label)
    assert any(label for _, label, _, _ in steps)
    kept = [ln.strip() for ln in out.split("Try next:\n")[1].splitlines() if ln.startswith("  ")]
    assert f"perfkit bisect-status {work / 'bisect' / 'pypto'}" in kept
    assert f"Everything is kept in {work}:" in out and f"  {work / 'publish' / 'campaign'}  " in out
    explain = [c for c in kept if c.startswith("perfkit evaluate-culprit ")]
    assert len(explain) == 2 and explain[0].endswith(" --submodule runtime")
    for command in explain:  # the culprits' commands run as printed and explain the planted changes
        run = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120, env=_env())
        assert run.returncode == 0, command + run.stderr
    assert "accumulate matmul partial sums in bf16" in run.stdout


def test_demo_keeps_its_outputs_in_perfkit_demo_by_default(tmp_path):
    """Run from a folder with no options: the drafts stay in ./perfkit-demo, and it says what to open."""
    proc = demo(tmp_path, "--only", "publish", "--quiet")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    root = (tmp_path / "perfkit-demo").resolve()
    pr = root / "publish" / "campaign" / "proposed-pr-description.md"
    assert pr.is_file() and (root / "publish" / "campaign" / "proposed-issue.md").is_file()
    assert f"Open first: {pr}" in proc.stdout
    assert "Removed" not in proc.stdout
    again = demo(tmp_path, "--only", "publish", "--quiet")  # a second demo replaces the first
    assert again.returncode == 0, again.stdout + again.stderr
    assert pr.is_file()


def test_demo_removes_its_folder_only_when_asked(tmp_path):
    proc = demo(tmp_path, "--only", "publish", "--quiet", "--dir", "out", "--remove")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"Removed {(tmp_path / 'out').resolve()}, as --remove asked." in proc.stdout
    assert not (tmp_path / "out").exists()


def test_demo_never_empties_a_folder_it_did_not_make(tmp_path):
    mine = tmp_path / "perfkit-demo"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes\n")
    proc = demo(tmp_path, "--only", "publish")
    assert proc.returncode == 2
    assert proc.stderr.startswith("perfkit: error: --dir: ") and "pass another --dir" in proc.stderr
    assert (mine / "notes.txt").read_text() == "my notes\n" and len(list(mine.iterdir())) == 1


def demo(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "demo", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def _env() -> dict[str, str]:
    return dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))


def test_demo_prints_commands_that_run(tmp_path):
    """`perfkit demo` prints the kept paths and the next commands; each runs as printed, in order.

    The publish act only, to stay quick: the bisect's commands run in test_readme_commands, and the
    culprits' ones in the first test.
    """
    proc = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "demo", "--quiet", "--only", "publish"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = Path(re.search(r"Everything is kept in (\S+):", proc.stdout).group(1))
    try:
        commands = [ln.strip() for ln in proc.stdout.split("Try next:\n")[1].splitlines() if ln.startswith("  ")]
        assert [c.split()[1] for c in commands] == [
            "read-benchmark",
            "classify-changes",
            "git-blame-removal",
            "lint-wording",
        ]
        for command in commands:
            run = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300, env=_env())
            assert run.returncode == 0, f"{command}\n{run.stdout[-2000:]}{run.stderr[-2000:]}"
        assert "no findings" in run.stdout
    finally:
        shutil.rmtree(folder, ignore_errors=True)
