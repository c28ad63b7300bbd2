"""Run one user-supplied command the way a long bisect needs: contained, bounded, recorded.

These are the only commands perfkit runs through a shell, and only because the user wrote them
as shell commands. Each gets its own process group (a timeout or a stop kills the whole tree,
including children that outlive the command), stdin from /dev/null, and its output goes to the
step's log file up to a size cap; beyond the cap the log keeps the tail, while the verdict
patterns still see every byte.
"""

from __future__ import annotations

import collections
import os
import select
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from perfkit.bisect.command.linear_scan import LinearScan, LinearSearch
from perfkit.bisect.command.scan import Scan as Scan  # re-exported: the runner's callers and tests name it here
from perfkit.bisect.command.scan import _last as _last  # re-exported for the scan's property tests
from perfkit.bisect.command.scan import _search as _search  # re-exported for the scan's property tests
from perfkit.bisect.command.scanproc import BUFFER_MAX, ScanProcess, widen_pipe
from perfkit.guards import private_dirs

TAIL_BYTES = 64 * 1024
GRACE_S = 3.0


def shell() -> list[str]:
    bash = shutil.which("bash")
    return [bash, "-c"] if bash else ["/bin/sh", "-c"]


class Log:
    """A per-step log file with a byte cap shared by every command of the step.

    A log that cannot be written (disk full, folder gone) never stops the command or the clean-up
    that needs it: writing stops, `error` says why, and the output is still scanned for a verdict.
    Only the logs folder itself is created, never its parents: a repository moved or deleted
    mid-bisect is not recreated at its old place."""

    def __init__(self, path: Path, cap_bytes: int):
        self.path = path
        self.cap = cap_bytes
        self.written = 0
        self.omitted = 0
        self.error: str | None = None
        self._tail: collections.deque[bytes] = collections.deque()
        self._tail_size = 0
        self._fh = None
        try:
            if path.parent.is_symlink():  # planted in perfkit's folder: removed as a link, never followed
                path.parent.unlink()
            private_dirs.make_dir(path.parent, parents=False)
            flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
            self._fh = os.fdopen(os.open(path, flags, 0o600), "ab")
        except OSError as exc:
            self.error = exc.strerror or str(exc)

    def _put(self, data: bytes, flush: bool = False) -> None:
        if self._fh is None:
            return
        try:
            self._fh.write(data)
            if flush:
                self._fh.flush()
        except OSError as exc:
            self.error = exc.strerror or str(exc)
            self.close()
            self._fh = None

    def note(self, text: str) -> None:
        self._put(text.encode("utf-8", "replace"), flush=True)

    def write(self, data: bytes) -> None:
        room = self.cap - self.written
        if room > 0:
            head = data[:room]
            self._put(head)
            self.written += len(head)
            data = data[room:]
        if data:
            self.omitted += len(data)
            self._tail.append(data)
            self._tail_size += len(data)
            while self._tail_size - len(self._tail[0]) >= TAIL_BYTES:
                self._tail_size -= len(self._tail.popleft())

    def end_command(self) -> None:
        if self.omitted:
            tail = b"".join(self._tail)[-TAIL_BYTES:]
            skipped = self.omitted - len(tail)
            if skipped > 0:
                self.note(f"\n[perfkit: log cap reached; {skipped} bytes omitted, the last {len(tail)} follow]\n")
            self._put(tail)
        self.omitted, self._tail, self._tail_size = 0, collections.deque(), 0
        self._put(b"", flush=True)

    def close(self) -> None:
        try:
            if self._fh is not None:
                self._fh.close()
        except OSError as exc:
            self.error = self.error or exc.strerror or str(exc)


@dataclass
class Result:
    exit_code: int | None = None
    signal: int | None = None
    timed_out: bool = False
    error: str | None = None
    duration_s: float = 0.0
    output_bytes: int = 0
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.timed_out and self.exit_code == 0


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def run(
    command: str,
    cwd: Path,
    env: dict[str, str],
    timeout_s: float,
    log: Log,
    scan: Scan | None = None,
    tick: Callable[[float], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    check_stop: Callable[[], None] | None = None,
) -> Result:
    """Run command in its own process group; kill the group on timeout, on exit and on interruption.

    check_stop raises to interrupt (the server was told to stop); it is called several times a second."""
    log.note(f"$ {command}\n  (cwd {cwd})\n")
    started = time.monotonic()
    proc = _start(command, cwd, env, log)
    if isinstance(proc, Result):
        return proc
    if on_start:
        on_start(proc.pid)
    try:
        watch = _Watch(proc, log, scan, started, timeout_s, env)
    except BaseException:  # the search could not start: the command must not outlive this call
        _stop(proc)
        kill_group(proc.pid)
        raise
    completed = False
    try:
        watch.pump(tick, check_stop)
        completed = True
    finally:
        watch.close(env.get("PERFKIT_BISECT_ID"), completed)
    return _ended(watch.res, proc, log, started)


def _start(command: str, cwd: Path, env: dict[str, str], log: Log) -> subprocess.Popen[bytes] | Result:
    if not cwd.is_dir():
        log.note(f"[perfkit: working directory {cwd} does not exist]\n")
        return Result(error=f"working directory {cwd} does not exist")
    try:
        return subprocess.Popen(
            [*shell(), command],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except (OSError, ValueError) as exc:
        log.note(f"[perfkit: could not start: {exc}]\n")
        return Result(error=f"could not start: {getattr(exc, 'strerror', None) or exc}")


class _Watch:
    """One running command: its output read into the log and the scan, its deadline enforced."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        log: Log,
        scan: Scan | None,
        started: float,
        timeout_s: float,
        env: dict[str, str],
    ):
        self.proc, self.log = proc, log
        self.started, self.timeout_s = started, timeout_s
        self.res = Result()
        self.scan: ScanProcess | LinearSearch | None = None
        if isinstance(scan, LinearScan):  # searched as it is read, in this process
            self.scan = LinearSearch(scan, started + timeout_s, env)
        elif scan is not None:
            self.scan = ScanProcess(scan, started + timeout_s, env)
        assert proc.stdout is not None  # Popen was given stdout=PIPE
        self.out = proc.stdout
        self.fd = self.out.fileno()
        os.set_blocking(self.fd, False)
        widen_pipe(self.fd)
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.fd, selectors.EVENT_READ)
        self.reading = True
        self.exited_at: float | None = None
        self.active_at = started  # last time output moved (read from the command, or taken by the search)

    def pump(self, tick: Callable[[float], None] | None, check_stop: Callable[[], None] | None) -> None:
        next_tick = self.started + 1.0
        while not self._check_end():
            if check_stop is not None:
                check_stop()
            if self.reading:
                self._read()
            elif self.exited_at is None:
                try:
                    self.proc.wait(timeout=0.2)
                except subprocess.TimeoutExpired:
                    pass
            if tick and time.monotonic() >= next_tick:
                next_tick = time.monotonic() + 1.0
                tick(time.monotonic() - self.started)

    def _check_end(self) -> bool:
        """Note the exit or enforce the timeout; True once there is nothing more to read."""
        now = time.monotonic()
        if self.exited_at is None and self.proc.poll() is not None:
            self.exited_at = now
            kill_group(self.proc.pid)  # children that outlive the command do not outlive the step
        if self.exited_at is None and now - self.started >= self.timeout_s:
            self.res.timed_out = True
            if self.scan is not None:
                self.scan.held_back(now - self.started)
            self.log.note(f"\n[perfkit: timed out after {self.timeout_s:g}s; stopping the process group]\n")
            _stop(self.proc)
            kill_group(self.proc.pid)
            self.exited_at = time.monotonic()
        # after the exit, output still comes from the pipe; a daemon that holds it open gets 2 s of quiet
        quiet_since = max(self.exited_at or 0.0, self.active_at)
        return self.exited_at is not None and (not self.reading or time.monotonic() - quiet_since > 2.0)

    def _read(self) -> None:
        scan = self.scan
        if scan is not None and scan.pending >= BUFFER_MAX:  # the search is behind: let the command wait
            select.select([], [scan.fd], [], 0.2)
            before = scan.pending
            scan.flush()
            if scan.pending < before:
                self.active_at = time.monotonic()
            return
        for _key, _ in self.sel.select(timeout=0.2):
            try:
                data = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                continue
            if not data:
                self.reading = False
                self.sel.unregister(self.fd)
                return
            self.active_at = time.monotonic()
            self.res.output_bytes += len(data)
            self.log.write(data)
            if scan is not None:
                scan.push(data)

    def close(self, marker: str | None, completed: bool) -> None:
        """Stop what is left of the command; let the search finish (by the deadline) unless interrupted."""
        if self.proc.poll() is None:
            _stop(self.proc)
        kill_group(self.proc.pid)
        self.sel.close()
        self.out.close()
        if self.scan is not None:
            if completed:
                self.scan.finish()
            else:
                self.scan.kill()
        if marker:  # children that left the process group (setsid, daemons) carry the marker still
            sweep(f"PERFKIT_BISECT_ID={marker}")
        self.log.end_command()


def _ended(res: Result, proc: subprocess.Popen[bytes], log: Log, started: float) -> Result:
    res.duration_s = time.monotonic() - started
    rc = proc.returncode
    if rc is not None and rc < 0:
        res.signal = -rc
    res.exit_code = rc
    if res.timed_out:
        log.note(f"[perfkit: stopped after {res.duration_s:.1f}s]\n")
    elif res.signal:
        log.note(f"[perfkit: killed by {signal.Signals(res.signal).name} after {res.duration_s:.1f}s]\n")
    else:
        log.note(f"[perfkit: exit {rc} after {res.duration_s:.1f}s]\n")
    return res


def _stop(proc: subprocess.Popen[bytes]) -> None:
    kill_group(proc.pid, signal.SIGTERM)
    try:
        proc.wait(GRACE_S)
    except subprocess.TimeoutExpired:
        kill_group(proc.pid, signal.SIGKILL)
        proc.wait()


def sweep(marker: str) -> int:
    """Kill every process whose environment holds marker (ours, by construction); how many were found.

    It follows every command, so on Linux it reads /proc directly: the list of processes from one
    folder listing, and each environment with three system calls (about 20 times cheaper than through
    psutil and pathlib, which counts on a machine with hundreds of processes)."""
    me = os.getpid()
    found = 0
    needle = b"\0" + marker.encode() + b"\0"
    pids = [int(n) for n in os.listdir("/proc") if n.isdigit()] if _PROC_ENVIRON else psutil.pids()
    for pid in pids:
        if pid != me and (_environ_has(pid, needle) if _PROC_ENVIRON else owned_by(pid, marker)):
            found += 1
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    return found


def owned_by(pid: int, marker: str) -> bool:
    """Whether pid still runs with our marker (`KEY=value`) in its environment, so killing it is safe.

    psutil reads the environment on every platform it supports; where /proc exists (Linux) the raw
    bytes are read straight from it instead, much faster than psutil's parsed dictionary."""
    if _PROC_ENVIRON:
        return _environ_has(pid, b"\0" + marker.encode() + b"\0")
    key, _, value = marker.partition("=")
    try:
        env = psutil.Process(pid).environ()
    except (psutil.Error, OSError):
        return False
    return env.get(key) == value


def _environ_has(pid: int, needle: bytes) -> bool:
    """Whether /proc/pid/environ holds needle (`\\0KEY=value\\0`: one whole entry); False when unreadable."""
    try:
        fd = os.open(f"/proc/{pid}/environ", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    chunks = [b"\0"]
    try:
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
    except OSError:
        return False
    finally:
        os.close(fd)
    chunks.append(b"\0")
    return needle in b"".join(chunks)


_PROC_ENVIRON = Path(f"/proc/{os.getpid()}/environ").is_file()


def process_group(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None
