"""Many object questions to one git process (`cat-file --batch-check`), and a git dir found without git.

Starting a git process costs more than answering a question about one object, so evaluate_culprit
asks each object store once for every commit it needs (the two pointers, the ids a message names)
instead of once per commit.
"""

from __future__ import annotations

from pathlib import Path

from perfkit.repo import gitrepo


def commits_in(store: Path, ids: list[str]) -> dict[str, str]:
    """Full sha of each id (a sha or a prefix) that names exactly one commit in store; others left out."""
    ids = list(dict.fromkeys(i for i in ids if i))
    if not ids:
        return {}
    out = gitrepo.git(
        store,
        "cat-file",
        "--batch-check=%(objectname) %(objecttype)",
        input="".join(f"{i}^{{commit}}\n" for i in ids),
        check=False,
    )
    found = {}
    for i, line in zip(ids, out.splitlines(), strict=False):
        parts = line.split()
        if len(parts) == 2 and parts[1] == "commit":
            found[i] = parts[0]
    return found


def checkout_store(checkout: Path) -> Path | None:
    """The object store (common git dir) of a checkout, read from its `.git` entry as git would.

    A submodule checkout's `.git` is a file naming its git dir ('gitdir: ...'); a linked worktree's
    git dir names the shared one in `commondir`.
    """
    dot = checkout / ".git"
    if dot.is_dir():
        gitdir = dot
    elif dot.is_file():
        text = dot.read_text(errors="replace").strip()
        if not text.startswith("gitdir:"):
            return None
        gitdir = (checkout / text[len("gitdir:") :].strip()).resolve()
    else:
        return None
    common_file = gitdir / "commondir"
    common = (gitdir / common_file.read_text().strip()).resolve() if common_file.is_file() else gitdir
    return common if (common / "objects").is_dir() else None
