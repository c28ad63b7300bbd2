"""Which part of the superproject perfkit's worktree holds: `checkout_paths`, as git's cone patterns.

Writing a worktree of a large tree is most of what a bisect with a quick check costs (20,000 files:
seconds of the kernel creating files, then removing them at the end, where `git bisect run` in your
own checkout writes only what differs between two commits). A check that reads part of the tree can
name that part, and perfkit's worktree then holds those folders, the top-level files and the
submodule: git's cone-mode sparse checkout, what `git sparse-checkout set --cone` would write.

perfkit does not run `git sparse-checkout` (in a linked worktree it switches on
`extensions.worktreeConfig` in your repository's shared config). It writes the patterns into its
own worktree's admin folder (`info/sparse-checkout` is per worktree) and switches sparse checkout on
with `-c` for the checkouts it runs there, so your config is never written. Without checkout_paths
it switches sparse checkout off the same way, so a `core.sparseCheckout` in your config does not
leave perfkit's worktree half empty.

At bisect_start (settle): each path is made relative and plain, must be a folder at good or at bad,
and a file is taken as its folder; the submodule's path is added, and a relative run_cwd must be
inside. Given no checkout_paths, a checkout of yours that is itself a cone-mode sparse checkout
gives its folders, so the check sees what it sees in your checkout.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from perfkit.bisect.models import BisectSettings
from perfkit.errors import InputError
from perfkit.repo import gitrepo

FIELD = "checkout_paths"
FROM_YOUR_CHECKOUT = "your checkout's sparse-checkout"
_GLOB = str.maketrans({c: "\\" + c for c in "\\*?["})


def patterns(paths: list[str]) -> str:
    """The cone patterns of `paths` (folders relative to the top, none inside another), as git writes
    them: every top-level file, then each parent with its files but not its other folders, then each
    folder whole."""
    parents = sorted({a for p in paths for a in _ancestors(posixpath.dirname(p))})
    lines = ["/*", "!/*/"]
    for parent in parents:
        esc = parent.translate(_GLOB)
        lines += [f"/{esc}/", f"!/{esc}/*/"]
    lines += [f"/{p.translate(_GLOB)}/" for p in sorted(paths)]
    return "\n".join(lines) + "\n"


def _ancestors(path: str) -> list[str]:
    """path and each folder above it, top excluded: a/b/c -> a/b/c, a/b, a."""
    out = []
    while path:
        out.append(path)
        path = posixpath.dirname(path)
    return out


def git_flags(paths: list[str] | None) -> tuple[str, ...]:
    """The `-c` settings a checkout in perfkit's worktree runs with: sparse with paths, whole without."""
    if paths is None:
        return ("-c", "core.sparseCheckout=false")
    # the sparse index keeps one entry per folder left out, so a step's checkout reads and writes an
    # index the size of the cone, not of the tree (a git that needs the full index expands it itself)
    return ("-c", "core.sparseCheckout=true", "-c", "core.sparseCheckoutCone=true", "-c", "index.sparse=true")


def settle(top: Path, settings: BisectSettings, good: str, bad: str, notes: list[str]) -> None:
    """Check and plain the checkout_paths of a new bisect in place (InputError naming the field), or take
    your checkout's cone folders when none were given; say in notes what the worktree will hold."""
    given = settings.checkout_paths
    inherited = given is None
    if given is None:
        given = _your_cone(top, notes)
        if given is None:
            return
    plain = [_plain(p) for p in given]
    kinds = _kinds(top, [good, bad], plain)
    folders: list[str] = []
    for raw, path in zip(given, plain, strict=True):
        kind = kinds[path]
        if kind is None and inherited:  # yours, not asked for: a folder the range does not have is left out
            notes.append(f"your sparse checkout's folder '{raw}' is not at good or at bad: left out of the worktree")
            continue
        if kind is None:
            raise InputError(
                FIELD,
                f"'{raw}' is neither a folder nor a file at good or at bad",
                "name folders of the superproject relative to its top (`git ls-tree -d --name-only HEAD` lists "
                "the top ones), or leave checkout_paths out for the whole tree",
            )
        if kind == "blob":
            path = posixpath.dirname(path)
            if not path:
                continue  # a top-level file: always there
        folders.append(path)
    if inherited:
        if not folders:
            return  # none of your folders is in the range: the whole tree
        settings.sources[FIELD] = FROM_YOUR_CHECKOUT
    if settings.submodule:
        folders.append(settings.submodule)
    kept = _outermost(folders)
    if settings.run_cwd is not None and not posixpath.isabs(settings.run_cwd):
        cwd = posixpath.normpath(settings.run_cwd)
        if not any(cwd == f or cwd.startswith(f + "/") for f in kept):
            raise InputError(
                FIELD,
                f"run_cwd '{settings.run_cwd}' is not inside any of the checkout paths ({', '.join(kept)})",
                "add run_cwd's folder to checkout_paths",
            )
    settings.checkout_paths = kept
    shown = ", ".join(kept) if kept else "no folder"
    notes.append(
        f"perfkit's worktree holds only {shown} and the top-level files ({FIELD} from "
        f"{settings.sources.get(FIELD, 'argument')}); a check that reads elsewhere will not find it"
    )


def _plain(raw: str) -> str:
    """A path relative to the top, without ./, // or a trailing /; InputError for one that leaves the tree."""
    if "\n" in raw or "\r" in raw:  # a NUL was refused with the other settings (settings.merge)
        raise InputError(FIELD, f"{raw!r} holds a line break", "name each folder on its own")
    if posixpath.isabs(raw):
        raise InputError(FIELD, f"'{raw}' is absolute", "name folders relative to the superproject's top")
    path = posixpath.normpath(raw.strip())
    if path == ".":
        raise InputError(FIELD, f"'{raw}' is the whole tree", "leave checkout_paths out for the whole tree")
    if path == ".." or path.startswith("../"):
        raise InputError(FIELD, f"'{raw}' leads out of the repository", "name folders inside the superproject")
    return path


def _kinds(top: Path, commits: list[str], paths: list[str]) -> dict[str, str | None]:
    """Each path's object type ("tree", "blob", ...) at the first of commits that has it; None: at none."""
    lines = "".join(f"{c}:{p}\n" for p in paths for c in commits)
    out = gitrepo.git(top, "cat-file", "--batch-check=%(objecttype)", input=lines).splitlines()
    kinds: dict[str, str | None] = {}
    for i, path in enumerate(paths):
        found = [w for w in out[i * len(commits) : (i + 1) * len(commits)] if not w.endswith("missing")]
        kinds[path] = "tree" if "tree" in found else found[0] if found else None
    return kinds


def _outermost(folders: list[str]) -> list[str]:
    """The folders, each once, none inside another, sorted."""
    kept: list[str] = []
    for f in sorted(set(folders)):
        if not any(f.startswith(k + "/") for k in kept):
            kept.append(f)
    return kept


def _your_cone(top: Path, notes: list[str]) -> list[str] | None:
    """The folders of your checkout's cone-mode sparse checkout; None when it has none."""
    if gitrepo.git(top, "config", "--type=bool", "--default=false", "core.sparseCheckout").strip() != "true":
        return None
    if gitrepo.git(top, "config", "--type=bool", "--default=false", "core.sparseCheckoutCone").strip() != "true":
        notes.append(
            "your checkout is a sparse checkout with non-cone patterns: perfkit's worktree holds the whole tree "
            "(pass checkout_paths to limit it)"
        )
        return None
    folders = gitrepo.git(top, "-c", "core.quotePath=false", "sparse-checkout", "list").splitlines()
    return [f for f in folders if f.strip()] or None
