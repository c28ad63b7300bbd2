"""One process at a time works on a repository's bisect: the lock, and who holds it.

The lock file names its holder (pid, start time, host) and carries a kernel lock (flock) for as
long as the holder runs. The kernel lock is what decides: it cannot be left behind by a killed
process and cannot be seen half-taken, so a lock file that was just created and not yet written
is never taken as stale, and two processes that find the same stale file cannot both take it.
The owner record is only for people: status shows the pid working on the bisect, or that the
process which held it died.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil

from perfkit.bisect.state import confine, seal
from perfkit.errors import InputError, ToolFailure
from perfkit.guards import private_dirs
from perfkit.tools import cancel

Owner = dict[str, Any]


def _start_time(pid: int) -> str | None:
    """The start time of pid, so a recycled pid is not mistaken for the lock holder."""
    try:
        return f"{psutil.Process(pid).create_time():.2f}"
    except (psutil.Error, OSError):
        return None


def _me() -> Owner:
    return {
        "pid": os.getpid(),
        "start": _start_time(os.getpid()),
        "host": socket.gethostname(),
        "since": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _read(sdir: Path) -> Owner | None:
    """The owner record, read without following a link or blocking on a FIFO planted as the lock."""
    try:
        fd = os.open(sdir / "lock", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        info = json.loads(os.read(fd, 65536))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    return info if isinstance(info, dict) and isinstance(info.get("pid"), int) else None


def holder(sdir: Path) -> Owner | None:
    """The live process named by the lock, or None when the lock is free or its process is gone."""
    info = _read(sdir)
    if info is None:
        return None
    if info.get("host") != socket.gethostname():
        return info  # cannot tell from here: treat as held
    if not psutil.pid_exists(info["pid"]):
        return None
    start = _start_time(info["pid"])
    if info.get("start") and start and start != info["start"]:
        return None
    return info


def stale_holder(sdir: Path) -> Owner | None:
    """The lock record of a process that died holding it (kill -9, power loss), if any."""
    info = _read(sdir)
    return None if info is None or holder(sdir) is not None else info


def _refuse(sdir: Path) -> InputError:
    live: Owner | None = None
    for _ in range(20):  # the holder writes its record right after taking the kernel lock
        live = _read(sdir)
        if live is not None:
            break
        time.sleep(0.05)
    pid = live.get("pid") if live else None
    what = "this process" if pid == os.getpid() else f"pid {pid}" if pid else "another process"
    since = f", since {live.get('since')}" if live and live.get("since") else ""
    return InputError(
        "repo",
        f"another perfkit call ({what}{since}) is working on the bisect of this repository",
        "wait for it to finish, or stop that process; bisect_status shows its progress",
    )


def _open_lock(dfd: int, path: Path) -> int:
    """Open (or create) the lock file in perfkit's folder; a link or anything not a regular file found at
    its name is removed as such (it is perfkit's name, in perfkit's folder) and never written through."""
    for _ in range(5):
        try:
            fd = os.open("lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600, dir_fd=dfd)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.EWOULDBLOCK):
                raise
            fd = -1
        if fd >= 0 and stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink("lock", dir_fd=dfd)
        except IsADirectoryError:
            os.rmdir("lock", dir_fd=dfd)
        except FileNotFoundError:
            pass
    raise ToolFailure(f"could not take the bisect lock {path}: something keeps replacing it")


def _take(dfd: int, path: Path) -> int | None:
    """An fd holding the kernel lock on the file now at path, or None when another process holds it."""
    for _ in range(5):
        fd = _open_lock(dfd, path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        try:  # the file may have been removed by its previous holder between our open and our flock
            same = os.fstat(fd).st_ino == os.stat("lock", dir_fd=dfd, follow_symlinks=False).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)
    raise ToolFailure(f"could not take the bisect lock {path}: it keeps being replaced")


# Calls of this process that hold a bisect lock, by folder: a call that follows a cancelled one (a reset
# right after a cancelled bisect_run) waits for it to finish stopping instead of being refused.
_mine: dict[str, tuple[threading.Event, cancel.Token | None]] = {}
_mine_lock = threading.Lock()


def _wait_for_own_stopping_call(sdir: Path) -> None:
    with _mine_lock:
        held = _mine.get(str(sdir))
    if held is None:
        return
    released, token = held
    if token is None:
        return
    # A client sends the cancel before its next call, but the cancelled call's handler may set its token
    # a moment after this call starts: allow it that moment before refusing.
    deadline = time.monotonic() + 1.0
    while not token.is_set() and not released.is_set() and time.monotonic() < deadline:
        time.sleep(0.02)
    if not token.is_set():
        return
    while not released.wait(0.2):
        cancel.check()  # this call may be cancelled too


def _write_owner(fd: int, record: str) -> None:
    os.ftruncate(fd, 0)
    view = memoryview(record.encode())
    offset = 0
    while offset < len(view):
        offset += os.pwrite(fd, view[offset:], offset)
    os.fsync(fd)


@contextmanager
def locked(sdir: Path) -> Iterator[None]:
    """Hold the repository's bisect lock for the duration of one tool call."""
    seal.key_dir()  # a state folder setting that is refused (XDG_STATE_HOME a file) is said before anything is written
    if not confine.check_folder(sdir):
        try:
            private_dirs.make_dir(sdir)
        except OSError as exc:
            raise ToolFailure(f"cannot create the bisect folder {sdir}: {exc.strerror or exc}") from None
    path = sdir / "lock"
    _wait_for_own_stopping_call(sdir)
    try:
        dfd = os.open(sdir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        confine.check_folder(sdir)  # replaced by a link since: say so
        raise ToolFailure(f"cannot open the bisect folder {sdir}: {exc.strerror or exc}") from None
    try:
        try:
            fd = _take(dfd, path)
        except OSError as exc:
            raise ToolFailure(f"cannot create the bisect lock in {sdir}: {exc.strerror or exc}") from None
        if fd is None:
            raise _refuse(sdir)
        released = threading.Event()
        with _mine_lock:
            _mine[str(sdir)] = (released, cancel.current())
        try:
            try:
                _write_owner(fd, json.dumps(_me()))
            except OSError as exc:
                raise ToolFailure(f"cannot write the bisect lock in {sdir}: {exc.strerror or exc}") from None
            yield
        finally:
            try:  # a folder moved away with its repository keeps the lock: status there says "interrupted"
                here, opened = os.stat(sdir, follow_symlinks=False), os.fstat(dfd)
                if (here.st_dev, here.st_ino) == (opened.st_dev, opened.st_ino) and (
                    os.fstat(fd).st_ino == os.stat("lock", dir_fd=dfd, follow_symlinks=False).st_ino
                ):
                    os.unlink("lock", dir_fd=dfd)  # while still holding it, so nobody takes the file we remove
            except OSError:
                pass
            with _mine_lock:
                if _mine.get(str(sdir), (None,))[0] is released:
                    del _mine[str(sdir)]
            os.close(fd)
            released.set()
    finally:
        os.close(dfd)
