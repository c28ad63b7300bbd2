"""Read `git diff` between two commits into files and zero-context hunks.

Paths come from the NUL-separated raw records (unambiguous for any file name) and the hunks
from the patch that follows them; git prints both in the same order, so they are zipped.
Zero context keeps every hunk to exactly the lines that changed, which is what classification
and blame need; renames are detected so a moved file is diffed against its old self.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.changes.models import FileStatus
from perfkit.errors import ToolFailure
from perfkit.repo import gitrepo

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_STATUS: dict[str, FileStatus] = {
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "type_changed",
}


@dataclass
class DiffLine:
    no: int
    text: str


@dataclass
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    removed: list[DiffLine] = field(default_factory=list)
    added: list[DiffLine] = field(default_factory=list)


@dataclass
class FileDiff:
    status: str
    path: str
    old_path: str
    old_mode: str
    new_mode: str
    old_blob: str
    new_blob: str
    similarity: int | None = None
    binary: bool = False
    hunks: list[Hunk] = field(default_factory=list)

    @property
    def submodule(self) -> bool:
        return "160000" in (self.old_mode, self.new_mode)

    @property
    def status_word(self) -> FileStatus:
        return _STATUS.get(self.status, "modified")


def diff_commits(repo: Path, old: str, new: str) -> list[FileDiff]:
    """Every changed file between two commits with its zero-context hunks."""
    out = gitrepo.git_paths(
        repo,
        "diff",
        "--raw",
        "-p",
        "-z",
        "-U0",
        "--inter-hunk-context=0",
        "-M",
        "--diff-algorithm=histogram",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--full-index",
        "--submodule=short",
        old,
        new,
        "--",
    )
    return parse(out)


def parse(out: str) -> list[FileDiff]:
    files, pos = _parse_raw(out)
    sections = _split_patch(out[pos:].lstrip("\0"))
    if len(sections) != len(files):
        raise ToolFailure(f"git diff printed {len(files)} files but {len(sections)} patches")
    for f, section in zip(files, sections, strict=True):
        _parse_section(f, section)
    return files


def _parse_raw(out: str) -> tuple[list[FileDiff], int]:
    files: list[FileDiff] = []
    pos = 0
    while pos < len(out) and out[pos] == ":":
        end = out.index("\0", pos)
        old_mode, new_mode, old_blob, new_blob, status = out[pos + 1 : end].split()
        pos = end + 1
        end = out.index("\0", pos)
        first = out[pos:end]
        pos = end + 1
        letter = status[0]
        second = None
        if letter in "RC":
            end = out.index("\0", pos)
            second = out[pos:end]
            pos = end + 1
        similarity = int(status[1:]) if letter in "RC" and status[1:].isdigit() else None
        files.append(
            FileDiff(
                status=letter,
                path=second or first,
                old_path=first,
                old_mode=old_mode,
                new_mode=new_mode,
                old_blob=old_blob,
                new_blob=new_blob,
                similarity=similarity,
            )
        )
    return files, pos


def _split_patch(patch: str) -> list[list[str]]:
    sections: list[list[str]] = []
    for line in patch.split("\n"):
        if line.startswith("diff --git ") or line.startswith("diff --cc "):
            sections.append([])
        elif sections:
            sections[-1].append(line)
    return sections


def _parse_section(f: FileDiff, lines: list[str]) -> None:
    hunk: Hunk | None = None
    old_no = new_no = 0
    for line in lines:
        if hunk is None or line.startswith("@@"):
            m = _HUNK_RE.match(line)
            if m:
                a, b, c, d = m.groups()
                hunk = Hunk(int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d))
                f.hunks.append(hunk)
                old_no, new_no = hunk.old_start, hunk.new_start
                continue
            if hunk is None:
                if line.startswith("Binary files ") or line == "GIT binary patch":
                    f.binary = True
                continue
        if line.startswith("-"):
            hunk.removed.append(DiffLine(old_no, line[1:]))
            old_no += 1
        elif line.startswith("+"):
            hunk.added.append(DiffLine(new_no, line[1:]))
            new_no += 1
        elif line.startswith(" "):
            old_no += 1
            new_no += 1
