"""Test and build leftovers stay out of what perfkit ships: the git tree, the sdist and the wheel.

A plugin installed from a hosted marketplace is a clone (committed files only); the sdist and wheel
are built by hatch from pyproject.toml's lists. A local-folder marketplace is copied as it is (the
README says to add it from a clean clone).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LEFTOVERS = [
    ".hypothesis/examples/0a1b",
    ".pytest_cache/v/cache/lastfailed",
    ".mypy_cache/3.11/x.json",
    ".ruff_cache/0.6/x",
    ".venv/bin/python",
    ".venv-ci/bin/python",
    ".tools/node_modules/x.js",
    "bench/results/bisect.json",
    "perfkit-demo/publish/campaign/benchmark.csv",
    "server/perfkit/__pycache__/cli.cpython-311.pyc",
]
SHIPPED = ["bin/perfkit-mcp", ".mcp.json", ".claude-plugin/plugin.json", "skills/publish-pr/SKILL.md", "uv.lock"]


def test_git_ignores_every_leftover():
    proc = subprocess.run(
        ["git", "-C", str(ROOT), "check-ignore", "--no-index", "--verbose", "--non-matching", *LEFTOVERS],
        capture_output=True,
        text=True,
    )
    not_ignored = [ln.split("\t")[-1] for ln in proc.stdout.splitlines() if ln.startswith("::")]
    assert not not_ignored, f"not in .gitignore: {not_ignored}"


def test_the_plugin_files_are_tracked():
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", *SHIPPED], capture_output=True, text=True).stdout
    assert sorted(tracked.split()) == sorted(SHIPPED)


@pytest.mark.slow
def test_sdist_and_wheel_hold_no_leftovers(tmp_path):
    """Built from a copy with every leftover planted and no .gitignore: pyproject.toml alone keeps them out."""
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    if not Path(uv).exists():
        pytest.fail("uv is not installed: `pip install uv` (the README's test set-up does)")
    src = tmp_path / "perfkit"
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    for rel in filter(None, listed.decode().split("\0")):
        if (ROOT / rel).is_file() and rel != ".gitignore":
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    for rel in LEFTOVERS:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text("leftover\n")
    out = tmp_path / "dist"
    proc = subprocess.run(
        [uv, "build", "--quiet", "--sdist", "--wheel", "-o", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    with tarfile.open(sdist) as tar:
        in_sdist = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
    with zipfile.ZipFile(wheel) as whl:
        in_wheel = whl.namelist()
    for rel in LEFTOVERS:
        assert rel not in in_sdist, f"sdist ships {rel}"
    markers = [
        ".hypothesis",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".venv",
        ".tools",
        "bench/results",
        "perfkit-demo",
    ]
    assert not [n for n in in_wheel for m in markers if m in n], "the wheel ships a leftover"
    assert not [n for n in in_sdist + in_wheel if "__pycache__" in n or n.endswith(".pyc")]
    for rel in ("bin/perfkit-mcp", ".mcp.json", "skills/bisect-precision/SKILL.md", "server/perfkit/cli/commands.py"):
        assert rel in in_sdist, f"sdist lacks {rel}"
    assert "perfkit/cli/commands.py" in in_wheel and "perfkit/_templates/pr-description.md.j2" in in_wheel
