"""perfkit deletes, moves and creates only inside its own folder, and follows no link to get there.

The bisect folder (`<git common dir>/perfkit-bisect`) and everything under it may have been
replaced by links (a copied `.git`, a hand edit, another tool). Every delete checks that what it
removes resolves inside the folder it belongs to; a link found there is removed as a link, never
followed; the folder itself is refused when it is a link or not a folder.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from perfkit.errors import ToolFailure


class NotOurs(ToolFailure):
    """A path perfkit was about to delete or use is not inside its own folder."""


def within(root: Path, path: Path) -> bool:
    """Whether path, every link in it followed, lies inside root (root itself included)."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):
        return False


def check_folder(sdir: Path) -> bool:
    """Whether perfkit's folder exists; refuses one that is a link or not a folder."""
    try:
        info = os.lstat(sdir)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(info.st_mode):
        raise NotOurs(
            f"the bisect folder {sdir} is a link (to {os.readlink(sdir)}); perfkit never follows it. "
            "bisect_reset removes the link, and nothing it points to"
        )
    if not stat.S_ISDIR(info.st_mode):
        raise NotOurs(f"cannot create the bisect folder {sdir}: a file that is not a folder is in the way; remove it")
    return True


def remove(root: Path, path: Path) -> None:
    """Remove path (a tree, a file or a link as a link) if it lies inside root; refuse otherwise."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if path.name in ("", ".", "..") or not within(root, path.parent):
        raise NotOurs(f"refusing to delete {path}: it is not inside perfkit's folder {root}")
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        path.unlink(missing_ok=True)
        return
    if not within(root, path):
        raise NotOurs(f"refusing to delete {path}: it is not inside perfkit's folder {root}")
    shutil.rmtree(path, ignore_errors=True)


def remove_quietly(root: Path, path: Path) -> None:
    """remove(), for clean-up paths that must go on: a refusal is skipped, never followed."""
    try:
        remove(root, path)
    except (NotOurs, OSError):
        pass
