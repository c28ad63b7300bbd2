"""Everything evaluate_culprit reads from a commit's diff, from one git process.

git prints the formats it is asked for in a fixed order: raw records and numstat records (both
NUL-separated under -z), then the --stat text (whose last line is the shortstat), then the patch;
changes/diff_parse.py reads them all. One process instead of five is most of what makes
evaluate_culprit quick (bench/bench_culprit.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfkit.changes import diff_parse
from perfkit.changes.diff_parse import FileDiff
from perfkit.culprit.models import FileChange
from perfkit.repo import gitrepo

# the flags every diff evaluate_culprit reads shares: one parser, one shape of hunk
DIFF_FLAGS = ("--no-textconv", "--no-renames", "--no-abbrev", "--no-color", "--no-ext-diff", "-U3", "-z")


@dataclass(frozen=True)
class CommitDiff:
    files: list[FileChange]
    links: dict[str, tuple[str | None, str | None]]  # moved gitlink path -> (old, new); None where absent
    stat: str  # the shortstat line, or "no changes"
    stat_text: str  # `git diff --stat` as a person reads it
    diffs: list[FileDiff]  # the parsed patch, -U3; gitlinks and binary files carry no hunks to read


def commit_diff(repo: Path, base: str, commit: str) -> CommitDiff:
    out = gitrepo.git_paths(
        repo, "diff", *DIFF_FLAGS, "--raw", "--numstat", "--stat=100,70", "--stat-count=60", "-p", base, commit
    )
    parsed = diff_parse.read(out)
    files: list[FileChange] = []
    links: dict[str, tuple[str | None, str | None]] = {}
    for f in parsed.files:
        if f.submodule:
            links[f.path] = (
                f.old_blob if f.old_mode == "160000" else None,
                f.new_blob if f.new_mode == "160000" else None,
            )
        files.append(
            FileChange(path=f.path, status=f.status, added=f.added, deleted=f.deleted, is_submodule=f.submodule)
        )
    stat_text = parsed.stat_text
    stat = stat_text.splitlines()[-1].strip() if stat_text else "no changes"
    return CommitDiff(files, links, stat, stat_text, parsed.files)


def empty_tree(repo: Path) -> str:
    """The empty tree in the repository's hash (what a root commit is compared with)."""
    return gitrepo.git(repo, "hash-object", "-t", "tree", "/dev/null").strip()
