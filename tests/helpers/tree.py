"""A folder tree as data, so a test can prove a tool wrote nothing (or only what it should)."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def tree(root: Path) -> dict[str, tuple]:
    """relative path -> (kind, link target or size, inode, mtime, ctime) for everything under root.

    Any write, even one that keeps the size, moves a file's mtime and ctime, so comparing them
    finds it without reading the contents (the trees hold git objects and sparse multi-GB files).
    """
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            rel = os.path.relpath(p, root)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", st.st_mode)
            else:
                out[rel] = ("file", st.st_size, st.st_mode, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
    return out


def changes(before: dict[str, tuple], after: dict[str, tuple]) -> list[str]:
    """What differs, one line per path: '+ added', '- removed', '~ changed'."""
    lines = [f"+ {k}" for k in sorted(after.keys() - before.keys())]
    lines += [f"- {k}" for k in sorted(before.keys() - after.keys())]
    lines += [f"~ {k}" for k in sorted(before.keys() & after.keys()) if before[k] != after[k]]
    return lines
