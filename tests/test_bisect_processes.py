"""Process scans find the bisect's own processes by their marker, through /proc on Linux and through
psutil where /proc does not exist (macOS): both paths are run here, on real processes."""

from __future__ import annotations

import os
import subprocess
import time
import uuid

import psutil
import pytest
from perfkit.bisect.command import runner


@pytest.fixture(params=["proc", "psutil"])
def scan_path(request, monkeypatch):
    monkeypatch.setattr(runner, "_PROC_ENVIRON", request.param == "proc")
    return request.param


def _unique(name: str) -> str:
    """A marker no other test worker uses: sweep kills every process carrying it, and xdist runs the
    proc and psutil cases of one test at the same time."""
    return f"{name}-{uuid.uuid4().hex}"


def _spawn(marker_value: str, own_session: bool) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PERFKIT_BISECT_ID=marker_value)
    return subprocess.Popen(["sleep", "60"], env=env, start_new_session=own_session)


def test_owned_by_reads_the_marker_exactly(scan_path):
    mark = _unique("abc123")
    proc = _spawn(mark, own_session=False)
    try:
        time.sleep(0.1)
        assert runner.owned_by(proc.pid, f"PERFKIT_BISECT_ID={mark}")
        assert not runner.owned_by(proc.pid, f"PERFKIT_BISECT_ID={mark[:-1]}")  # a prefix is another bisect
        assert not runner.owned_by(proc.pid, f"PERFKIT_BISECT_ID={mark}4")
        assert not runner.owned_by(os.getpid(), f"PERFKIT_BISECT_ID={mark}")
        assert not runner.owned_by(2**22 + 12345, f"PERFKIT_BISECT_ID={mark}")  # no such process
    finally:
        proc.kill()
        proc.wait()


def test_sweep_stops_only_marked_processes_even_outside_the_group(scan_path):
    mark = _unique("sweep-me")
    ours = [_spawn(mark, own_session=True), _spawn(mark, own_session=False)]
    other = _spawn(_unique("someone-else"), own_session=True)
    try:
        time.sleep(0.1)
        assert runner.sweep(f"PERFKIT_BISECT_ID={mark}") == 2
        for p in ours:
            assert p.wait(timeout=5) == -9
        assert other.poll() is None and psutil.pid_exists(other.pid)
    finally:
        for p in [*ours, other]:
            if p.poll() is None:
                p.kill()
                p.wait()


def test_process_group_of_a_command_in_its_own_session():
    proc = _spawn(_unique("grp"), own_session=True)
    try:
        assert runner.process_group(proc.pid) == proc.pid
        assert runner.process_group(2**22 + 12345) is None
    finally:
        proc.kill()
        proc.wait()
