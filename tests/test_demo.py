"""`perfkit demo` end to end: both acts, the right culprits, clean drafts, folder handling."""

from __future__ import annotations

import re
import subprocess
import sys


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


def test_demo_removes_its_folder_without_keep():
    proc = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "demo", "--only", "publish"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = re.search(r"perfkit demo in (\S+)", proc.stdout).group(1)
    assert f"Removed {folder}" in proc.stdout
    import os

    assert not os.path.exists(folder)
