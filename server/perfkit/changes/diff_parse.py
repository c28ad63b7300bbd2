"""The one reader of `git diff -z` output, used by classify_changes, git_blame_removal and evaluate_culprit.

Paths come from the NUL-separated raw records (unambiguous for any file name, so no quoted patch
header is ever unquoted) and the hunks from the patch that follows them; git prints both in the
same order, so they are zipped. Numstat records and the `--stat` text, when asked for, sit
between the two and are read here too. Each hunk keeps its removed and added lines with their
numbers on both sides, whatever the context size: zero context (classification, blame) or three
lines (evaluate_culprit, whose hunks then group nearby changes as a reader sees them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.changes.models import FileStatus
from perfkit.errors import ToolFailure
from perfkit.repo import gitrepo

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_HUNK_RE = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NUMSTAT_RE = re.compile(r"(?:\d+|-)\t(?:\d+|-)\t")
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
    """One changed line: its number on its own side, and where it sits on the other side.

    For a removed line `at` is the number the next line of the new side has there; for an added
    line, the old line it replaces (the i-th added line of a run replaces the i-th removed one),
    or the old line it is inserted before."""

    no: int
    text: str
    at: int = 0


@dataclass
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    removed: list[DiffLine] = field(default_factory=list)
    added: list[DiffLine] = field(default_factory=list)

    def lines(self) -> Iterator[tuple[str, DiffLine]]:
        """The changed lines in the order the patch prints them: each run's removals before its additions."""
        r = a = 0
        while r < len(self.removed) or a < len(self.added):
            if a == len(self.added) or (r < len(self.removed) and self.removed[r].at <= self.added[a].no):
                yield "-", self.removed[r]
                r += 1
            else:
                yield "+", self.added[a]
                a += 1


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
    added: int | None = None  # from --numstat, when asked for; None for binary files and gitlinks
    deleted: int | None = None

    @property
    def submodule(self) -> bool:
        return "160000" in (self.old_mode, self.new_mode)

    @property
    def status_word(self) -> FileStatus:
        return _STATUS.get(self.status, "modified")


@dataclass
class ParsedDiff:
    files: list[FileDiff]
    stat_text: str = ""  # the `--stat` text as a person reads it, when asked for


def diff_commits(repo: Path, old: str, new: str) -> list[FileDiff]:
    """Every changed file between two commits with its zero-context hunks (renames followed)."""
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
    return read(out).files


def read(out: str) -> ParsedDiff:
    """Parse `git diff --raw [--numstat] [--stat] -p -z` output: files, their counts and hunks, the stat text."""
    files, pos = _parse_raw(out)
    pos = _parse_numstat(out, pos, {f.path: f for f in files})
    rest = out[pos:]
    if rest.lstrip("\0").startswith(("diff --git ", "diff --cc ")) or not rest.strip("\0"):
        stat_text, patch = "", rest.lstrip("\0")
    else:  # the --stat text ends where the first patch header follows a NUL (no file name holds one)
        cut = rest.find("\0diff --git ")
        stat_text, patch = (rest, "") if cut < 0 else (rest[:cut], rest[cut + 1 :])
    sections = _split_patch(patch)
    if len(sections) != len(files):
        raise ToolFailure(f"git diff printed {len(files)} files but {len(sections)} patches")
    for f, section in zip(files, sections, strict=True):
        _parse_section(f, section)
    return ParsedDiff(files, stat_text.strip("\0").rstrip())


def _field(out: str, pos: int) -> tuple[str, int]:
    end = out.index("\0", pos)
    return out[pos:end], end + 1


def _parse_raw(out: str) -> tuple[list[FileDiff], int]:
    files: list[FileDiff] = []
    pos = 0
    while pos < len(out) and out[pos] == ":":
        meta, pos = _field(out, pos)
        old_mode, new_mode, old_blob, new_blob, status = meta[1:].split()
        first, pos = _field(out, pos)
        letter = status[0]
        second = None
        if letter in "RC":
            second, pos = _field(out, pos)
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


def _parse_numstat(out: str, pos: int, by_path: dict[str, FileDiff]) -> int:
    """Numstat records ('added\\tdeleted\\tpath', or an empty path then the old and new names for a rename)."""
    while _NUMSTAT_RE.match(out, pos):
        rec, pos = _field(out, pos)
        a, d, path = rec.split("\t", 2)
        if not path:
            _, pos = _field(out, pos)
            path, pos = _field(out, pos)
        f = by_path.get(path)
        if f is not None and not f.submodule:
            f.added, f.deleted = (None if a == "-" else int(a)), (None if d == "-" else int(d))
    return pos


def _split_patch(patch: str) -> list[list[str]]:
    sections: list[list[str]] = []
    for line in patch.split("\n"):
        if line.startswith(("diff --git ", "diff --cc ")):
            sections.append([])
        elif sections:
            sections[-1].append(line)
    return sections


def _parse_section(f: FileDiff, lines: list[str]) -> None:
    """Hunks of one file's patch; a header line is only read where no hunk has lines left to give."""
    hunk: Hunk | None = None
    old_no = new_no = old_left = new_left = 0
    run_old = run_removed = run_added = 0
    for line in lines:
        if not (old_left or new_left):
            m = _HUNK_RE.match(line)
            if m:
                a, b, c, d = m.groups()
                hunk = Hunk(int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d))
                f.hunks.append(hunk)
                old_left, new_left = hunk.old_count, hunk.new_count
                # a zero count names the line before the (empty) range
                old_no = hunk.old_start if hunk.old_count else hunk.old_start + 1
                new_no = hunk.new_start if hunk.new_count else hunk.new_start + 1
                run_removed = run_added = 0
            elif hunk is None and (line.startswith("Binary files ") or line == "GIT binary patch"):
                f.binary = True
            continue
        sign = line[:1]
        if sign == "-" and old_left:
            if run_added:
                run_removed = run_added = 0
            if not run_removed:
                run_old = old_no
            hunk.removed.append(DiffLine(old_no, line[1:], new_no))  # type: ignore[union-attr]
            old_no, old_left, run_removed = old_no + 1, old_left - 1, run_removed + 1
        elif sign == "+" and new_left:
            at = run_old + min(run_added, run_removed - 1) if run_removed else old_no
            hunk.added.append(DiffLine(new_no, line[1:], max(at, 1)))  # type: ignore[union-attr]
            new_no, new_left, run_added = new_no + 1, new_left - 1, run_added + 1
        elif sign == " " and old_left and new_left:
            old_no, new_no, old_left, new_left = old_no + 1, new_no + 1, old_left - 1, new_left - 1
            run_removed = run_added = 0
