"""Two bisect promises checked from outside, with real processes and real files.

A child that leaves the command's process group (a new session, as daemons do) is found by the
marker in its environment and killed when the step ends; a process without the marker is never
touched. The state file is replaced, never rewritten in place: a write that fails half-way (here
the file-size limit, which needs no root) leaves the previous state whole.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import uuid

import psutil
from perfkit.bisect.command import runner

ESCAPE = textwrap.dedent(
    """
    import os, sys, time
    os.setsid()  # a new session: the group kill at the end of the step cannot reach it
    with open(sys.argv[1], "w") as f:
        f.write(str(os.getpid()))
    time.sleep(120)
    """
)


def _gone(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.05)
    return False


def _escaping_command(tmp_path, name: str) -> tuple[str, os.PathLike]:
    script, pidfile = tmp_path / f"{name}.py", tmp_path / f"{name}.pid"
    script.write_text(ESCAPE)
    cmd = f"'{sys.executable}' '{script}' '{pidfile}' & while [ ! -s '{pidfile}' ]; do sleep 0.05; done; echo started"
    return cmd, pidfile


def test_a_child_that_left_the_process_group_does_not_outlive_the_step(tmp_path):
    cmd, pidfile = _escaping_command(tmp_path, "daemon")
    env = dict(os.environ) | {"PERFKIT_BISECT_ID": uuid.uuid4().hex}
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # no marker
    try:
        res = runner.run(cmd, tmp_path, env, 60, runner.Log(tmp_path / "logs" / "step.log", 1 << 20))
        assert res.exit_code == 0 and res.output_bytes > 0
        escaped = int(pidfile.read_text())
        assert _gone(escaped), f"pid {escaped} outlived the step"
        assert bystander.poll() is None  # a process without the marker is left alone
    finally:
        bystander.kill()
        bystander.wait()


def test_without_a_marker_nothing_outside_the_group_is_swept(tmp_path):
    """The counter-check: the same escape, with no marker in the environment, survives; so the test
    above passes because of the marker sweep, not because the child died by itself."""
    cmd, pidfile = _escaping_command(tmp_path, "kept")
    env = {k: v for k, v in os.environ.items() if k != "PERFKIT_BISECT_ID"}
    res = runner.run(cmd, tmp_path, env, 60, runner.Log(tmp_path / "logs" / "step.log", 1 << 20))
    escaped = int(pidfile.read_text())
    try:
        assert res.exit_code == 0 and not _gone(escaped, within=1.0)
    finally:
        psutil.Process(escaped).kill()


WRITE_OVER_LIMIT = textwrap.dedent(
    """
    import resource, signal, sys
    from pathlib import Path
    from perfkit.bisect.state.store import write_atomic
    from perfkit.errors import ToolFailure
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    try:
        write_atomic(Path(sys.argv[1]), '{"step": 2, "pad": "' + "x" * 20000 + '"}')
    except ToolFailure as exc:
        print("refused:", exc)
    """
)


def test_a_state_write_that_fails_half_way_leaves_the_previous_state_whole(tmp_path):
    from perfkit.bisect.state.store import write_atomic

    path = tmp_path / "state.json"
    write_atomic(path, '{"step": 1}')
    out = subprocess.run(
        [sys.executable, "-c", WRITE_OVER_LIMIT, str(path)], capture_output=True, text=True, check=True
    ).stdout
    assert out.startswith("refused:")
    assert path.read_text() == '{"step": 1}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]  # no temporary file left behind


def test_a_saved_state_is_a_new_file_not_the_old_one_rewritten(tmp_path):
    """Readers that opened the old state keep reading it whole while a new one is saved."""
    from perfkit.bisect.state.store import write_atomic

    path = tmp_path / "state.json"
    write_atomic(path, '{"step": 1, "pad": "' + "a" * 5000 + '"}')
    with open(path) as reader:
        write_atomic(path, '{"step": 2}')
        assert reader.read().startswith('{"step": 1, "pad": "aaaa') and path.read_text() == '{"step": 2}'


def test_a_log_whose_repository_is_gone_is_not_recreated_at_the_old_place(tmp_path):
    """A step log is opened in the state folder inside the repository's git folder. If the repository
    moved or was deleted, that folder's parents are gone, and the log must fail quietly (the step goes
    on, the move is reported) rather than make the old path exist again."""
    gone = tmp_path / "repo" / ".git" / "perfkit-bisect" / "logs" / "step-004.log"
    log = runner.Log(gone, 1024)
    log.note("perfkit step 4\n")
    log.close()
    assert log.error and not (tmp_path / "repo").exists()
    # the logs folder itself is made when only it is missing
    here = tmp_path / "state" / "logs" / "step-001.log"
    here.parent.parent.mkdir()
    ok = runner.Log(here, 1024)
    ok.note("perfkit step 1\n")
    ok.close()
    assert ok.error is None and here.read_text() == "perfkit step 1\n"
