"""How a commit moves one submodule pointer, and whether the local clone can tell.

A shallow or partial submodule clone answers ancestry and count questions wrongly without
failing, so every answer here is checked against the clone's shallow boundary first: an
uncertain move is reported as unknown with the command that fixes it, never as a number.
"""

from __future__ import annotations

from pathlib import Path

from perfkit import gitrepo
from perfkit.culprit.mentions import classify_mentions
from perfkit.culprit.models import SubmoduleMove
from perfkit.errors import ToolFailure


def submodule_store(repo: Path, path: str, name: str | None) -> Path | None:
    """The object store of the submodule: its checkout, else the superproject's modules folder."""
    found = gitrepo.submodule_git_dir(repo, path)
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


def has_commit(store: Path | None, sha: str | None) -> bool:
    return bool(store and sha) and gitrepo.git_ok(store, "cat-file", "-e", f"{sha}^{{commit}}")


def shallow_cuts(store: Path, old: str, new: str) -> list[str]:
    """Shallow-boundary commits that lie between the two pointers (reachable from one, not the other).

    Below such a commit the local history is cut, so ancestry and counts across it are wrong.
    """
    shallow = Path(gitrepo.git(store, "rev-parse", "--path-format=absolute", "--git-path", "shallow").strip())
    if not shallow.is_file():
        return []
    cuts = []
    for b in shallow.read_text().split():
        if not gitrepo.git_ok(store, "cat-file", "-e", f"{b}^{{commit}}"):
            continue
        if gitrepo.is_ancestor(store, b, old) != gitrepo.is_ancestor(store, b, new):
            cuts.append(b)
    return cuts


def _count(store: Path, frm: str, to: str) -> int:
    return int(gitrepo.git(store, "rev-list", "--count", f"{frm}..{to}").strip())


def submodule_move(
    repo: Path, commit: str, parent: str | None, path: str, name: str | None, message: str
) -> SubmoduleMove:
    new = gitrepo.gitlinks(repo, commit).get(path)
    old = gitrepo.gitlinks(repo, parent).get(path) if parent else None
    store = submodule_store(repo, path, name)
    missing = [c for c in (old, new) if c and not has_commit(store, c)]
    available = store is not None and not missing
    warnings: list[str] = []
    direction = "unknown"
    between: int | None = None
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
    elif available and old and new:
        cuts = shallow_cuts(store, old, new)
        if cuts:
            complete = False
            hint = f"git -C {path} fetch --unshallow origin"
            warnings.append(
                f"the clone of '{path}' is shallow and its history is cut between the pointers "
                f"(at {', '.join(c[:12] for c in cuts)}), so the direction and the commit count are "
                f"unknown: run `{hint}`"
            )
        elif gitrepo.is_ancestor(store, old, new):
            direction, between = "forward", _count(store, old, new)
        elif gitrepo.is_ancestor(store, new, old):
            direction, between = "backward", _count(store, new, old)
        else:
            direction, between = "sideways", _count(store, old, new)
            base = gitrepo.git(store, "merge-base", old, new, check=False).strip()
            merge_base = base or None
            warnings.append(
                f"the new pointer is not a descendant of the old one: {between} commits of the new "
                f"line are not in the old, and {_count(store, new, old)} commits of the old line "
                f"are dropped"
            )
    trusted = store if available and complete else None
    mentions = classify_mentions(repo, trusted, message, old, new)
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
        direction=direction,  # type: ignore[arg-type]
        commits_between=between,
        merge_base=merge_base,
        objects_available=available,
        history_complete=complete,
        fetch_hint=hint,
        message_names=named,
        mentions=mentions,
        warnings=warnings,
    )
