"""The plugin's launcher (bin/perfkit-mcp, what .mcp.json runs) on the machines users have.

Each branch is reached by the PATH a test hands it, as Claude Code would: uv, an installed perfkit,
only python3 (the launcher builds its own environment once, under a lock), and neither (one line on
stderr). The branches that connect are checked with `claude --plugin-dir . mcp list` and the MCP
Inspector CLI, installed by tests/clients/install.sh into .tools/.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "bin" / "perfkit-mcp"
BIN = ROOT / ".tools" / "node_modules" / ".bin"
# What the launcher and Claude Code call besides the interpreter; none of them is python, uv or perfkit.
NETWORK = re.compile(r"(?i)proxy|cert|ssl|ca_bundle|^pip_|^uv_")
TOOLS = ["sh", "cat", "cksum", "mkdir", "rm", "sleep", "env", "git", "node"]


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


def tools(tmp_path: Path) -> Path:
    found = {name: shutil.which(name) for name in TOOLS}
    return bin_dir(tmp_path / "tools", {n: t for n, t in found.items() if t})


def base_python() -> str:
    """A real interpreter of 3.11 or newer outside any virtual environment (what a user has)."""
    return str(Path(getattr(sys, "_base_executable", sys.executable)).resolve())


def old_python(tmp_path: Path) -> str:
    """A real Python older than 3.11 when the machine has one; else a stand-in that reports 3.10."""
    candidates = [shutil.which(f"python3.{minor}") for minor in (10, 9, 8)]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[0]*/bin/python3")))
    for c in candidates:
        if c and subprocess.run([c, "-c", "import sys; sys.exit(sys.version_info >= (3, 11))"]).returncode == 0:
            return c
    fake = tmp_path / "python3.10-standin"
    fake.write_text(
        "#!/bin/sh\n# answers like a Python 3.10 install\n"
        'case "$*" in *version_info*) exit 1 ;; *python_version*) echo 3.10.12 ;; esac\n'
    )
    fake.chmod(0o755)
    return str(fake)


def clean_env(tmp_path: Path, path: list[Path], **extra: str) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        "HOME": str(home),
        "PATH": os.pathsep.join(map(str, path)),
        "CI": "true",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "MCP_TIMEOUT": "600000",
    }
    # how this machine reaches the package index (proxies, certificates, pip and uv settings) stays
    env |= {k: v for k, v in os.environ.items() if NETWORK.search(k)}
    real_home = Path.home()
    env.setdefault("PIP_CACHE_DIR", str(real_home / ".cache" / "pip"))
    env.setdefault("UV_CACHE_DIR", str(real_home / ".cache" / "uv"))
    return env | extra


def launch(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LAUNCHER), *args], env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def mcp_list(env: dict[str, str], cwd: Path, timeout: float = 900) -> str:
    proc = subprocess.run(
        [str(BIN / "claude"), "--plugin-dir", str(ROOT), "mcp", "list"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    return next((ln for ln in proc.stdout.splitlines() if ln.startswith("plugin:perfkit:perfkit")), proc.stdout)


def inspector_tools(env: dict[str, str], cwd: Path) -> list[str]:
    proc = subprocess.run(
        [str(BIN / "mcp-inspector"), "--cli", str(LAUNCHER), "--method", "tools/list"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return sorted(t["name"] for t in json.loads(proc.stdout)["tools"])


def served_names() -> list[str]:
    from perfkit.registry import all_tools

    return sorted(s.name for s in all_tools())


def test_mcp_json_runs_the_launcher():
    config = json.loads((ROOT / ".mcp.json").read_text())["mcpServers"]["perfkit"]
    # through sh, so a copy that lost the executable bit still starts
    assert config["command"] == "sh" and config["args"] == ["${CLAUDE_PLUGIN_ROOT}/bin/perfkit-mcp", "serve"]
    assert os.access(LAUNCHER, os.X_OK)
    assert LAUNCHER.read_text().startswith("#!/bin/sh\n")
    assert "uv run --quiet --frozen --directory" in LAUNCHER.read_text()


def test_nothing_installed_one_line_and_exit_127(tmp_path):
    proc = launch(clean_env(tmp_path, [tools(tmp_path)]))
    assert proc.returncode == 127 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    line = proc.stderr.strip()
    assert line.startswith("perfkit: found neither uv, nor perfkit, nor python3")
    assert "https://docs.astral.sh/uv/" in line and "3.11" in line


def test_python_too_old_names_its_version(tmp_path):
    old = old_python(tmp_path)
    version = subprocess.run([old, "-c", "import platform; print(platform.python_version())"], capture_output=True)
    shown = version.stdout.decode().strip() or "3.10.12"
    pydir = bin_dir(tmp_path / "py", {"python3": old})
    proc = launch(clean_env(tmp_path, [pydir, tools(tmp_path)]))
    assert proc.returncode == 127 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"perfkit: python3 on PATH is {shown}; perfkit needs Python 3.11 or newer: install it (python.org, or your "
        "package manager), or install uv (https://docs.astral.sh/uv/getting-started/installation/), then restart "
        "Claude Code"
    ]


def test_installed_perfkit_runs_with_arguments(tmp_path):
    perfkit = shutil.which("perfkit") or str(Path(sys.executable).parent / "perfkit")
    pk = bin_dir(tmp_path / "pk", {"perfkit": perfkit})
    proc = launch(clean_env(tmp_path, [pk, tools(tmp_path)]), "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("perfkit ")


@pytest.mark.slow
def test_claude_reports_why_without_python(tmp_path):
    clients_or_skip()
    line = mcp_list(clean_env(tmp_path, [tools(tmp_path)]), tmp_path, timeout=120)
    assert "Failed" in line or "✘" in line, line


@pytest.mark.slow
def test_installed_perfkit_connects(tmp_path):
    clients_or_skip()
    perfkit = shutil.which("perfkit") or str(Path(sys.executable).parent / "perfkit")
    pk = bin_dir(tmp_path / "pk", {"perfkit": perfkit})
    env = clean_env(tmp_path, [pk, tools(tmp_path)])
    line = mcp_list(env, tmp_path, timeout=180)
    assert "Connected" in line, line
    assert inspector_tools(env, tmp_path) == served_names()


@pytest.mark.slow
def test_uv_runs_the_locked_environment(tmp_path):
    """uv on PATH, no perfkit: the launcher's `uv run --frozen` builds from uv.lock (needs the package index)."""
    clients_or_skip()
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    if not Path(uv).exists():
        pytest.fail("uv is not installed: `pip install uv` (the README's test set-up does)")
    uvdir = bin_dir(tmp_path / "uv", {"uv": uv, "python3": base_python()})
    env = clean_env(tmp_path, [uvdir, tools(tmp_path)])
    data = Path(env["HOME"]) / ".local" / "share" / "perfkit"  # one data folder, however the plugin was added
    line = mcp_list(env, tmp_path)
    assert "Connected" in line, line
    assert (data / "uv-venv" / "bin" / "perfkit").exists(), "uv's environment belongs in perfkit's data folder"
    assert inspector_tools(env, tmp_path) == served_names()


@pytest.mark.slow
def test_builds_its_own_environment_once(tmp_path):
    """Only python3: the first start answers MCP at once (Connected on the first call, with Claude Code's own
    30 s wait) while it builds one environment in perfkit's data folder; a second start waits for it.

    Claude Code and a CLI start race for the build; one install runs, both end up served. Needs the package index.
    """
    clients_or_skip()
    pydir = bin_dir(tmp_path / "py", {"python3": base_python()})
    env = clean_env(tmp_path, [pydir, tools(tmp_path)])
    del env["MCP_TIMEOUT"]  # Claude Code's default wait, as a user has it
    data = Path(env["HOME"]) / ".local" / "share" / "perfkit"
    other = subprocess.Popen(
        [str(LAUNCHER), "read-benchmark", str(ROOT / "examples" / "campaign"), "--json"],
        env=env | {"CLAUDE_PLUGIN_DATA": str(tmp_path / "another-data-folder")},  # the same environment still
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    line = mcp_list(env, tmp_path, timeout=120)
    out, err = other.communicate(timeout=900)
    assert "Connected" in line, line + (data / "venv.install.log").read_text(errors="replace")
    assert other.returncode == 0 and json.loads(out)["candidate"], err
    log = (data / "venv.install.log").read_text()
    assert log.count("perfkit: creating") == 1, log
    assert (data / "venv" / ".perfkit-stamp").is_file() and not (data / "venv.lock").exists()
    again = launch(env, "--version", timeout=30)  # built: says so, starts nothing
    assert again.returncode == 0 and "(built)" in again.stdout, again.stdout
    assert (data / "venv.install.log").read_text() == log
    assert "Connected" in mcp_list(env, tmp_path, timeout=120)
    assert inspector_tools(env, tmp_path) == served_names()


@pytest.mark.parametrize("value", ["share", "./share", "{checkout}/a-file"], ids=["relative", "dot-relative", "a-file"])
def test_an_xdg_data_home_that_is_relative_or_a_file_is_ignored(tmp_path, value):
    """The XDG spec says a relative XDG_DATA_HOME is to be ignored: started in the user's checkout, the launcher
    must not build its environment there. A value naming a file is ignored too."""
    pydir = bin_dir(tmp_path / "py", {"python3": base_python()})
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "a-file").write_text("not a folder\n")
    env = clean_env(tmp_path, [pydir, tools(tmp_path)], XDG_DATA_HOME=value.format(checkout=checkout))
    proc = subprocess.run(
        [str(LAUNCHER), "--version"], env=env, cwd=checkout, capture_output=True, text=True, timeout=60
    )
    venv = Path(env["HOME"]) / ".local" / "share" / "perfkit" / "venv"
    assert proc.returncode == 0 and f"its own environment {venv}, not built yet" in proc.stdout, proc.stdout
    assert sorted(p.name for p in checkout.iterdir()) == ["a-file"]
