"""The files a bisect's commands name, and their content: what decides a verdict besides the text.

`bash /home/me/check.sh` reads the same command text after check.sh changed; a verdict remembered
under the text alone would answer for a check that no longer exists. The commands are split as
the shell splits words (shlex; `VAR=/path` assignments and `--opt=/path` options count by their
value; a redirection target, `> log`, is written, not read, and is left out), and every word
that names an existing regular file outside the checkout under test is read: an absolute path,
`~/...`, or a path relative to an absolute `run_cwd`. Files inside the checkout need nothing,
since they come with the commit a verdict is keyed by.

Limits: files the named ones read in turn (a script sourcing another, a config it opens) are not
seen; nor is anything else of the machine (a driver, a firmware). bisect_reset forgets every
verdict.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import stat
from pathlib import Path

from perfkit.bisect.models import BisectSettings

_MAX_READ = 64 * 1024 * 1024  # larger files count by size and modification time
_MAX_FILES = 64


_WRITES = {">", ">>", ">|", "&>", "&>>", ">&"}  # what follows is written, not read: not a verdict's input


def _words(command: str) -> list[str]:
    """The words of a command that may name a file it reads (redirection targets it writes are left out)."""
    lex = shlex.shlex(command, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    lex.commenters = "#"
    try:
        tokens = list(lex)
    except ValueError:  # unbalanced quotes: the shell would refuse it too; split on blanks
        tokens = command.split()
    out: list[str] = []
    skip = False
    for w in tokens:
        if skip:
            skip = False
            continue
        if w in _WRITES or (w.endswith(">") and set(w) <= set("&>|")):
            skip = True
            continue
        out.append(w)
        if "=" in w:
            out.append(w.split("=", 1)[1])
    return out


def _candidates(settings: BisectSettings) -> list[Path]:
    found: list[Path] = []
    base = Path(settings.run_cwd) if settings.run_cwd and os.path.isabs(settings.run_cwd) else None
    for cmd in [settings.run, *settings.install, *settings.install_submodule]:
        for w in _words(cmd):
            if not w or "\0" in w or len(w) > 4096:
                continue
            p = Path(os.path.expanduser(w)) if w.startswith("~") else Path(w)
            if not p.is_absolute():
                if base is None or w.startswith("-"):
                    continue
                p = base / p
            if p not in found:
                found.append(p)
    return found


def named_paths(settings: BisectSettings) -> list[str]:
    """The regular files the commands name outside the checkout (no content read: for messages)."""
    return [str(p) for p in _candidates(settings) if p.is_file()][:_MAX_FILES]


def named_files(settings: BisectSettings) -> list[tuple[str, str]]:
    """(path, digest of its content) for each regular file the commands name outside the checkout."""
    out: list[tuple[str, str]] = []
    for p in _candidates(settings):
        if len(out) >= _MAX_FILES:
            break
        digest = _digest(p)
        if digest is not None:
            out.append((str(p), digest))
    return out


def _digest(p: Path) -> str | None:
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if info.st_size > _MAX_READ:
            return f"size={info.st_size} mtime={info.st_mtime_ns}"
        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
        return h.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)
