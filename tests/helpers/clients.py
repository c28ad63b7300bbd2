"""The third-party clients tests drive (Claude Code, the MCP Inspector) and the machines they start on.

tests/clients/install.sh puts both into .tools/ (npm, pinned). A test that needs them skips on a
machine without them and fails in CI, where install.sh always runs first. A machine is a PATH of
symlinks to chosen programs and a fresh HOME, so each start path of the plugin's launcher (uv, an
installed perfkit, python3 alone, nothing) is reached the way a user's machine reaches it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugin"  # what Claude Code installs (the marketplace's source)
BIN = ROOT / ".tools" / "node_modules" / ".bin"
# What the launcher and Claude Code call besides the interpreter; none of them is python, uv or perfkit.
TOOLS = ["sh", "cat", "cksum", "date", "mkdir", "rm", "sleep", "env", "git", "node"]
# how this machine reaches the package index (proxies, certificates, pip and uv settings) stays
NETWORK = re.compile(r"(?i)proxy|cert|ssl|ca_bundle|^pip_|^uv_")


def clients_or_skip() -> Path:
    if not (BIN / "claude").exists() or not (BIN / "mcp-inspector").exists():
        if os.environ.get("CI"):
            pytest.fail("Claude Code and the MCP Inspector are missing from .tools: run tests/clients/install.sh")
        pytest.skip("Claude Code and the MCP Inspector are not in .tools (run tests/clients/install.sh)")
    return BIN


def bin_dir(path: Path, links: dict[str, str]) -> Path:
    """A folder holding only the given programs, to put on PATH."""
    path.mkdir(parents=True, exist_ok=True)
    for name, target in links.items():
        (path / name).symlink_to(target)
    return path


def tools(where: Path) -> Path:
    found = {name: shutil.which(name) for name in TOOLS}
    return bin_dir(where, {n: t for n, t in found.items() if t})


def base_python() -> str:
    """A real interpreter of 3.11 or newer outside any virtual environment (what a user has)."""
    return str(Path(getattr(sys, "_base_executable", sys.executable)).resolve())


def machine(home: Path, path: list[Path], **extra: str) -> dict[str, str]:
    """The environment of a fresh machine: HOME, PATH, Claude Code kept offline and quiet."""
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "HOME": str(home),
        "PATH": os.pathsep.join(map(str, path)),
        "CI": "true",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    env |= {k: v for k, v in os.environ.items() if NETWORK.search(k)}
    real_home = Path.home()
    env.setdefault("PIP_CACHE_DIR", str(real_home / ".cache" / "pip"))
    env.setdefault("UV_CACHE_DIR", str(real_home / ".cache" / "uv"))
    return env | extra


def claude(env: dict[str, str], cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "claude"), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def copy_tracked(dest: Path) -> Path:
    """The tracked files as they are in the working tree, symlinks kept as links: what a clone holds."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    for rel in filter(None, listed.decode().split("\0")):
        src, out = ROOT / rel, dest / rel
        if not (src.is_symlink() or src.is_file()):
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            out.symlink_to(os.readlink(src))
        else:
            shutil.copy2(src, out)
    return dest
