"""Test and build leftovers stay out of what perfkit ships: the git tree, the plugin, the sdist and the wheel.

Claude Code installs a plugin by copying its source folder, the marketplace's `./plugin`, following
symlinks (a hosted marketplace is a clone first, committed files only). plugin/ holds the plugin's
own files and links to what the server is built from, so a clone that has run the tests and the demo
(.tools/, perfkit-demo/, .hypothesis/, .venv/, caches) still installs only the plugin. The sdist and
wheel are built by hatch from pyproject.toml's lists.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from helpers.clients import PLUGIN, base_python, bin_dir, claude, clients_or_skip, copy_tracked, machine, tools

ROOT = Path(__file__).resolve().parents[1]
LEFTOVERS = [
    ".hypothesis/examples/0a1b",
    ".pytest_cache/v/cache/lastfailed",
    ".pycache/tmp/x/perfkit/__init__.cpython-311.pyc",
    ".mypy_cache/3.11/x.json",
    ".ruff_cache/0.6/x",
    ".venv/bin/python",
    ".venv-ci/bin/python",
    ".tools/node_modules/x.js",
    "bench/results/bisect.json",
    "perfkit-demo/publish/campaign/benchmark.csv",
    "server/perfkit/__pycache__/cli.cpython-311.pyc",
]
SHIPPED = [
    "bin/perfkit-mcp",
    ".mcp.json",
    ".claude-plugin/plugin.json",
    "skills/publish-pr/SKILL.md",
    "plugin/.mcp.json",
    "plugin/.claude-plugin/plugin.json",
    "plugin/skills",
    "uv.lock",
]


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
    shipped = ["bin/perfkit-mcp", ".mcp.json", "skills/bisect-precision/SKILL.md"]
    for rel in [*shipped, "server/perfkit/cli/commands.py"]:
        assert rel in in_sdist, f"sdist lacks {rel}"
    assert "perfkit/cli/commands.py" in in_wheel and "perfkit/_templates/pr-description.md.j2" in in_wheel


# What the plugin needs, and all it may hold: its manifest, server entry, skills and README, the launcher
# and the stand-in, and what `pip install` or `uv sync` builds the server from.
PLUGIN_NEEDS = {
    ".claude-plugin",
    ".mcp.json",
    "README.md",
    "bin",
    "examples",
    "pyproject.toml",
    "server",
    "skills",
    "templates",
    "uv.lock",
}


def test_the_plugin_folder_holds_what_the_plugin_needs():
    """By construction: the marketplace installs ./plugin, whose entries are the list above and no more."""
    import json

    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    assert [p["source"] for p in market["plugins"]] == ["./plugin"]
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "plugin"], capture_output=True, text=True).stdout
    assert {line.split("/")[1] for line in tracked.split()} == PLUGIN_NEEDS
    for name in PLUGIN_NEEDS:
        assert (PLUGIN / name).exists(), f"plugin/{name} is a broken link"
        if (PLUGIN / name).is_symlink():  # a link stays inside the clone: copied, it is the clone's own file
            assert (PLUGIN / name).resolve().is_relative_to(ROOT), name


def test_plugin_server_is_one_link_per_tracked_source():
    """plugin/server links each tracked file of server/ and holds nothing else, so a copy of the plugin
    takes the sources and never the caches a run leaves beside them (tools/plugin_links.py makes it)."""
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "server"], capture_output=True, check=True)
    sources = sorted(p for p in tracked.stdout.decode().split("\0") if p)
    links = sorted(str(p.relative_to(PLUGIN)) for p in (PLUGIN / "server").rglob("*") if p.is_symlink())
    fix = "run `python tools/plugin_links.py` and commit plugin/server"
    assert links == sources, f"plugin/server does not match server/: {fix}"
    for rel in links:
        assert (PLUGIN / rel).resolve() == (ROOT / rel).resolve(), f"plugin/{rel} links elsewhere: {fix}"
    assert not [p for p in (PLUGIN / "server").rglob("*") if p.is_file() and not p.is_symlink()]


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


@pytest.mark.slow
def test_adding_the_marketplace_from_a_used_clone_installs_the_plugin_only(tmp_path):
    """A clone after the tests and the demo, added as a local marketplace and installed with the real
    Claude Code in a fresh HOME, offline: under 5 MB lands in Claude Code's folder, none of it a leftover,
    and the installed copy's launcher runs."""
    clients_or_skip()
    clone = copy_tracked(tmp_path / "perfkit")
    big = b"x" * (1 << 20)
    for rel, megabytes in {
        ".tools/node_modules/@anthropic-ai/claude-code/cli.js": 60,
        "perfkit-demo/bisect/pypto/.git/objects/pack/p.pack": 20,
        ".hypothesis/examples/0a1b/c2d3": 5,
        ".venv/lib/python3.11/site-packages/pandas/_libs/x.so": 40,
        ".pytest_cache/v/cache/lastfailed": 1,
        ".mypy_cache/3.11/perfkit/x.data.json": 5,
    }.items():
        (clone / rel).parent.mkdir(parents=True, exist_ok=True)
        (clone / rel).write_bytes(big * megabytes)
    # the bytecode the tests leave beside the sources
    subprocess.run([base_python(), "-m", "compileall", "-q", str(clone / "server")], check=True, timeout=300)
    assert _size(clone) > 100 << 20
    env = machine(tmp_path / "home", [tools(tmp_path / "tools")])
    added = claude(env, tmp_path, "plugin", "marketplace", "add", str(clone))
    assert added.returncode == 0, added.stdout + added.stderr
    installed = claude(env, tmp_path, "plugin", "install", "perfkit@perfkit")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    plugins = tmp_path / "home" / ".claude" / "plugins"
    # the bytecode caches the demo leaves in server/ (about 2.8 MB) stay behind: plugin/server links files
    copied = _size(plugins)
    assert copied < 5 << 20, f"{copied / (1 << 20):.1f} MB copied"
    assert not [p for p in plugins.rglob("*") if p.name == "__pycache__" or p.suffix == ".pyc"]
    (where,) = (plugins / "cache" / "perfkit" / "perfkit").iterdir()
    assert {p.name for p in where.iterdir()} == PLUGIN_NEEDS
    leftovers = [".tools", "perfkit-demo", ".hypothesis", ".venv", ".pytest_cache", ".mypy_cache", ".git"]
    assert not [p for p in where.rglob("*") if p.name in leftovers]
    assert not [p for p in where.rglob("*") if p.is_symlink()], "links are copied as the files they name"
    py = bin_dir(tmp_path / "py", {"python3": base_python()})
    said = subprocess.run(
        ["sh", str(where / "bin" / "perfkit-mcp"), "--version"],
        env=env | {"PATH": f"{py}:{env['PATH']}"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert said.returncode == 0 and said.stdout.startswith(f"perfkit 0.1.0 (plugin {where.resolve()})"), said
