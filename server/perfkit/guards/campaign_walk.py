"""List and walk folders of a campaign without ever leaving it.

A campaign folder may come from someone else, and any folder in it may be a link: `commits/`
linked to another folder put that folder's names into a PR draft, `verify/` linked to `/` made
lint walk the whole disk. Every listing and walk over campaign data goes through here: a folder is
entered only when it resolves inside the campaign, links are never followed into folders, an entry
whose link leads out is left out, only regular files are returned, and a walk stops at MAX_ENTRIES.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_ENTRIES = 50_000  # files and folders one walk looks at: a campaign's records are far fewer


def inside(root: Path, path: Path) -> bool:
    """Whether path, every link resolved, lies in root (root itself resolved)."""
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except (OSError, ValueError, RuntimeError):
        return False


def folders(root: Path, folder: Path) -> list[Path]:
    """The sub-folders of folder that are real folders inside the campaign, sorted; [] when folder is not one."""
    if not folder.is_dir() or not inside(root, folder):
        return []
    out = []
    for entry in sorted(folder.iterdir()):
        if entry.is_dir() and inside(root, entry):
            out.append(entry)
    return out


def files(root: Path, folder: Path, suffixes: set[str] | None = None) -> list[Path]:
    """Regular files under folder inside the campaign, in a stable order, links out left out."""
    if not folder.is_dir() or not inside(root, folder):
        return []
    base = root.resolve()
    out: list[Path] = []
    seen = 0
    for top, dirs, names in os.walk(folder, followlinks=False):
        dirs.sort()
        seen += len(dirs) + len(names)
        if seen > MAX_ENTRIES:
            break
        for name in sorted(names):
            path = Path(top) / name
            if suffixes is not None and path.suffix not in suffixes:
                continue
            try:
                real = path.resolve()
                real.relative_to(base)
                if stat.S_ISREG(os.stat(real).st_mode):
                    out.append(path)
            except (OSError, ValueError, RuntimeError):
                continue
    return out
