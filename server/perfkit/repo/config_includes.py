"""Check what a repository's git config includes before any git process reads it.

git follows `include.path` and `includeIf.<condition>.path` into whatever they name, and blocks or
grows without limit on a FIFO, a device or /dev/zero: every git process perfkit starts in such a
repository would hang or eat memory, and no option tells git not to follow includes. So before the
first git process in a repository, this module walks the includes itself, through a reader that
opens without blocking, refuses anything but a regular file and reads at most MAX_CONFIG_BYTES of
each, and refuses the repository when one of them is not a plain file. git then reads only files
that were checked (a file swapped for a FIFO afterwards changes the stat key gitrepo caches on, and
every git process runs under a timeout besides).

Each config file's include keys are listed by git itself (`git config --file - --no-includes`, the
text on stdin), so quoting, continuations and sections are read exactly as git reads them. Every
include is checked whatever its condition: a condition that does not hold today may hold later.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

MAX_CONFIG_BYTES = 1 << 20  # a config file larger than this is not a config file
MAX_DEPTH = 10  # git's own limit on nested includes
MAX_FILES = 100  # config files read through includes, a loop's repeats counted
_INCLUDE_KEYS = r"^include(if\..*)?\.path$"


class UnsafeInclude(Exception):  # noqa: N818 - read as "the config has an unsafe include"
    """A config file, or a file it includes, that perfkit will not let git read."""


def read_regular(path: str, cap: int = MAX_CONFIG_BYTES) -> bytes | None:
    """The bytes of a regular file, None when it does not exist; UnsafeInclude for anything else.

    O_NONBLOCK makes opening a FIFO return at once; fstat on the open descriptor then decides, so
    nothing is read from a FIFO, socket or device, and a file over cap is refused unread.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    except OSError as exc:
        raise UnsafeInclude(f"'{path}' cannot be opened ({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeInclude(f"'{path}' is {_kind(st.st_mode)}, not a regular file")
        if st.st_size > cap:
            raise UnsafeInclude(f"'{path}' is {st.st_size:,} bytes, over the {cap:,} a config file may hold")
        chunks, size = [], 0
        while size <= cap:
            chunk = os.read(fd, min(1 << 16, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > cap:
            raise UnsafeInclude(f"'{path}' grew past the {cap:,} bytes a config file may hold")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def git_dirs(repo: str) -> tuple[str, str] | None:
    """(git dir, common dir) of a checkout, read from `.git` without git; None when there is none."""
    dot = os.path.join(repo, ".git")
    try:
        st = os.stat(dot)
    except OSError:
        return None
    if stat.S_ISDIR(st.st_mode):
        git_dir = dot
    else:
        text = read_regular(dot, 4096)
        if text is None or not text.startswith(b"gitdir:"):
            return None
        target = os.fsdecode(text[len(b"gitdir:") :].strip())
        git_dir = os.path.normpath(os.path.join(repo, target))
    common = read_regular(os.path.join(git_dir, "commondir"), 4096)
    common_dir = os.path.normpath(os.path.join(git_dir, os.fsdecode(common.strip()))) if common else git_dir
    return git_dir, common_dir


def _includes(text: bytes, env: dict[str, str]) -> list[str]:
    proc = subprocess.run(
        ["git", "config", "--file", "-", "--no-includes", "-z", "--get-regexp", _INCLUDE_KEYS],
        input=text,
        capture_output=True,
        env=env,
        cwd="/",
        timeout=30,
    )
    if proc.returncode not in (0, 1):  # 1: no include at all; anything else is git's parse error, reported later
        return []
    values = []
    for record in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
        _, _, value = record.partition("\n")
        if value:
            values.append(value)
    return values


def _resolve(value: str, including: str) -> str:
    if value.startswith("~/") or value == "~":
        return os.path.expanduser(value)
    if value.startswith("%(prefix)/"):
        return value  # relative to git's install prefix: not the repository's to choose
    return os.path.normpath(os.path.join(os.path.dirname(including), value))


# Files git opens by name in a git folder without checking what they are first: a FIFO at one of
# them blocks every git process there, as an include does.
_OPENED_BY_NAME = ("HEAD", "packed-refs", "shallow", "objects/info/alternates", "info/grafts", "info/attributes")


def _plain_or_absent(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return  # absent, or unreadable: git says so itself, without blocking
    try:
        mode = os.fstat(fd).st_mode
    finally:
        os.close(fd)
    if not stat.S_ISREG(mode):
        raise UnsafeInclude(f"'{path}' is {_kind(mode)}, not a regular file")


def check_repository(repo: str, env: dict[str, str]) -> list[str]:
    """Every config file git would read in repo, includes followed; UnsafeInclude for one that is unsafe."""
    dirs = git_dirs(repo)
    if dirs is None:
        return []
    git_dir, common_dir = dirs
    for folder in dict.fromkeys((git_dir, common_dir)):
        for name in _OPENED_BY_NAME:
            _plain_or_absent(os.path.join(folder, name))
    start = [os.path.join(common_dir, "config"), os.path.join(git_dir, "config.worktree")]
    seen: list[str] = []
    todo = [(path, 0, "") for path in dict.fromkeys(start)]
    while todo:
        path, depth, parent = todo.pop(0)
        if depth > MAX_DEPTH:
            raise UnsafeInclude(f"includes nest deeper than {MAX_DEPTH} levels (a loop?) at '{path}'")
        try:
            text = read_regular(path)
        except UnsafeInclude as exc:
            raise UnsafeInclude(f"{exc} (included from '{parent}')" if parent else str(exc)) from None
        if text is None:
            continue
        seen.append(path)
        if len(seen) > MAX_FILES:
            raise UnsafeInclude(f"includes name more than {MAX_FILES} files (at '{path}')")
        for value in _includes(text, env):
            todo.append((_resolve(value, path), depth + 1, path))
    return seen


def is_top_level(repo: Path) -> bool:
    """Whether repo holds its own `.git` (a folder or a gitdir file), as a checkout's top folder does."""
    return git_dirs(str(repo)) is not None
