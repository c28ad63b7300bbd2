"""`perfkit demo` end to end: both acts, the right culprits, clean drafts, folder handling."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def test_demo_finds_both_culprits_and_writes_clean_drafts(tmp_path):
    work = tmp_path / "demo"
    proc = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "demo", "--dir", str(work), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "found both" in out
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
    kept = out.split("Try next:\n")[1].splitlines()
    assert f"  perfkit bisect-status {work / 'bisect' / 'pypto'}" in kept
    assert any(line.startswith("  perfkit evaluate-culprit ") and " --submodule runtime" in line for line in kept)
    assert f"Everything is kept in {work}:" in out and f"  {work / 'publish' / 'campaign'}  " in out


def test_demo_removes_its_folder_without_keep():
    proc = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "demo", "--only", "publish"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = re.search(r"perfkit demo in (\S+)", proc.stdout).group(1)
    assert f"Removed {folder}" in proc.stdout
    import os

    assert not os.path.exists(folder)


@pytest.mark.slow
def test_demo_keep_prints_commands_that_run(tmp_path):
    """`perfkit demo --keep` prints the kept paths and the next commands; each runs as printed, in order."""
    proc = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "demo", "--keep", "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = Path(re.search(r"Everything is kept in (\S+):", proc.stdout).group(1))
    try:
        commands = [ln.strip() for ln in proc.stdout.split("Try next:\n")[1].splitlines() if ln.startswith("  ")]
        assert len(commands) >= 9
        env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
        outputs = {}
        for command in commands:
            run = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300, env=env)
            assert run.returncode == 0, f"{command}\n{run.stdout[-2000:]}{run.stderr[-2000:]}"
            outputs[command] = run.stdout
        runtime_explained = next(out for c, out in outputs.items() if "pypto/runtime " in c)
        assert "accumulate matmul partial sums in bf16" in runtime_explained
        rerun = next(out for c, out in outputs.items() if "bisect-run" in c)
        assert rerun.startswith("Found: ")
        assert not re.search(r"\bbisect_(start|step|run|status|reset)\b", rerun), "the CLI names CLI commands"
    finally:
        shutil.rmtree(folder, ignore_errors=True)
