"""The CLI adapter: same results as the core, exit codes 0/1/2, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

from perfkit.culprit.evaluate import evaluate_culprit


def perfkit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "perfkit.cli", *args], capture_output=True, text=True, timeout=120)


def test_json_equals_core(superproject):
    sup, _, s = superproject
    proc = perfkit("evaluate-culprit", str(sup.path), s["mixed"], "--submodule", "runtime", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == evaluate_culprit(str(sup.path), s["mixed"], "runtime").model_dump(mode="json")


def test_human_output(superproject):
    sup, _, s = superproject
    proc = perfkit("evaluate-culprit", str(sup.path), s["bump"])
    assert proc.returncode == 0
    assert "submodule_bump" in proc.stdout and s["bump"][:12] in proc.stdout


def test_bad_input_exit_2(superproject, tmp_path):
    sup, _, _ = superproject
    for args, field in [
        ((str(tmp_path / "x"), "HEAD"), "repo"),
        ((str(sup.path), "abc1234"), "commit"),
        ((str(sup.path), "HEAD", "--submodule", "nope"), "submodule"),
    ]:
        proc = perfkit("evaluate-culprit", *args)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith(f"perfkit: error: {field}: ")
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_help_lists_every_tool():
    from perfkit.registry import all_tools

    proc = perfkit("--help")
    assert proc.returncode == 0
    for spec in all_tools():
        assert spec.cli_name in proc.stdout
