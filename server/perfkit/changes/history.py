"""Walk base's history once for every blamed file, and give each blame only the commits that touch its file.

Left alone, each `git blame` walks the whole history looking for the commits that change its
file: ten files on a 30,000-commit history cost ten walks. Here one `git log -- <files>` lists
the commits that touch any of them and what each one changes, and every file gets its own list
of commits, each with its parents rewritten to the nearest ancestors that change that file. `git
blame -S <list>` reads such a list instead of walking. The file's content is the same along every
rewritten link, so blame's answer does not change. The one thing the list cannot follow is an
old file name; the caller blames a file that crossed a rename again on the full history.
"""

from __future__ import annotations

from pathlib import Path

from perfkit.repo import gitrepo

MAX_CELLS = 2_000_000  # files x listed commits; above it one shared list serves every file


def _walk(repo: Path, base: str, paths: list[str]) -> tuple[list[str], dict[str, list[str]], dict[str, set[str]]]:
    """Commits touching any path (children before parents), their rewritten parents and touched paths."""
    out = gitrepo.git_paths(
        repo,
        "log",
        "--topo-order",
        "--parents",
        "--format=%x01%H %P",
        "--name-status",
        "--no-renames",
        "-z",
        base,
        "--",
        *paths,
        env={"GIT_LITERAL_PATHSPECS": "1"},
    )
    order: list[str] = []
    parents: dict[str, list[str]] = {}
    touched: dict[str, set[str]] = {}
    toks = out.split("\0")
    i, sha = 0, ""
    while i < len(toks):
        t = toks[i].lstrip("\n")
        if t.startswith("\x01"):
            sha, *ps = t[1:].split()
            order.append(sha)
            parents[sha] = ps
            touched[sha] = set()
        elif t and sha and i + 1 < len(toks):
            touched[sha].add(toks[i + 1])
            i += 1
        i += 1
    return order, parents, touched


def _merge_sides(
    repo: Path, merges: list[str], parents: dict[str, list[str]], paths: list[str]
) -> dict[str, list[set[str]]]:
    """For each merge, the paths it changes against each of its (rewritten) parents."""
    if not merges:
        return {}
    pairs = [(m, p) for m in merges for p in parents[m]]
    out = gitrepo.git_paths(
        repo,
        "diff-tree",
        "--stdin",
        "--always",
        "-r",
        "--name-only",
        "--no-renames",
        "-z",
        "--",
        *paths,
        input="".join(f"{m} {p}\n" for m, p in pairs),
        env={"GIT_LITERAL_PATHSPECS": "1"},
    )
    sides: dict[str, list[set[str]]] = {m: [] for m in merges}
    k = -1
    for t in out.split("\0"):
        t = t.strip("\n")
        if k + 1 < len(pairs) and t == pairs[k + 1][0]:
            k += 1
            sides[pairs[k][0]].append(set())
        elif t and k >= 0:
            sides[pairs[k][0]][-1].add(t)
    return sides


def write_histories(repo: Path, base: str, paths: list[str], folder: Path) -> dict[str, Path]:
    """One `git blame -S` list per path (or one shared list when that would be too large).

    A path's list holds base and the commits that change the path, each with its parents rewritten
    to the nearest earlier commits that change it, so blame never visits another commit.
    """
    order, parents, touched = _walk(repo, base, paths)
    if len(paths) * len(order) > MAX_CELLS:
        shared = folder / "history"
        shared.write_text("".join(f"{c} {' '.join(parents[c])}\n" for c in order))
        return {p: shared for p in paths}
    merges = [c for c in order if len(parents[c]) > 1]
    sides = _merge_sides(repo, merges, parents, paths)
    below_ones = {p for ps in parents.values() for p in ps}
    heads = [c for c in order if c not in below_ones]  # where a walk down from base enters the list
    oldest_first = order[::-1]
    empty: tuple[str, ...] = ()
    result = {}
    for n, path in enumerate(paths):
        near: dict[str, tuple[str, ...]] = {}  # commit -> nearest commits at or below it that change path
        lines = []
        base_below: tuple[str, ...] | None = None
        for c in oldest_first:
            ps = parents[c]
            if c in sides:
                same = [p for p, changed in zip(ps, sides[c], strict=False) if path not in changed]
                changes = not same
                links = ps if changes else same[:1]  # blame follows the first parent holding the same file
            else:
                changes = path in touched[c]
                links = ps
            if len(links) == 1:
                below = near.get(links[0], empty)
            elif not links:
                below = empty
            else:
                below = tuple(dict.fromkeys(x for p in links for x in near.get(p, empty)))
            if changes:
                lines.append(f"{c} {' '.join(below)}\n")
                near[c] = (c,)
            else:
                near[c] = below
            if c == base:
                base_below = below
        if base_below is None:  # base changes none of the paths: start from where its history enters
            base_below = tuple(dict.fromkeys(x for h in heads for x in near.get(h, empty)))
        if near.get(base) != (base,):  # base itself is listed unless it changes the path
            lines.append(f"{base} {' '.join(base_below)}\n")
        f = folder / f"history-{n}"
        f.write_text("".join(lines))
        result[path] = f
    return result
