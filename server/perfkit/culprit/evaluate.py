"""Classify a culprit commit by how it moves the submodule pointer and what else it changes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

from pydantic import Field

from perfkit import gitrepo
from perfkit.culprit.models import CulpritKind, CulpritReport, FileChange, SubmoduleMove
from perfkit.errors import InputError

_HEX_RE = re.compile(r"\b[0-9a-f]{7,40}\b")


def _file_changes(repo: Path, commit: str, parent: str | None) -> tuple[list[FileChange], str]:
    base = parent or gitrepo.git(repo, "hash-object", "-t", "tree", "/dev/null").strip()
    names = gitrepo.git(repo, "diff", "--no-renames", "--raw", "-z", "--no-abbrev", base, commit)
    nums = gitrepo.git(repo, "diff", "--no-renames", "--numstat", "-z", base, commit)
    counts: dict[str, tuple[int | None, int | None]] = {}
    for rec in nums.split("\0"):
        if rec.count("\t") >= 2:
            a, d, path = rec.split("\t", 2)
            counts[path] = (None if a == "-" else int(a), None if d == "-" else int(d))
    files: list[FileChange] = []
    parts = names.split("\0")
    for meta, path in zip(parts[0::2], parts[1::2]):
        if not meta.startswith(":"):
            continue
        old_mode, new_mode, _, _, status = meta[1:].split()
        sub = "160000" in (old_mode, new_mode)
        a, d = counts.get(path, (None, None))
        files.append(FileChange(path=path, status=status[0], added=None if sub else a,
                                deleted=None if sub else d, is_submodule=sub))
    stat = gitrepo.git(repo, "diff", "--shortstat", base, commit).strip() or "no changes"
    return files, stat


def _named_ids(repo: Path, sub_git: Path | None, message: str, old: str | None, new: str | None) -> list[str]:
    """Hex ids in the message that look like submodule commits but are neither pointer.

    Ids that resolve to a superproject commit and not to a submodule one (a revert naming its
    target) are not submodule mentions.
    """
    out: list[str] = []
    for h in dict.fromkeys(_HEX_RE.findall(message)):
        if any(p and p.startswith(h) for p in (old, new)):
            continue
        in_sub = bool(sub_git) and gitrepo.git_ok(sub_git, "cat-file", "-e", f"{h}^{{commit}}")
        looks_like_sha = bool(re.search(r"[a-f]", h) and re.search(r"[0-9]", h))
        if not in_sub and (not looks_like_sha or gitrepo.git_ok(repo, "cat-file", "-e", f"{h}^{{commit}}")):
            continue
        out.append(h)
    return out


def _count(sub_git: Path, frm: str, to: str) -> int:
    return int(gitrepo.git(sub_git, "rev-list", "--count", f"{frm}..{to}").strip())


def _submodule_move(repo: Path, commit: str, parent: str | None, path: str, name: str | None,
                    message: str) -> SubmoduleMove:
    new = gitrepo.gitlinks(repo, commit).get(path)
    old = gitrepo.gitlinks(repo, parent).get(path) if parent else None
    sub_git = gitrepo.submodule_git_dir(repo, path)
    available = bool(sub_git) and all(gitrepo.git_ok(sub_git, "cat-file", "-e", f"{c}^{{commit}}")
                                      for c in (old, new) if c)
    warnings: list[str] = []
    direction: str = "unknown"
    between: int | None = None
    if old is None and new is not None:
        direction = "added"
    elif new is None and old is not None:
        direction = "removed"
    elif not available:
        warnings.append(f"submodule commits are not in the local clone of '{path}': run "
                        f"`git -C {path} fetch origin` (unshallow it with --unshallow) to count and order them")
    elif gitrepo.is_ancestor(sub_git, old, new):
        direction, between = "forward", _count(sub_git, old, new)
    elif gitrepo.is_ancestor(sub_git, new, old):
        direction, between = "backward", _count(sub_git, new, old)
    else:
        direction, between = "sideways", _count(sub_git, old, new)
        warnings.append(f"the new pointer is not a descendant of the old one: {between} commits of the new "
                        f"line are not in the old, and the old line's own commits are dropped")
    named = _named_ids(repo, sub_git if available else None, message, old, new)
    if new and named:
        missing = [h for h in named if not (sub_git and gitrepo.git_ok(sub_git, "cat-file", "-e", f"{h}^{{commit}}"))]
        note = f" ({', '.join(missing)} not found in the local submodule clone)" if missing else ""
        warnings.append(f"the message names {', '.join(named)} but the pointer holds {new[:12]}{note}")
    return SubmoduleMove(path=path, name=name, old=old, new=new, direction=direction,  # type: ignore[arg-type]
                         commits_between=between, objects_available=available,
                         message_names=named, warnings=warnings)


def _kind(files: list[FileChange], move: SubmoduleMove | None) -> CulpritKind:
    if move is None:
        return "source"
    others = [f for f in files if f.path != move.path]
    if others:
        return "mixed"
    return {"forward": "submodule_bump", "backward": "submodule_rollback"}.get(move.direction, "submodule_sideways")  # type: ignore[return-value]


def evaluate_culprit(
    repo: Annotated[str, Field(description="Path of the superproject checkout (for example the compiler repo).")],
    commit: Annotated[str, Field(description="The culprit commit: a sha, tag or branch name.")],
    submodule: Annotated[str | None, Field(
        description="Path of the submodule to study (for example 'runtime'). Default: the one submodule the "
        "commit moves, if exactly one.")] = None,
) -> CulpritReport:
    """Explain a culprit commit: its metadata, what it changes, and whether it is a submodule
    bump (pointer only, forward), a rollback (pointer moved to an ancestor), a mixed commit
    (pointer and source) or a source change. Reads the repository only; never checks anything out."""
    top = gitrepo.open_repo(repo)
    sha = gitrepo.resolve_commit(top, commit, "commit")
    info = gitrepo.commit_info(top, sha)
    parent = info.parents[0] if info.parents else None
    files, stat = _file_changes(top, sha, parent)
    declared = gitrepo.submodule_paths(top, sha) | (gitrepo.submodule_paths(top, parent) if parent else {})
    moved = [f.path for f in files if f.is_submodule]
    if submodule is not None:
        path = submodule.strip().strip("/")
        known = set(declared) | set(gitrepo.gitlinks(top, sha)) | (set(gitrepo.gitlinks(top, parent)) if parent else set())
        if path not in known:
            raise InputError("submodule", f"'{submodule}' is not a submodule at {sha[:12]} or its parent",
                             f"use one of: {', '.join(sorted(known)) or 'none (this repository has no submodules)'}")
        target = path if path in moved else None
    else:
        target = moved[0] if len(moved) == 1 else None
    moves = {p: _submodule_move(top, sha, parent, p, declared.get(p), info.message) for p in moved}
    main = moves.pop(target) if target else None
    warnings = list(main.warnings if main else [])
    if submodule is None and len(moved) > 1:
        warnings.append(f"the commit moves {len(moved)} submodules; pass submodule= to pick the one to study")
    kind = _kind(files, main)
    return CulpritReport(
        repo=str(top), commit=sha, short=sha[:12], subject=info.subject, message=info.message,
        author=info.author, author_email=info.author_email, date=info.date,
        pr_number=gitrepo.pr_number(info.subject) or gitrepo.pr_number(info.message),
        parents=list(info.parents), stat=stat, files=files, kind=kind, submodule=main,
        other_submodules=list(moves.values()), warnings=warnings)
