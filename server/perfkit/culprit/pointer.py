"""How a commit moves one submodule pointer, and whether the local clone can tell.

A shallow or partial submodule clone answers ancestry and count questions wrongly without
failing, so every answer here is checked against the clone's shallow boundary first: an
uncertain move is reported as unknown with the command that fixes it, never as a number.
"""

from __future__ import annotations

from pathlib import Path

from perfkit.culprit.mentions import classify_mentions, message_ids
from perfkit.culprit.models import Direction, SubmoduleMove
from perfkit.culprit.objects import checkout_store, commits_in
from perfkit.errors import ToolFailure
from perfkit.repo import gitrepo


def submodule_store(repo: Path, path: str, name: str | None) -> Path | None:
    """The object store of the submodule: its checkout, else the superproject's modules folder."""
    found = checkout_store(repo / path)
    if found:
        return found
    try:
        common = Path(gitrepo.git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    except ToolFailure:
        return None
    for candidate in (common / "modules" / (name or path), common / "modules" / path):
        if (candidate / "HEAD").is_file() and gitrepo.git_ok(candidate, "rev-parse", "--git-dir"):
            return candidate
    return None


def shallow_cuts(store: Path, old: str, new: str) -> list[str]:
    """Shallow-boundary commits that lie between the two pointers (reachable from one, not the other).

    Below such a commit the local history is cut, so ancestry and counts across it are wrong.
    """
    shallow = store / "shallow"
    if not shallow.is_file():
        return []
    present = commits_in(store, shallow.read_text().split())
    return [b for b in present.values() if gitrepo.is_ancestor(store, b, old) != gitrepo.is_ancestor(store, b, new)]


def _order(store: Path, old: str, new: str) -> tuple[int, int]:
    """(commits only old reaches, commits only new reaches): (0, n) is forward, (n, 0) backward."""
    left, right = gitrepo.git(store, "rev-list", "--left-right", "--count", f"{old}...{new}").split()
    return int(left), int(right)


def first_parent_count(store: Path, frm: str, to: str) -> int:
    """Commits of frm..to on the first-parent line of to: what a bisect of the range tests."""
    return int(gitrepo.git(store, "rev-list", "--count", "--first-parent", f"{frm}..{to}").strip() or 0)


def submodule_move(
    repo: Path, path: str, name: str | None, message: str, old: str | None, new: str | None
) -> SubmoduleMove:
    """How the pointer at path moved from old (the parent's) to new (the commit's); None where there is none."""
    store = submodule_store(repo, path, name)
    ids = [h for h, _ in message_ids(message)]
    present = commits_in(store, [c for c in (old, new) if c] + ids) if store else {}
    missing = [c for c in (old, new) if c and c not in present]
    available = store is not None and not missing
    warnings: list[str] = []
    direction: Direction = "unknown"
    between: int | None = None
    first_parent: int | None = None
    merge_base: str | None = None
    complete = True
    hint: str | None = None
    if store is None:
        hint = f"git submodule update --init {path}"
        warnings.append(
            f"submodule '{path}' is not initialised in this checkout, so its commits cannot be "
            f"counted or ordered: run `{hint}`"
        )
    elif missing:
        hint = f"git -C {path} fetch origin " + " ".join(missing)
        warnings.append(
            f"{', '.join(m[:12] for m in missing)} not in the local clone of '{path}': run `{hint}` "
            f"(or `git -C {path} fetch --unshallow origin` for a shallow clone) to count and order them"
        )
    if old is None and new is not None:
        direction = "added"
    elif new is None and old is not None:
        direction = "removed"
    elif store is not None and available and old and new:
        cuts = shallow_cuts(store, old, new)
        if cuts:
            complete = False
            hint = f"git -C {path} fetch --unshallow origin"
            warnings.append(
                f"the clone of '{path}' is shallow and its history is cut between the pointers "
                f"(at {', '.join(c[:12] for c in cuts)}), so the direction and the commit count are "
                f"unknown: run `{hint}`"
            )
        else:
            only_old, only_new = _order(store, old, new)
            if not only_old:
                direction, between = "forward", only_new
                first_parent = first_parent_count(store, old, new)
            elif not only_new:
                direction, between = "backward", only_old
                first_parent = first_parent_count(store, new, old)
            else:
                direction, between = "sideways", only_new
                first_parent = first_parent_count(store, old, new)
                base = gitrepo.git(store, "merge-base", old, new, check=False).strip()
                merge_base = base or None
                warnings.append(
                    f"the new pointer is not a descendant of the old one: {between} commits of the new "
                    f"line are not in the old, and {only_old} commits of the old line are dropped"
                )
    trusted = store if available and complete else None
    mentions = classify_mentions(repo, trusted, message, old, new, {i: present[i] for i in ids if i in present})
    named = [m.id for m in mentions if m.relation in ("in_range", "before_range", "outside_range", "unknown")]
    flagged = [m for m in mentions if m.warns]
    if new and flagged:
        unknown = [m.id for m in flagged if m.relation == "unknown"]
        note = f" ({', '.join(unknown)} not found in the local submodule clone)" if unknown else ""
        warnings.append(f"the message names {', '.join(m.id for m in flagged)} but the pointer holds {new[:12]}{note}")
    return SubmoduleMove(
        path=path,
        name=name,
        old=old,
        new=new,
        direction=direction,
        commits_between=between,
        first_parent_commits=first_parent,
        merge_base=merge_base,
        objects_available=available,
        history_complete=complete,
        fetch_hint=hint,
        message_names=named,
        mentions=mentions,
        warnings=warnings,
    )
