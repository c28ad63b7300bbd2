"""Locate files inside a campaign folder without ever leaving it.

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

BENCHMARK = "benchmark.csv"
CANDIDATES = "records/candidates.jsonl"
LATEST_REPORT = "latest-report.md"
COMMITS = "commits"

_SHA = re.compile(r"^[0-9a-fA-F]{4,64}$")


def open_campaign(campaign_dir: str) -> Path:
    if not campaign_dir.strip():
        raise InputError("campaign_dir", "is empty", "pass the campaign folder, the one that holds benchmark.csv")
    limits.check_argument(campaign_dir, "campaign_dir", limits.MAX_PATH_CHARS)
    path = Path(campaign_dir).expanduser()
    if not path.exists():
        raise InputError(
            "campaign_dir",
            f"'{campaign_dir}' does not exist",
            "pass the campaign folder, the one that holds benchmark.csv",
        )
    if not path.is_dir():
        raise InputError(
            "campaign_dir",
            f"'{campaign_dir}' is a file, not a folder",
            "pass the campaign folder, the one that holds benchmark.csv",
        )
    return _resolve(path, "campaign_dir")


def _resolve(path: Path, field: str) -> Path:
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
    real = _resolve(full, field)
    if real != root and root not in real.parents:
        raise InputError(
            field,
            f"'{rel}' is a symbolic link that leads outside the campaign folder",
            "copy the file into the campaign folder instead of linking to it",
        )
    return full


def check_text_file(path: Path, field: str, limit: int, fix: str) -> None:
    """Refuse what is not a regular text file of at most limit bytes (a FIFO, a folder, a link loop, a
    binary or oversized file) before a reader loads it whole into memory; never blocks."""
    limits.check_regular_file(path, field, limit, fix)


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
