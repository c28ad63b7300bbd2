"""Classify a culprit commit by how it moves the submodule pointer and what else it changes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field

from perfkit import gitrepo
from perfkit.culprit.highlights import commit_highlights, too_big
from perfkit.culprit.models import CulpritKind, CulpritReport, FileChange, SubmoduleMove
from perfkit.culprit.nextaction import next_action
from perfkit.culprit.pointer import submodule_move
from perfkit.errors import InputError


def _base(repo: Path, parent: str | None) -> str:
    return parent or gitrepo.git(repo, "hash-object", "-t", "tree", "/dev/null").strip()


def _file_changes(repo: Path, commit: str, base: str) -> tuple[list[FileChange], str, str]:
    names = gitrepo.git(repo, "diff", "--no-textconv", "--no-renames", "--raw", "-z", "--no-abbrev", base, commit)
    nums = gitrepo.git(repo, "diff", "--no-textconv", "--no-renames", "--numstat", "-z", base, commit)
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
        files.append(
            FileChange(
                path=path, status=status[0], added=None if sub else a, deleted=None if sub else d, is_submodule=sub
            )
        )
    stat = gitrepo.git(repo, "diff", "--no-textconv", "--shortstat", base, commit).strip() or "no changes"
    stat_text = gitrepo.git(
        repo, "diff", "--no-textconv", "--no-renames", "--stat=100,70", "--stat-count=60", base, commit
    ).rstrip()
    return files, stat, stat_text


def _kind(files: list[FileChange], move: SubmoduleMove | None) -> tuple[CulpritKind, bool]:
    """The kind, and whether anything besides the studied pointer changed.

    Any pointer move that comes with source changes is `mixed`, whatever its direction: the
    bisect engine runs the split test for exactly those commits.
    """
    if move is None:
        return "source", bool(files)
    source = any(f.path != move.path for f in files)
    if move.direction in ("added", "removed"):
        return ("submodule_added" if move.direction == "added" else "submodule_removed"), source
    if source:
        return "mixed", source
    by_direction: dict[str, CulpritKind] = {
        "forward": "submodule_bump",
        "backward": "submodule_rollback",
        "sideways": "submodule_sideways",
        "unknown": "submodule_unresolved",
    }
    return by_direction[move.direction], source


def evaluate_culprit(
    repo: Annotated[
        str,
        Field(
            description="Path of the repository checkout: the superproject (for example the "
            "compiler repo), or a submodule checkout to explain a second-level culprit."
        ),
    ],
    commit: Annotated[str, Field(description="The culprit commit: a sha, tag or branch name.")],
    submodule: Annotated[
        str | None,
        Field(
            description="Path of the submodule to study (for example 'runtime'). Default: the one submodule the "
            "commit moves, if exactly one."
        ),
    ] = None,
    max_highlights: Annotated[int, Field(ge=0, le=200, description="How many ranked diff highlights to return.")] = 15,
) -> CulpritReport:
    """Explain a culprit commit: metadata, full message, `git show --stat`, its kind (submodule bump: pointer
    only, forward; rollback: pointer only, moved to an ancestor; mixed: pointer and source; source; or added, removed,
    sideways, unresolved), the submodule range with its commit count, warnings when the message names another
    submodule commit than the pointer holds, the next action (second-level bisect, find-fix search, split test,
    or read the diff) and the diff hunks most likely to move precision, ranked and explained.
    Reads the repository only; never checks anything out or fetches."""
    top = gitrepo.open_repo(repo)
    sha = gitrepo.resolve_commit(top, commit, "commit")
    info = gitrepo.commit_info(top, sha)
    parent = info.parents[0] if info.parents else None
    base = _base(top, parent)
    files, stat, stat_text = _file_changes(top, sha, base)
    declared = gitrepo.submodule_paths(top, sha) | (gitrepo.submodule_paths(top, parent) if parent else {})
    moved = [f.path for f in files if f.is_submodule]
    if submodule is not None:
        path = submodule.strip().strip("/")
        known = set(declared) | set(gitrepo.gitlinks(top, sha))
        if parent:
            known |= set(gitrepo.gitlinks(top, parent))
        if path not in known:
            raise InputError(
                "submodule",
                f"'{submodule}' is not a submodule at {sha[:12]} or its parent",
                f"use one of: {', '.join(sorted(known)) or 'none (this repository has no submodules)'}",
            )
        target = path if path in moved else None
    else:
        target = moved[0] if len(moved) == 1 else None
    moves = {p: submodule_move(top, sha, parent, p, declared.get(p), info.message) for p in moved}
    main = moves.pop(target) if target else None
    warnings = list(main.warnings if main else [])
    if submodule is None and len(moved) > 1:
        warnings.append(f"the commit moves {len(moved)} submodules; pass submodule= to pick the one to study")
    kind, source_changed = _kind(files, main)
    big = [f.path for f in files if not f.is_submodule and too_big(f.added, f.deleted)]
    highlights, total = commit_highlights(top, base, sha, big, max_highlights)
    if big:
        warnings.append(
            f"{len(big)} file(s) with more than 20000 changed lines were not scanned for highlights: "
            f"{', '.join(big[:5])}"
        )
    action = next_action(kind, sha, parent, main, total, stat)
    return CulpritReport(
        repo=str(top),
        commit=sha,
        short=sha[:12],
        subject=info.subject,
        message=info.message,
        author=info.author,
        author_email=info.author_email,
        date=info.date,
        pr_number=gitrepo.pr_number(info.subject) or gitrepo.pr_number(info.message),
        parents=list(info.parents),
        stat=stat,
        stat_text=stat_text,
        files=files,
        kind=kind,
        source_changed=source_changed,
        submodule=main,
        other_submodules=list(moves.values()),
        next_action=action,
        highlights=highlights,
        highlights_total=total,
        warnings=warnings,
    )
