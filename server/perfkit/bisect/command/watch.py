"""The user's checkout, watched around every step: what a run command may have changed in it.

perfkit runs git only in its own worktree (every command there proved first: gitdir_proof), but the
user's own commands run with the user's rights and can write the checkout (a `git commit` or `git
stash drop` in a check script, a build that writes by absolute path). Before and after each step
perfkit takes a snapshot: HEAD (commit and branch), every ref, the stash (its whole reflog, so
dropping a deeper entry shows), the index (each staged entry's mode and object, from `git status
--porcelain=v2`), the submodule's HEAD, refs and stash the same way, and the working tree's status.
A change to anything but the working tree stops the bisect with the evidence, named as git names
it (`the stash of submodule runtime changed`); a working tree change is noted, as the user may have
edited files while the step ran.

Cost per snapshot: `git status` (already run before), `git for-each-ref`, `git show-ref --head` in
the submodule, and two small file reads, growing with the checkout. So each step first takes a
probe: the stat of the files git writes when HEAD, the stash or the index moves (HEAD, the index,
packed-refs, the stash's reflog) and the name and inode of every loose ref and reftable file (from
the folder listings), for the checkout and its submodule. git writes each of them through a lock
file renamed over the old one (a new inode) or by appending (a new size), so an unchanged probe
means none of them moved, and the snapshot of the step before stands without a git process. Working tree edits
leave no trace in the probe: they are compared (and noted) whenever a probe moved and when the
bisect leaves (`Engine.close`), for the steps run since the last full comparison.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.errors import ToolFailure
from perfkit.repo import config_includes, gitrepo


@dataclass(frozen=True)
class Snapshot:
    head: str  # "<oid> <branch>" from status --branch
    refs: dict[str, str]
    stash: str  # digest of the stash reflog
    index: dict[str, str]  # path -> its index side (status, mode, object)
    worktree: frozenset[str]  # status entries, as text
    submodule: str | None  # the submodule's HEAD
    sub_refs: dict[str, str] = field(default_factory=dict)
    sub_stash: str = ""  # digest of the submodule's stash reflog
    sub_name: str = "submodule"
    probe: tuple[tuple[str, int, int, int, int], ...] = ()  # see probe(): taken before the git commands


def _git(repo: Path, *args: str) -> str | None:
    try:
        return gitrepo.git(repo, "--no-optional-locks", *args)
    except (ToolFailure, gitrepo.RefusedGitmodules):
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
        if kind in "12" and item[2:3] == ".":  # nothing staged: its index entry is HEAD's, whatever the tree holds
            skip_next = kind == "2"
            continue
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


_REF_FILES = ("HEAD", "index", "packed-refs", "logs/refs/stash")


def probe(repo: Path, sub_path: str | None) -> tuple[tuple[str, int, int, int, int], ...]:
    """(path, inode, size, mtime, ctime) of every file git writes when HEAD, a ref, the stash or the index
    of the checkout or its submodule moves; a file that is missing counts as (path, 0, 0, 0, 0)."""
    out: list[tuple[str, int, int, int, int]] = []
    for where in (repo, repo / sub_path) if sub_path else (repo,):
        dirs = config_includes.git_dirs(str(where))
        if dirs is None:
            out.append((str(where), 0, 0, 0, 0))
            continue
        for folder in dict.fromkeys(dirs):  # the git folder and the common one (a linked worktree has both)
            for name in _REF_FILES:
                _stat(os.path.join(folder, name), out)
            for sub in ("refs", "reftable"):
                _walk(os.path.join(folder, sub), out)
    return tuple(out)


def _stat(path: str, out: list[tuple[str, int, int, int, int]]) -> os.stat_result | None:
    try:
        st = os.lstat(path)
    except OSError:
        out.append((path, 0, 0, 0, 0))
        return None
    out.append((path, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return st


def _walk(folder: str, out: list[tuple[str, int, int, int, int]]) -> None:
    """Every file under folder by name and inode, as the folder listing gives them (no stat per file: a
    checkout with thousands of loose refs stays cheap). git writes a loose ref or a reftable list to a
    lock file renamed over the old one, so a moved ref has a new inode; a new or deleted one a new name."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        out.append((folder, 0, 0, 0, 0))
        return
    for e in entries:
        if e.is_dir(follow_symlinks=False):
            _walk(e.path, out)
        else:
            out.append((e.path, e.inode(), -1, 0, 0))


def take(repo: Path, sub_path: str | None, unless: Snapshot | None = None) -> Snapshot | None:
    """The user's checkout now; None when it cannot be read (moved, deleted: said elsewhere).

    With `unless`, a snapshot whose probe still holds is returned as it is: nothing git writes for
    HEAD, refs, stash or index moved since (its working tree part is then as old as it is)."""
    seen = probe(repo, sub_path)
    if unless is not None and unless.probe == seen:
        return unless
    out = _git(repo, "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=normal")
    refs_out = _git(repo, "for-each-ref", "--format=%(refname)%00%(objectname)")
    if out is None or refs_out is None:
        return None
    head, index, entries = _parse_status(out)
    refs = dict(line.split("\0", 1) for line in refs_out.splitlines() if "\0" in line)
    stash = _stash_log(repo)
    if not sub_path or not (repo / sub_path / ".git").exists():
        return Snapshot(head, refs, stash, index, entries, None, probe=seen)
    sub = repo / sub_path
    shown = _git(sub, "show-ref", "--head") or ""  # HEAD and every ref in one process
    sub_refs = {name: oid for oid, _, name in (line.partition(" ") for line in shown.splitlines()) if name}
    sub_head = sub_refs.pop("HEAD", None)
    return Snapshot(head, refs, stash, index, entries, sub_head, sub_refs, _stash_log(sub), sub_path, seen)


_COMMON: dict[Path, Path] = {}


def _stash_log(repo: Path) -> str:
    """A digest of the stash's reflog: every entry, so dropping one below the top shows too."""
    where = _COMMON.get(repo)
    if where is None:
        dirs = config_includes.git_dirs(str(repo))  # `.git` read as git reads it: a submodule's names its folder
        if dirs is None:
            return ""
        where = _COMMON[repo] = Path(dirs[1])
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
    stop += _ref_changes(before.refs, after.refs, before.stash, after.stash, "")
    staged = sorted(p for p in set(before.index) | set(after.index) if before.index.get(p) != after.index.get(p))
    if staged:
        stop.append("the index changed: " + _paths(staged))
    if before.submodule != after.submodule:
        stop.append(
            f"the HEAD of submodule {after.sub_name} moved: {_short(before.submodule)} -> {_short(after.submodule)}"
        )
    elif before.submodule is not None and after.submodule is not None:  # both read: refs and stash compared too
        stop += _ref_changes(
            before.sub_refs, after.sub_refs, before.sub_stash, after.sub_stash, f" of submodule {after.sub_name}"
        )
    changed = sorted(before.worktree ^ after.worktree)
    paths = sorted({_path_of(e) for e in changed})
    return stop, paths


def _ref_changes(before: dict[str, str], after: dict[str, str], stash0: str, stash1: str, of: str) -> list[str]:
    """Refs that moved and a stash that changed, named the same way for the checkout and its submodule
    (`of` is "" or " of submodule <path>")."""
    out = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old != new and name != "refs/stash":
            out.append(f"{name}{of}: {_short(old)} -> {_short(new)}")
    if stash0 != stash1 or before.get("refs/stash") != after.get("refs/stash"):
        out.append(
            f"the stash{of} changed (refs/stash {_short(before.get('refs/stash'))} -> "
            f"{_short(after.get('refs/stash'))}; an entry was added, dropped or popped)"
        )
    return out


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
