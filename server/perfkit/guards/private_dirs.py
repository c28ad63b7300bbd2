"""Where perfkit keeps files of its own, per the XDG Base Directory spec, and with modes it sets itself.

The seal's key, the tool-list cache and the bisect's own folder (state, logs, lock, worktree parent,
verdict memory) are perfkit's, and some are secrets: the key proves a bisect state is the user's.

- XDG variables are read as the spec says: an empty or relative value is ignored (over MCP the
  current folder can be the user's checkout, and `XDG_STATE_HOME=state` would put the key there), and
  the default under the home folder is used. A value that names something other than a folder is
  refused where the folder matters (the key's: InputError naming the variable, with advice) and
  ignored where it only costs speed (the cache). A relative or missing HOME is replaced by the
  account's home from the password database.
- What perfkit creates gets the mode perfkit chooses, whatever the umask (a umask of 000 made the
  state folder, logs and worktree 0777 and state.json 0644): folders 0700, each missing parent
  included (`mkdir(parents=True)` would give those the umask's mode), files 0600.
"""

from __future__ import annotations

import logging
import os
import pwd
from pathlib import Path

from perfkit.errors import InputError

log = logging.getLogger("perfkit")

DIR_MODE = 0o700
FILE_MODE = 0o600
_DEFAULTS = {
    "XDG_STATE_HOME": (".local", "state"),
    "XDG_CACHE_HOME": (".cache",),
    "XDG_DATA_HOME": (".local", "share"),
    "XDG_CONFIG_HOME": (".config",),
}
_said: set[str] = set()


def home() -> Path:
    """The user's home: HOME when it is an absolute path, else the password database's entry."""
    value = os.environ.get("HOME", "")
    if os.path.isabs(value):
        return Path(value)
    return Path(pwd.getpwuid(os.getuid()).pw_dir)


def xdg_home(var: str, strict: bool) -> Path:
    """The base folder an XDG variable names, or its default under the home folder.

    strict: a value that exists and is not a folder is an InputError naming the variable; otherwise it
    is ignored like a relative one."""
    value = os.environ.get(var, "")
    default = home().joinpath(*_DEFAULTS[var])
    if not value:
        return default
    if not os.path.isabs(value):
        _say_once(var, f"{var}={value!r} is a relative path, which the XDG spec says to ignore; perfkit uses {default}")
        return default
    if os.path.exists(value) and not os.path.isdir(value):
        if strict:
            raise InputError(
                var,
                f"is {value}, which is not a folder; perfkit keeps its files in a folder there",
                f"set {var} to a folder of yours (an absolute path), or unset it to use {default}",
            )
        _say_once(var, f"{var}={value!r} is not a folder; perfkit uses {default}")
        return default
    return Path(value)


def _say_once(var: str, text: str) -> None:
    if var not in _said:
        _said.add(var)
        log.warning("%s", text)


def make_dir(path: Path, parents: bool = True) -> Path:
    """path as a folder; every folder this creates, missing parents included, is 0700 whatever the
    umask. Folders that exist keep their mode (they may be the user's, like ~/.local).

    parents=False creates path only: a missing parent raises FileNotFoundError instead of being made
    (a folder inside a repository that was moved or deleted must not bring the old path back)."""
    missing: list[Path] = []
    p = path
    while not os.path.lexists(p) and p != p.parent:
        missing.append(p)
        p = p.parent
    if not parents and len(missing) > 1:
        raise FileNotFoundError(2, "No such file or directory", str(path.parent))
    for folder in reversed(missing):
        try:
            os.mkdir(folder, DIR_MODE)
        except FileExistsError:
            continue  # made meanwhile by another process
        os.chmod(folder, DIR_MODE)  # mkdir's mode passes through the umask, which can only take bits away
    return path
