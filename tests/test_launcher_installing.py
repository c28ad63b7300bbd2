"""The plugin's first start: perfkit answers MCP at once while its environment is still being built.

bin/perfkit-mcp-installing.py (the stand-in the launcher runs during the build) driven by the real
MCP client over stdio: the handshake and one tool that say perfkit is installing and where the log
is; then, when the build is done, the real server behind the same connection and a tools/list_changed
notification. The launcher's --version answers without building, and the data folder is one whatever
way Claude Code added the plugin.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
from helpers.load import slack
from mcp import ClientSession, StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[1]
STAND_IN = ROOT / "bin" / "perfkit-mcp-installing.py"
LAUNCHER = ROOT / "bin" / "perfkit-mcp"


def _params(tmp_path: Path, stamp: str = "1234 56") -> tuple[StdioServerParameters, Path, Path, Path]:
    stamp_file, log, lock = tmp_path / "venv" / ".perfkit-stamp", tmp_path / "venv.install.log", tmp_path / "venv.lock"
    stamp_file.parent.mkdir()
    lock.mkdir()
    log.write_text("perfkit: creating the environment\n")
    real = [sys.executable, "-m", "perfkit.cli", "serve"]
    env = dict(os.environ) | {"PERFKIT_CACHE_DIR": str(tmp_path / "cache")}
    args = [str(STAND_IN), str(stamp_file), stamp, str(log), str(lock), "--", *real]
    return StdioServerParameters(command=sys.executable, args=args, env=env), stamp_file, log, lock


def test_answers_at_once_then_hands_over_to_perfkit(tmp_path, superproject):
    sup, _, s = superproject
    params, stamp_file, log, lock = _params(tmp_path)
    seen: list[str] = []

    async def on_message(message) -> None:
        root = getattr(message, "root", message)
        method = getattr(root, "method", None)
        if method:
            seen.append(method)

    async def go():
        with anyio.fail_after(slack(90)):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write, message_handler=on_message) as session:
                    started = time.monotonic()
                    init = await session.initialize()
                    answered_in = time.monotonic() - started
                    before = await session.list_tools()
                    status = await session.call_tool("perfkit_installing", {})
                    # the build finishes: the stand-in starts perfkit behind the same connection
                    stamp_file.write_text("1234 56\n")
                    lock.rmdir()
                    while "notifications/tools/list_changed" not in seen:
                        await anyio.sleep(0.2)
                    after = await session.list_tools()
                    res = await session.call_tool("evaluate_culprit", {"repo": str(sup.path), "commit": s["bump"]})
                    return init, answered_in, before, status, after, res

    init, answered_in, before, status, after, res = anyio.run(go)
    assert answered_in < 5
    assert "installing" in (init.instructions or "") and str(log) in (init.instructions or "")
    assert init.capabilities.tools and init.capabilities.tools.list_changed
    assert [t.name for t in before.tools] == ["perfkit_installing"]
    assert str(log) in (before.tools[0].description or "")
    assert status.is_error and "installing" in status.content[0].text and str(log) in status.content[0].text
    from perfkit.registry import all_tools

    assert sorted(t.name for t in after.tools) == sorted(t.name for t in all_tools())
    assert not res.is_error and res.structured_content["kind"] == "submodule_bump"


def _ask_installing(params: StdioServerParameters):
    """Start the launcher over real stdio and call perfkit_installing once; the tool result."""

    async def go():
        with anyio.fail_after(slack(30)):
            async with stdio_client(params) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await session.call_tool("perfkit_installing", {})

    return anyio.run(go)


def test_a_failed_build_says_where_the_log_is_and_quotes_its_error(tmp_path):
    params, _, log, lock = _params(tmp_path)
    log.write_text(
        "perfkit: running pip install --progress-bar off /plugin\n"
        "[   3 s] ERROR: Could not find a version that satisfies the requirement hatchling>=1.25\n"
        "[   3 s] ERROR: No matching distribution found for hatchling>=1.25\n"
        "perfkit: the install failed after 3 s (exit status 1); the lines above say why\n"
    )
    lock.rmdir()  # the builder ended without writing the stamp
    res = _ask_installing(params)
    text = res.content[0].text
    assert res.is_error and f"could not be installed; the install log is {log}" in text
    assert "No matching distribution found for hatchling>=1.25 | perfkit: the install failed after 3 s" in text


def test_the_time_and_the_log_line_it_quotes_are_the_builds(tmp_path):
    """A stand-in started minutes into a build (a reconnect, a second client) says how long the build has
    run, not how long it has itself, and quotes the log's last line."""
    params, _, log, lock = _params(tmp_path)
    builder = subprocess.Popen(["sleep", "120"])
    try:
        (lock / "pid").write_text(f"{builder.pid}\n")
        then = time.time() - 5 * 60 - 3
        os.utime(lock / "pid", (then, then))
        log.write_text("perfkit: creating\n[   4 s] Collecting pandas>=2.1\n[ 302 s] Installing collected packages\n")
        text = _ask_installing(params).content[0].text
    finally:
        builder.kill()
        builder.wait()
    assert "started 5 min 3 s ago" in text or "started 5 min 4 s ago" in text, text
    assert "Last line of the install log: [ 302 s] Installing collected packages" in text


def _only_python(tmp_path: Path) -> dict[str, str]:
    """PATH with python3 and the few tools the launcher calls: what a machine without uv or perfkit has."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python = str(Path(getattr(sys, "_base_executable", sys.executable)).resolve())
    (bin_dir / "python3").symlink_to(python)
    for tool in ("sh", "cat", "cksum", "date", "mkdir", "rm", "sleep"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    home = tmp_path / "home"
    home.mkdir()
    return {"PATH": str(bin_dir), "HOME": str(home)}


def test_version_answers_without_building(tmp_path):
    env = _only_python(tmp_path)
    started = time.monotonic()
    proc = subprocess.run([str(LAUNCHER), "--version"], env=env, capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 10
    data = Path(env["HOME"]) / ".local" / "share" / "perfkit"
    assert proc.stdout.startswith("perfkit 0.") and f"its own environment {data / 'venv'}, not built yet" in proc.stdout
    assert not (data / "venv").exists() and not (data / "venv.lock").exists()
    (data / "venv.lock").mkdir(parents=True)  # another start is building it
    proc = subprocess.run([str(LAUNCHER), "--version"], env=env, capture_output=True, text=True, timeout=30)
    assert "being built now" in proc.stdout and not (data / "venv").exists()


def test_one_data_folder_however_the_plugin_was_added(tmp_path):
    """Installed and --plugin-dir starts get different CLAUDE_PLUGIN_DATA folders; perfkit uses one."""
    env = _only_python(tmp_path)
    said = set()
    for plugin_data in ("perfkit-perfkit", "perfkit-inline"):
        data = Path(env["HOME"]) / ".claude" / "plugins" / "data" / plugin_data
        proc = subprocess.run(
            [str(LAUNCHER), "--version"], env=env | {"CLAUDE_PLUGIN_DATA": str(data)}, capture_output=True, text=True
        )
        assert proc.returncode == 0, proc.stderr
        said.add(proc.stdout.splitlines()[1])
    assert len(said) == 1, said
    custom = subprocess.run(
        [str(LAUNCHER), "--version"], env=env | {"PERFKIT_HOME": str(tmp_path / "pk")}, capture_output=True, text=True
    )
    assert f"{tmp_path / 'pk' / 'venv'}" in custom.stdout


def test_a_builder_killed_without_cleaning_up_is_not_installing(tmp_path):
    """A lock left by a builder that died (kill -9, a reboot) must not read as installing forever."""
    params, _, log, lock = _params(tmp_path)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (lock / "pid").write_text(f"{dead.pid}\n")
    res = _ask_installing(params)
    assert f"could not be installed; the install log is {log}" in res.content[0].text
