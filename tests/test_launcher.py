"""The plugin's launcher (bin/perfkit-mcp, what .mcp.json runs) on the machines users have.

Each branch is reached by the PATH a test hands it, as Claude Code would: uv, an installed perfkit,
only python3, and neither (one line on stderr). A build in progress is a lock held by a live process,
so the stand-in that answers while uv or pip builds is reached without the package index; a build
that fails is a real pip or uv run with the index switched off. The full builds from the package
index, each connecting on Claude Code's first call, are in tests/clients/check_clients.py.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.clients import BIN, PLUGIN, base_python, bin_dir, claude, clients_or_skip, machine, tools

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = PLUGIN / "bin" / "perfkit-mcp"  # as Claude Code runs it: ${CLAUDE_PLUGIN_ROOT}/bin/perfkit-mcp


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
    return machine(tmp_path / "home", path, **extra)


def uv_program() -> str:
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    if not Path(uv).exists():
        pytest.fail("uv is not installed: `pip install uv` (the README's test set-up does)")
    return uv


def launch(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LAUNCHER), *args], env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def mcp_list(env: dict[str, str], cwd: Path, timeout: float = 180) -> str:
    proc = claude(env, cwd, "--plugin-dir", str(PLUGIN), "mcp", "list", timeout=timeout)
    return next((ln for ln in proc.stdout.splitlines() if ln.startswith("plugin:perfkit:perfkit")), proc.stdout)


def inspector(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "mcp-inspector"), "--cli", str(LAUNCHER), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def inspector_tools(env: dict[str, str], cwd: Path) -> list[str]:
    proc = inspector(env, cwd, "--method", "tools/list")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return sorted(t["name"] for t in json.loads(proc.stdout)["tools"])


def served_names() -> list[str]:
    from perfkit.registry import all_tools

    return sorted(s.name for s in all_tools())


def test_mcp_json_runs_the_launcher():
    config = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]["perfkit"]
    # through sh, so a copy that lost the executable bit still starts
    assert config["command"] == "sh" and config["args"] == ["${CLAUDE_PLUGIN_ROOT}/bin/perfkit-mcp", "serve"]
    assert os.access(LAUNCHER, os.X_OK)
    assert LAUNCHER.read_text().startswith("#!/bin/sh\n")


def test_nothing_installed_one_line_and_exit_127(tmp_path):
    proc = launch(clean_env(tmp_path, [tools(tmp_path / "tools")]))
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
    proc = launch(clean_env(tmp_path, [pydir, tools(tmp_path / "tools")]))
    assert proc.returncode == 127 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"perfkit: python3 on PATH is {shown}; perfkit needs Python 3.11 or newer: install it (python.org, or your "
        "package manager), or install uv (https://docs.astral.sh/uv/getting-started/installation/), then restart "
        "Claude Code"
    ]


def test_installed_perfkit_runs_with_arguments(tmp_path):
    perfkit = shutil.which("perfkit") or str(Path(sys.executable).parent / "perfkit")
    pk = bin_dir(tmp_path / "pk", {"perfkit": perfkit})
    proc = launch(clean_env(tmp_path, [pk, tools(tmp_path / "tools")]), "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("perfkit ")


def test_uv_says_how_it_will_start_and_builds_nothing(tmp_path):
    """uv on PATH: `uv run --frozen --no-dev` in perfkit's data folder; --version only says so."""
    uvdir = bin_dir(tmp_path / "uv", {"uv": uv_program(), "python3": base_python()})
    env = clean_env(tmp_path, [uvdir, tools(tmp_path / "tools")])
    data = Path(env["HOME"]) / ".local" / "share" / "perfkit"
    proc = launch(env, "--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1] == (
        f"starts with: uv run --frozen --no-dev (uv at {uvdir / 'uv'}), environment {data / 'uv-venv'}, not built "
        f"yet: the first start builds it with uv sync (log {data / 'uv-venv.install.log'})"
    )
    assert not data.exists() or not any(data.iterdir())


def _building(data: Path, lock_name: str, log_lines: list[str], started_ago: float) -> subprocess.Popen[bytes]:
    """A build in progress, as another start left it: the lock names a live builder, the log has lines."""
    lock = data / lock_name
    lock.mkdir(parents=True)
    builder = subprocess.Popen(["sleep", "300"])
    (lock / "pid").write_text(f"{builder.pid}\n")
    then = time.time() - started_ago
    os.utime(lock / "pid", (then, then))
    (data / lock_name.replace(".lock", ".install.log")).write_text("".join(f"{ln}\n" for ln in log_lines))
    return builder


@pytest.mark.parametrize("way", ["uv", "pip"])
def test_while_it_builds_the_first_call_connects_and_says_how_far(tmp_path, way):
    """A build in progress (uv's or pip's): Claude Code, with its own 30 s wait, finds perfkit Connected at
    once, and the stand-in's tool quotes the install log and the time since the build started."""
    clients_or_skip()
    programs = {"python3": base_python()} | ({"uv": uv_program()} if way == "uv" else {})
    env = clean_env(tmp_path, [bin_dir(tmp_path / "bin", programs), tools(tmp_path / "tools")])
    data = Path(env["HOME"]) / ".local" / "share" / "perfkit"
    lock = "uv-venv.lock" if way == "uv" else "venv.lock"
    lines = ["perfkit: installing", "[  12 s] Collecting pandas>=2.1", "[ 301 s] Installing collected packages: numpy"]
    builder = _building(data, lock, lines, started_ago=305)
    try:
        started = time.monotonic()
        line = mcp_list(env, tmp_path, timeout=120)
        assert "Connected" in line, line
        assert time.monotonic() - started < 60
        called = inspector(env, tmp_path, "--method", "tools/call", "--tool-name", "perfkit_installing")
        text = called.stdout + called.stderr
        assert "started 5 min" in text, text
        assert "Last line of the install log: [ 301 s] Installing collected packages: numpy" in text, text
        assert str(data / lock.replace(".lock", ".install.log")) in text
    finally:
        builder.kill()
        builder.wait()


def _offline_build(tmp_path: Path, way: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """A real build with the package index out of reach: pip or uv fails the way a user's does offline."""
    programs = {"python3": base_python()} | ({"uv": uv_program()} if way == "uv" else {})
    env = clean_env(tmp_path, [bin_dir(tmp_path / "bin", programs), tools(tmp_path / "tools")])
    env = {k: v for k, v in env.items() if not k.startswith(("PIP_", "UV_"))} | {
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "UV_OFFLINE": "1",
        "UV_CACHE_DIR": str(tmp_path / "empty-uv-cache"),
    }
    proc = launch(env, "read-benchmark", str(ROOT / "examples" / "campaign"), timeout=600)
    data = Path(env["HOME"]) / ".local" / "share" / "perfkit"
    return proc, data / ("uv-venv.install.log" if way == "uv" else "venv.install.log")


@pytest.mark.parametrize("way", ["uv", "pip"])
def test_a_failed_build_says_what_ran_and_quotes_its_error(tmp_path, way):
    """The log names the command and stamps each line with its second; the start that waited for it ends
    with one line naming the log and quoting the installer's own error."""
    proc, log = _offline_build(tmp_path, way)
    text = log.read_text()
    assert proc.returncode == 1 and proc.stdout == "", proc
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    command = "uv sync --frozen --no-dev --directory" if way == "uv" else "pip install --progress-bar off"
    assert f"perfkit: running {command}" in text, text
    stamped = [ln for ln in text.splitlines() if ln.startswith("[")]
    assert stamped and all(ln[1:].split(" s] ", 1)[0].strip().isdigit() for ln in stamped), text
    assert text.rstrip().splitlines()[-1].startswith("perfkit: the install failed after "), text
    error = next(ln for ln in reversed(stamped) if "error" in ln.lower())
    assert f"(the log is {log})" in proc.stderr and error in proc.stderr, proc.stderr


@pytest.mark.slow
def test_claude_reports_why_without_python(tmp_path):
    clients_or_skip()
    line = mcp_list(clean_env(tmp_path, [tools(tmp_path / "tools")]), tmp_path, timeout=120)
    assert "Failed" in line or "✘" in line, line


@pytest.mark.slow
def test_installed_perfkit_connects(tmp_path):
    clients_or_skip()
    perfkit = shutil.which("perfkit") or str(Path(sys.executable).parent / "perfkit")
    pk = bin_dir(tmp_path / "pk", {"perfkit": perfkit})
    env = clean_env(tmp_path, [pk, tools(tmp_path / "tools")])
    line = mcp_list(env, tmp_path, timeout=180)
    assert "Connected" in line, line
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
