"""Result models for classify_changes and git_blame_removal."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from perfkit.base_model import Model
from perfkit.guards.list_caps import ListsCapped
from perfkit.guards.outside_text import RepoName, RepoSubject, quoted

ChangeKind = Literal["setting", "default", "source", "removal"]
KINDS: tuple[ChangeKind, ...] = ("setting", "default", "source", "removal")
RemovalShape = Literal["file", "function", "guard", "branch", "call", "import", "lines"]
FileRole = Literal["source", "recipe", "launcher", "config", "dependency", "test", "doc"]
FileStatus = Literal["added", "modified", "deleted", "renamed", "copied", "type_changed"]
NameRole = Literal["defined", "referenced"]


class _Model(Model):
    """Validators are built on first use, so starting perfkit for another tool does not pay for these."""

    model_config = ConfigDict(defer_build=True)


class Evidence(_Model):
    path: str
    line: int | None = Field(description="line number in the version named by `at`")
    at: Literal["removed", "added", "base", "head"] = Field(
        description="removed/added: a line of this hunk (old/new numbering); base/head: a line found in the "
        "repository at base or head"
    )
    text: str
    note: str = Field(description="what this line shows")


class HunkChange(_Model):
    kind: ChangeKind
    confidence: float = Field(description="0 to 1: how sure the rule that decided the kind is")
    reason: str = Field(description="the rule that decided the kind, in one sentence")
    old_start: int = Field(description="first removed line in the parent (for pure additions: the line before)")
    old_lines: int
    new_start: int = Field(description="first added line in the commit (for pure deletions: the line before)")
    new_lines: int
    removal: RemovalShape | None = Field(default=None, description="what a removal deletes")
    evidence: list[Evidence] = Field(default_factory=list)


class FileChanges(_Model):
    path: str = Field(description="path in the commit (for deleted files: in the parent)")
    old_path: str | None = Field(default=None, description="path in the parent when renamed or copied")
    status: FileStatus
    role: FileRole = Field(description="what the path and content say the file is")
    binary: bool = False
    submodule: bool = False
    similarity: int | None = Field(default=None, description="rename similarity in percent")
    kinds: list[ChangeKind] = Field(description="distinct kinds of this file's hunks")
    hunks: list[HunkChange]


class CommitChanges(_Model):
    sha: str
    short: str
    subject: RepoSubject
    author: RepoName
    date: str
    pr_number: int | None
    is_merge: bool = Field(description="a merge commit: its changes are diffed against its first parent")
    kinds: dict[str, int] = Field(description="hunk count per kind")
    files: list[FileChanges]


class MovedBlock(_Model):
    """Lines deleted in one place and added in another: a move, not a removal."""

    from_path: str
    from_start: int
    from_end: int
    to_path: str
    to_start: int
    to_end: int
    lines: int
    from_commit: str | None = Field(default=None, description="commit that deleted the lines (classify only)")
    to_commit: str | None = Field(default=None, description="commit that added them elsewhere (classify only)")


class ClassifyResult(_Model, ListsCapped):
    repo: str
    base: str
    head: str
    commits: list[CommitChanges] = Field(description="base..head on head's first-parent line, oldest first")
    totals: dict[str, int] = Field(description="hunk count per kind over the whole range")
    moved: list[MovedBlock] = Field(default_factory=list)
    recipe_globs: list[str] = Field(description="path patterns that marked recipes, launchers and configs")
    empty_range: bool = False
    incomplete_history: bool = Field(
        default=False,
        description="a commit of the range has no parent in this "
        "(shallow or grafted) clone and was diffed against an empty tree",
    )
    warnings: list[str] = Field(default_factory=list)

    def human(self) -> str:
        head = (
            f"{self.base[:12]}..{self.head[:12]}: {len(self.commits)} commits; "
            + ", ".join(f"{k} {self.totals.get(k, 0)}" for k in ("setting", "default", "source", "removal"))
            + " (a proposal: review each entry)"
        )
        lines = [head]
        for c in self.commits:
            pr = f" (PR #{c.pr_number})" if c.pr_number and f"#{c.pr_number}" not in c.subject else ""
            lines.append(f"{c.short} {quoted(c.subject)}{pr}{' [merge]' if c.is_merge else ''}")
            for f in c.files:
                name = f"{f.old_path} -> {f.path}" if f.old_path and f.old_path != f.path else f.path
                lines.append(f"  {name} ({f.role}, {f.status})")
                for h in f.hunks:
                    shape = f" {h.removal}" if h.removal else ""
                    lines.append(
                        f"    -{h.old_start},{h.old_lines} +{h.new_start},{h.new_lines}  "
                        f"{h.kind}{shape} {h.confidence:.2f}: {h.reason}"
                    )
                    for e in h.evidence[:4]:
                        lines.append(f"      {e.at} {e.path}:{e.line or '-'} {e.text.strip()[:90]}  [{e.note}]")
        for m in self.moved:
            lines.append(f"moved: {m.from_path}:{m.from_start}-{m.from_end} -> {m.to_path}:{m.to_start}-{m.to_end}")
        lines += [f"warning: {w}" for w in self.warnings]
        return "\n".join(lines)


class LineRange(_Model):
    path: str
    start: int
    end: int


class TouchedFile(_Model):
    path: str
    status: str = Field(description="git status letter in that commit: A, M, D, R, C, T")
    is_test: bool
    exists_at_head: bool


class IntroducingCommit(_Model):
    sha: str
    short: str
    subject: RepoSubject
    author: RepoName
    author_email: RepoName
    date: str
    pr_number: int | None
    pr_source: Literal["subject", "merge"] | None = Field(
        description="where the PR number came from: the commit's own message or the merge that brought it in"
    )
    merge_commit: str | None = Field(
        default=None,
        description="the first-parent merge at base that brought "
        "this commit in, when it was not committed on the main line",
    )
    boundary: bool = Field(
        default=False,
        description="a shallow-clone boundary: the lines may be older than this commit, whose own parents are missing",
    )
    lines: int = Field(description="removed lines it introduced")
    ranges: list[LineRange] = Field(description="those lines at base")
    other_files: list[TouchedFile] = Field(
        description="every file the commit touched besides those holding the removed lines"
    )
    tests: list[TouchedFile] = Field(description="every test file the commit touched (including a deleted one)")


class RemovedBlock(_Model):
    path: str = Field(description="path at base")
    head_path: str | None = Field(default=None, description="path at head when the file was renamed")
    start: int
    end: int
    shape: RemovalShape
    confidence: float
    text: list[str] = Field(description="the removed lines (at most 40)")
    commits: list[str] = Field(description="shas that introduced these lines")


class NameAtHead(_Model):
    name: str
    role: NameRole
    removed_at: list[str] = Field(description="path:line at base of the removed lines naming it")
    occurrences: int = Field(description="lines at head that still contain it as a word")
    where: list[str] = Field(description="up to 5 of those lines as path:line")


class SkippedFile(_Model):
    path: str
    reason: str


class BlameResult(_Model, ListsCapped):
    repo: str
    base: str
    head: str
    removals: list[RemovedBlock]
    commits: list[IntroducingCommit] = Field(description="grouped by introducing commit, most lines first")
    names: list[NameAtHead] = Field(description="names the removed lines define or call, still-used first")
    moved: list[MovedBlock] = Field(
        default_factory=list, description="deleted lines that reappear elsewhere: not blamed"
    )
    skipped: list[SkippedFile] = Field(default_factory=list)
    blame_calls: int = Field(description="git blame runs: one per file with removals")
    empty_range: bool = False
    incomplete_history: bool = False
    shallow_boundaries: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    def human(self) -> str:
        lines = [
            f"{self.base[:12]}..{self.head[:12]}: {len(self.removals)} removed blocks, "
            f"{len(self.commits)} introducing commits, {self.blame_calls} blame calls"
        ]
        for c in self.commits:
            pr = f" PR #{c.pr_number}" if c.pr_number else ""
            via = f" via merge {c.merge_commit[:12]}" if c.merge_commit else ""
            bnd = " [shallow boundary: lines may be older]" if c.boundary else ""
            lines.append(f"{c.short} {quoted(c.subject)}{pr}{via}{bnd}")
            lines.append(
                f"  {c.author}, {c.date}, {c.lines} lines: "
                + ", ".join(f"{r.path}:{r.start}-{r.end}" for r in c.ranges[:6])
            )
            for t in c.tests:
                lines.append(f"  test {t.path} ({'still at head' if t.exists_at_head else 'gone at head'})")
            others = [f.path for f in c.other_files if not f.is_test]
            if others:
                lines.append(f"  also touched: {', '.join(others[:8])}{' ...' if len(others) > 8 else ''}")
        used = [n for n in self.names if n.occurrences]
        if used:
            lines.append("still at head: " + ", ".join(f"{n.name} ({n.occurrences})" for n in used[:20]))
        for m in self.moved:
            lines.append(
                f"moved, not blamed: {m.from_path}:{m.from_start}-{m.from_end} -> {m.to_path}:{m.to_start}-{m.to_end}"
            )
        lines += [f"skipped {s.path}: {s.reason}" for s in self.skipped]
        lines += [f"warning: {w}" for w in self.warnings]
        return "\n".join(lines)
