"""perfkit's own files follow the XDG spec and carry the modes perfkit sets, whatever the environment.

A relative `XDG_STATE_HOME` put the state seal's key under the current folder, which over MCP is
often the user's checkout (an untracked `state/perfkit/bisect-state.key` appeared there); under umask
000 the state folder, the logs and the worktree were 0777 and state.json 0644. Here `perfkit serve`
runs as a real stdio subprocess in the user's checkout with relative XDG variables, a variable names
a file, and a bisect and a server run under umask 000: nothing lands in the checkout, the refused
variable is named with advice, and every folder perfkit makes is 0700 and every file 0600.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.bisect_project import build
from helpers.gitbuild import snapshot
from helpers.mcp_wire import Wire
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_start
from perfkit.errors import InputError

PLAN = [("src", "")] * 3 + [("src", "BUG", "bug")] + [("src", "BUG")] * 2


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def clean_env(home: Path, **xdg: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_") and k != "PERFKIT_CACHE_DIR"}
    return env | {"HOME": str(home), "PERFKIT_DEBUG": ""} | xdg


def test_relative_xdg_variables_put_nothing_in_the_checkout_over_mcp(tmp_path):
    p = build(tmp_path, ["", ""], PLAN)
    before = snapshot(p.sup.path)
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(home, XDG_STATE_HOME="state", XDG_CACHE_HOME="cache", XDG_DATA_HOME="share")
    wire = Wire(env=env, cwd=p.sup.path)  # a client that starts the server in the user's checkout
    try:
        started = wire.call(1, "bisect_start", {"repo": p.path, "good": p.c["add"], "run": p.run_cmd()})
        assert not started["result"].get("isError"), started
        done = wire.call(2, "bisect_run", {"repo": p.path})
        assert p.c["bug"][:12] in str(done["result"]), done
        assert not wire.call(3, "bisect_reset", {"repo": p.path})["result"].get("isError")
    finally:
        wire.stop()
    for name in ("state", "cache", "share"):
        assert not (p.sup.path / name).exists(), name
    assert snapshot(p.sup.path) == before
    key = home / ".local" / "state" / "perfkit" / "bisect-state.key"
    assert key.is_file() and mode(key) == 0o600
    assert mode(key.parent) == 0o700
    assert "XDG_STATE_HOME='state' is a relative path, which the XDG spec says to ignore" in wire.stderr()


def test_an_xdg_state_home_that_is_a_file_is_refused_naming_it_before_anything_is_written(tmp_path, monkeypatch):
    p = build(tmp_path, ["", ""], PLAN)
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x\n")
    monkeypatch.setenv("XDG_STATE_HOME", str(a_file))
    with pytest.raises(InputError) as bad:
        bisect_start(p.path, p.c["add"], run=p.run_cmd())
    assert bad.value.field == "XDG_STATE_HOME" and str(a_file) in bad.value.problem, str(bad.value)
    assert "set XDG_STATE_HOME to a folder of yours" in (bad.value.fix or "")
    assert not statefile.state_dir(Path(p.path)).exists()
    cli = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "bisect-start", p.path, p.c["add"], "--run", "true"],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_STATE_HOME": str(a_file)},
    )
    assert cli.returncode == 2 and "XDG_STATE_HOME" in cli.stderr, cli.stderr
    assert len(cli.stderr.strip().splitlines()) == 1, cli.stderr


def test_under_umask_000_every_folder_perfkit_makes_is_0700_and_every_file_0600(tmp_path):
    p = build(tmp_path, ["", ""], PLAN)
    home = tmp_path / "home"
    home.mkdir()
    xdg = tmp_path / "xdg"
    env = clean_env(home, XDG_STATE_HOME=str(xdg / "state"), XDG_CACHE_HOME=str(xdg / "cache"))
    seen = p.env / "modes"
    parent, sdir_ = '"$PERFKIT_CHECKOUT/.."', '"$PERFKIT_CHECKOUT/../.."'
    run = f'stat -c "%a %n" {parent} {sdir_} {sdir_}/lock >> {seen}; {p.run_cmd()}'

    def umask_000() -> None:
        os.umask(0)

    wire = Wire(env=env, preexec=umask_000)
    try:
        assert "result" in wire.call(1, "bisect_start", {"repo": p.path, "good": p.c["add"], "run": run})
        assert p.c["bug"][:12] in str(wire.call(2, "bisect_run", {"repo": p.path})["result"])
    finally:
        wire.stop()
    for folder in (xdg, xdg / "state", xdg / "state" / "perfkit"):
        assert mode(folder) == 0o700, folder
    assert mode(xdg / "state" / "perfkit" / "bisect-state.key") == 0o600
    cache = xdg / "cache" / "perfkit"
    assert mode(cache) == 0o700 and all(mode(f) == 0o600 for f in cache.iterdir()), list(cache.iterdir())
    sdir = statefile.state_dir(Path(p.path))
    assert mode(sdir) == 0o700 and mode(sdir / "logs") == 0o700
    files = [f for f in sdir.rglob("*") if f.is_file()]
    assert {"state.json", "step-001.log"} <= {f.name for f in files}, files
    assert {f.name: mode(f) for f in files} == {f.name: 0o600 for f in files}
    lines = seen.read_text().splitlines()
    # mid-run: the worktree's parent and perfkit's folder 0700, the lock 0600
    assert lines and all(line.split()[0] == ("600" if line.endswith("lock") else "700") for line in lines), lines
