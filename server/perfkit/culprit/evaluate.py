"""Classify a culprit commit by how it moves the submodule pointer and what else it changes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

from pydantic import Field

from perfkit.culprit.after_bisect import from_bisect
from perfkit.culprit.commitdiff import commit_diff, empty_tree
from perfkit.culprit.highlights import rank, too_big
from perfkit.culprit.merged import merged_commits
from perfkit.culprit.models import CulpritKind, CulpritReport, FileChange, SubmoduleMove, commit_count
from perfkit.culprit.nextaction import next_action, reading
from perfkit.culprit.pointer import submodule_move
from perfkit.culprit.pull_requests import attribute
from perfkit.errors import InputError, ToolFailure
from perfkit.repo import gitrepo

_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _commit(repo: Path, rev: str) -> gitrepo.CommitInfo:
    """The commit rev names. A full sha (what the bisect passes) is read in one process; anything
    else, or a sha that is not a commit here, goes through resolve_commit's checks and messages."""
    if isinstance(rev, str) and _FULL_SHA.fullmatch(rev.strip()):
        try:
            return gitrepo.commit_info(repo, f"{rev.strip()}^{{commit}}")
        except (ToolFailure, ValueError):
            pass
    return gitrepo.commit_info(repo, gitrepo.resolve_commit(repo, rev, "commit"))


def _declared(repo: Path, commit: str, parent: str | None, files: list[FileChange]) -> dict[str, str]:
    """Submodules .gitmodules declares at the commit or its parent (the parent's read only if it differs)."""
    declared = gitrepo.submodule_paths(repo, commit)
    if parent and any(f.path == ".gitmodules" for f in files):
        declared |= gitrepo.submodule_paths(repo, parent)
    return declared


def _target(
    repo: Path, sha: str, parent: str | None, submodule: str | None, declared: dict[str, str], moved: list[str]
) -> str | None:
    """The moved submodule to study: the one asked for, else the only one moved."""
    if submodule is None:
        return moved[0] if len(moved) == 1 else None
    path = submodule.strip().strip("/")
    if path in moved or path in declared:
        return path if path in moved else None
    known = set(declared) | set(gitrepo.gitlinks(repo, sha))
    if parent:
        known |= set(gitrepo.gitlinks(repo, parent))
    if path not in known:
        raise InputError(
            "submodule",
            f"'{submodule}' is not a submodule at {sha[:12]} or its parent",
            f"use one of: {', '.join(sorted(known)) or 'none (this repository has no submodules)'}",
        )
    return None


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
    sideways, unresolved), the submodule range with its commit counts (all commits and first-parent), warnings
    when the message names another submodule commit than the pointer holds, which repository each PR number in
    the message belongs to, the next action (second-level bisect, find-fix search, split test, or read the
    diff), and the diff hunks most likely to move numbers (precision and rounding settings, decimal and fixed
    point, number formatting, tolerances, accumulation, math functions and flags, types), each with its kind and
    why it can move numbers. A merge is explained through the commits it brings in, each with its highlights.
    Reads the repository only; never checks anything out or fetches."""
    top = gitrepo.open_repo(repo)
    info = _commit(top, commit)
    sha = info.sha
    parent = info.parents[0] if info.parents else None
    base = parent or empty_tree(top)
    diff = commit_diff(top, base, sha)
    files, stat = diff.files, diff.stat
    declared = _declared(top, sha, parent, files)
    moved = [f.path for f in files if f.is_submodule]
    target = _target(top, sha, parent, submodule, declared, moved)
    moves = {p: submodule_move(top, p, declared.get(p), info.message, *diff.links[p]) for p in moved}
    main = moves.pop(target) if target else None
    warnings = list(main.warnings if main else [])
    if submodule is None and len(moved) > 1:
        warnings.append(f"the commit moves {len(moved)} submodules; pass submodule= to pick the one to study")
    kind, source_changed = _kind(files, main)
    big = [f.path for f in files if not f.is_submodule and too_big(f.added, f.deleted)]
    # a generated file's hunks cost seconds to scan and hold nothing a person wrote
    highlights, total = rank(diff.diffs, max_highlights, frozenset(big))
    if big:
        warnings.append(
            f"{len(big)} file(s) with more than 20000 changed lines were not scanned for highlights: "
            f"{', '.join(big[:5])}"
        )
    action = from_bisect(top, sha, reading(total, stat)) or next_action(kind, sha, parent, main, total, stat)
    merged, merged_total = merged_commits(top, sha, list(info.parents), max_highlights)
    if merged_total:
        action.sentence += (
            f" {sha[:12]} is a merge of {commit_count(merged_total)}: each is listed under merged with its own "
            "highlights, to tell which of them holds the change."
        )
    own_pr, pr_mentions = attribute(top, info.subject, info.message, [m for m in (main, *moves.values()) if m])
    report = CulpritReport(
        repo=str(top),
        commit=sha,
        short=sha[:12],
        subject=info.subject,
        message=info.message,
        author=info.author,
        author_email=info.author_email,
        date=info.date,
        pr_number=own_pr,
        pr_mentions=pr_mentions,
        parents=list(info.parents),
        stat=stat,
        stat_text=diff.stat_text,
        files=files,
        kind=kind,
        source_changed=source_changed,
        submodule=main,
        other_submodules=list(moves.values()),
        next_action=action,
        highlights=highlights,
        highlights_total=total,
        merged=merged,
        merged_total=merged_total,
        warnings=warnings,
    )
    return gitrepo.displayable(report)  # file names are read byte for byte; the answer leaves as text
