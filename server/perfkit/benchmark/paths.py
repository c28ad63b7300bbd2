"""Paths inside a campaign folder, and never outside it.

Names come from the user and from records (a sha, a report path), so each one is checked twice:
lexically (no absolute path, no `..`) and after resolving links (the real file must still be under
the folder). A campaign copied from elsewhere can hold a link to a stranger's file; we refuse it
rather than quote numbers from it.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from perfkit.errors import InputError
from perfkit.guards import limits

COMMITS = "commits"
_SHA = re.compile(r"^[0-9a-fA-F]{4,64}$")


def resolve(path: Path, field: str) -> Path:
    """path with every link followed; a loop of links is the caller's to fix, like any bad path."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):  # Python 3.11 raises RuntimeError on a loop
        raise InputError(
            field, f"'{path.name}' is a symbolic link that loops", "replace the link with the file"
        ) from None


def inside(root: Path, rel: str, field: str) -> Path:
    """The path of rel under root, refusing anything that would leave root."""
    limits.check_argument(rel, field, limits.MAX_PATH_CHARS)
    pure = PurePosixPath(rel.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or not pure.parts or "\0" in rel:
        raise InputError(field, f"'{rel}' is not a path inside the campaign folder", "use a relative path without '..'")
    full = root.joinpath(*pure.parts)
    real = resolve(full, field)
    if real != root and root not in real.parents:
        raise InputError(
            field,
            f"'{rel}' is a symbolic link that leads outside the campaign folder",
            "copy the file into the campaign folder instead of linking to it",
        )
    return full


def existing(root: Path, rel: str, field: str) -> Path | None:
    """Like inside(), but None when nothing is there."""
    path = inside(root, rel, field)
    return path if path.exists() else None


def relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def commit_dir(root: Path, sha: str, field: str) -> Path | None:
    """commits/<sha>/ for a recorded sha; the folder may be named by a longer or shorter prefix."""
    if not _SHA.match(sha):
        raise InputError(field, f"'{sha}' is not a commit sha", "record the hexadecimal sha of the commit")
    commits = existing(root, COMMITS, COMMITS)
    if commits is None or not commits.is_dir():
        return None
    exact = commits / sha
    if exact.is_dir():
        return inside(root, f"{COMMITS}/{sha}", field)
    low = sha.lower()
    for entry in sorted(commits.iterdir()):
        name = entry.name.lower()
        if _SHA.match(name) and (name.startswith(low) or low.startswith(name)) and entry.is_dir():
            return inside(root, f"{COMMITS}/{entry.name}", field)
    return None
