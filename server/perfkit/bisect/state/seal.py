"""A bisect state is trusted only if this user's perfkit wrote it, for this copy of the repository.

`.git/perfkit-bisect/state.json` names commands perfkit runs (install, run, the interpreter) and
folders it deletes, and a `.git` can arrive from elsewhere: a tarball, a shared disk, another
tool, a hand edit, a `cp -a` of a checkout in the middle of a bisect. So every state carries a
seal, an HMAC-SHA256 of its text under a key kept outside every repository, in the user's own
state folder (`$XDG_STATE_HOME/perfkit/bisect-state.key`, else `~/.local/state/perfkit/`), made on
first use, readable by the user alone. The state also records the identity of the git folder it
was written in (device and inode of the git common dir), so a copy is told apart from a move.

What it protects: a state planted or edited by anyone who cannot read the user's key (another
account, a repository handed over, an edit by hand or by another tool) is refused before anything
runs from it; a state copied with the repository (`cp -a`, rsync) is refused in the copy, so a
reset there never stops the original's processes or re-runs its commands.
What it does not protect: code already running as the user can read the key (it could run its
commands anyway); a repository moved to another filesystem looks like a copy (reset it there).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from perfkit.errors import ToolFailure
from perfkit.guards import private_dirs

KEY_NAME = "bisect-state.key"
_KEY_BYTES = 32


def key_dir() -> Path:
    """$XDG_STATE_HOME/perfkit when that is an absolute path (a relative one is ignored, as the XDG spec
    says: it would put the key under the current folder), else ~/.local/state/perfkit."""
    return private_dirs.xdg_home("XDG_STATE_HOME", strict=True) / "perfkit"


def _read_key(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ToolFailure(f"cannot read perfkit's key {path}: {exc.strerror or exc}; remove it") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            raise ToolFailure(
                f"perfkit's key {path} is not a private file of yours (mode {stat.filemode(info.st_mode)}); "
                "remove it and perfkit makes a new one (bisects in progress must then be reset)"
            )
        data = os.read(fd, _KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) != _KEY_BYTES:
        raise ToolFailure(f"perfkit's key {path} is damaged; remove it (bisects in progress must then be reset)")
    return data


def key() -> bytes:
    """The user's key, made on first use (O_EXCL: two processes making it at once agree on one)."""
    folder = key_dir()
    path = folder / KEY_NAME
    found = _read_key(path)
    if found is not None:
        return found
    try:
        private_dirs.make_dir(folder)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        again = _read_key(path)
        if again is None:
            raise ToolFailure(f"perfkit's key {path} keeps disappearing") from None
        return again
    except OSError as exc:
        raise ToolFailure(
            f"cannot make perfkit's key in {folder}: {exc.strerror or exc}; set XDG_STATE_HOME to a folder of yours"
        ) from None
    try:
        data = secrets.token_bytes(_KEY_BYTES)
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    return data


def mac(text: str) -> str:
    return hmac.new(key(), text.encode("utf-8"), hashlib.sha256).hexdigest()


def valid(text: str, seal: str) -> bool:
    return hmac.compare_digest(mac(text), seal)


def identity(git_dir: Path) -> str:
    """Which copy of a repository this is: a move keeps the git folder's inode, a copy gets a new one."""
    info = os.stat(git_dir)
    return f"{info.st_dev}:{info.st_ino}"
