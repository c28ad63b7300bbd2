"""The user's checkout, watched around every step: what a run command may have changed in it.

perfkit never writes the user's checkout, but the user's own commands run with the user's rights
and can (a `git commit` or `git stash drop` in a check script, a build that writes by absolute
path). Before and after each step perfkit takes a snapshot: HEAD (commit and branch), every ref,
the stash (its whole reflog, so dropping a deeper entry shows), the index (each entry's staged
mode and object, from `git status --porcelain=v2`), the submodule's HEAD, and the working tree's
status. A change to anything but the working tree stops the bisect with the evidence; a working
tree change is noted, as the user may have edited files while the step ran.

Cost per snapshot: `git status` (already run before), `git for-each-ref`, `git rev-parse` in the
submodule, and one small file read; docs/perf-bisect.md has the measured overhead.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from perfkit.errors import ToolFailure
from perfkit.repo import gitrepo


@dataclass(frozen=True)
class Snapshot:
    head: str  # "<oid> <branch>" from status --branch
    refs: dict[str, str]
    stash: str  # digest of the stash reflog
    index: dict[str, str]  # path -> its index side (status, mode, object)
    worktree: frozenset[str]  # status entries, as text
    submodule: str | None


def _git(repo: Path, *args: str) -> str | None:
    try:
        return gitrepo.git(repo, "--no-optional-locks", *args)
    except ToolFailure:
        return None


def _parse_status(out: str) -> tuple[str, dict[str, str], frozenset[str]]:
    """(HEAD, index side per path, every entry) from `status --porcelain=v2 -z --branch`."""
    head: list[str] = []
    index: dict[str, str] = {}
    entries: list[str] = []
    items = out.split("\0")
    skip_next = False
    for item in items:
        if skip_next:  # the original path of a rename
            skip_next = False
            continue
        if not item:
            continue
        if item.startswith("# branch.oid ") or item.startswith("# branch.head "):
            head.append(item.split(" ", 2)[2])
            continue
        if item.startswith("#"):
            continue
        entries.append(item)
        kind = item[0]
        if kind == "1":
            f = item.split(" ", 8)
            if len(f) == 9:
                index[f[8]] = f"{f[1][0]} {f[4]} {f[7]}"
        elif kind == "2":
            f = item.split(" ", 9)
            if len(f) == 10:
                index[f[9]] = f"{f[1][0]} {f[4]} {f[7]} {f[8]}"
            skip_next = True
        elif kind == "u":
            f = item.split(" ", 10)
            if len(f) == 11:
                index[f[10]] = " ".join(f[1:10])
    return " ".join(head), index, frozenset(entries)


def take(repo: Path, sub_path: str | None) -> Snapshot | None:
    """The user's checkout now; None when it cannot be read (moved, deleted: said elsewhere)."""
    out = _git(repo, "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=normal")
    refs_out = _git(repo, "for-each-ref", "--format=%(refname)%00%(objectname)")
    if out is None or refs_out is None:
        return None
    head, index, entries = _parse_status(out)
    refs = dict(line.split("\0", 1) for line in refs_out.splitlines() if "\0" in line)
    stash = _stash_log(repo)
    sub = None
    if sub_path and (repo / sub_path / ".git").exists():
        sub = (_git(repo / sub_path, "rev-parse", "HEAD") or "").strip() or None
    return Snapshot(head, refs, stash, index, entries, sub)


_COMMON: dict[Path, Path] = {}


def _stash_log(repo: Path) -> str:
    """A digest of the stash's reflog: every entry, so dropping one below the top shows too."""
    where = _COMMON.get(repo)
    if where is None:
        found = _git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir")
        if not found:
            return ""
        where = _COMMON[repo] = Path(found.strip())
    try:
        return hashlib.sha256((where / "logs" / "refs" / "stash").read_bytes()).hexdigest()
    except OSError:
        return "none"


def _short(v: str | None) -> str:
    return (v or "none")[:12]


def differences(before: Snapshot, after: Snapshot) -> tuple[list[str], list[str]]:
    """(changes that stop the bisect, working-tree paths that changed) between two snapshots."""
    stop: list[str] = []
    if before.head != after.head:
        stop.append(f"HEAD moved: {before.head or 'none'} -> {after.head or 'none'}")
    for name in sorted(set(before.refs) | set(after.refs)):
        old, new = before.refs.get(name), after.refs.get(name)
        if old != new and name != "refs/stash":
            stop.append(f"{name}: {_short(old)} -> {_short(new)}")
    if before.stash != after.stash or before.refs.get("refs/stash") != after.refs.get("refs/stash"):
        stop.append(
            f"the stash changed (refs/stash {_short(before.refs.get('refs/stash'))} -> "
            f"{_short(after.refs.get('refs/stash'))}; an entry was added, dropped or popped)"
        )
    staged = sorted(p for p in set(before.index) | set(after.index) if before.index.get(p) != after.index.get(p))
    if staged:
        stop.append("the index changed: " + _paths(staged))
    if before.submodule != after.submodule:
        stop.append(f"the submodule's HEAD moved: {_short(before.submodule)} -> {_short(after.submodule)}")
    changed = sorted(before.worktree ^ after.worktree)
    paths = sorted({_path_of(e) for e in changed})
    return stop, paths


def _path_of(entry: str) -> str:
    n = {"1": 8, "2": 9, "u": 10}.get(entry[:1])
    if n is None:
        return entry[2:]
    parts = entry.split(" ", n)
    return parts[n] if len(parts) > n else entry


def _paths(paths: list[str]) -> str:
    return ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")


def uncommitted(repo: Path) -> str | None:
    """A note for bisect_start when the checkout holds work no commit has: a bisect tests commits only."""
    out = _git(repo, "status", "--porcelain=v2", "-z", "--untracked-files=normal")
    if not out:
        return None
    _, _, entries = _parse_status(out)
    changed = sorted(_path_of(e) for e in entries if e[:1] in "12u")
    untracked = sorted(_path_of(e) for e in entries if e[:1] == "?")
    if not changed and not untracked:
        return None
    parts = []
    if changed:
        parts.append(f"{len(changed)} changed ({_paths(changed)})")
    if untracked:
        parts.append(f"{len(untracked)} untracked ({_paths(untracked)})")
    return (
        f"your checkout has uncommitted work: {'; '.join(parts)}. A bisect tests commits only, so these edits are "
        "in no step; commit them (and start again) if the check needs them. perfkit leaves them as they are"
    )
