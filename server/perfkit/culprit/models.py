"""Result models for evaluate_culprit."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from perfkit.base_model import Model
from perfkit.guards.list_caps import ListsCapped
from perfkit.guards.outside_text import RepoMessage, RepoName, RepoSubject, quoted

CulpritKind = Literal[
    "submodule_bump",
    "submodule_rollback",
    "submodule_sideways",
    "submodule_added",
    "submodule_removed",
    "submodule_unresolved",
    "mixed",
    "source",
]
HighlightCategory = Literal[
    "dtype",
    "precision",
    "rounding",
    "decimal",
    "formatting",
    "tolerance",
    "accumulation",
    "math_kernel",
    "layout",
    "passes",
    "sync_removed",
]
ActionKind = Literal["bisect_submodule", "find_fix", "split_test", "read_highlights", "fetch_submodule"]
Direction = Literal["forward", "backward", "sideways", "added", "removed", "unknown"]
MentionRelation = Literal[
    "old_pointer", "new_pointer", "in_range", "before_range", "outside_range", "superproject", "unknown"
]


class FileChange(Model):
    path: str
    status: str = Field(description="git status letter: A added, M modified, D deleted, R renamed, T type change")
    added: int | None = Field(description="lines added; null for binary files and gitlinks")
    deleted: int | None = Field(description="lines deleted; null for binary files and gitlinks")
    is_submodule: bool = False


class Mention(Model):
    """One hex id the commit message names, placed relative to the pointer move."""

    id: str = Field(description="the id as written in the message")
    relation: MentionRelation = Field(
        description="old_pointer/new_pointer: a prefix of that pointer; in_range: a submodule commit between the "
        "two pointers; before_range: already contained in both; outside_range: a submodule commit neither "
        "pointer contains; superproject: a commit of the repository itself; unknown: found nowhere locally"
    )
    as_target: bool = Field(description="written where a message gives the destination ('to X', '-> X', '..X')")
    warns: bool = Field(description="whether this mention contradicts the pointer")


class SubmoduleMove(Model):
    path: str
    name: str | None = Field(description="submodule name from .gitmodules")
    old: str | None = Field(description="pointer at the culprit's first parent; null when the commit adds it")
    new: str | None = Field(description="pointer at the culprit; null when the commit removes it")
    direction: Direction
    commits_between: int | None = Field(
        description="all submodule commits from old to new (forward), dropped from new to old (backward), or "
        "new on the new side (sideways), merged branches included; null when the local clone cannot establish it"
    )
    first_parent_commits: int | None = Field(
        default=None,
        description="the same range counted along the first-parent line only: the commits a second-level "
        "bisect tests; null when the local clone cannot establish it",
    )
    merge_base: str | None = Field(default=None, description="common ancestor of old and new (sideways moves)")
    objects_available: bool = Field(description="whether both pointers exist in the local submodule clone")
    history_complete: bool = Field(
        default=True,
        description="false when a shallow clone cuts the history between the pointers, so "
        "direction and count cannot be trusted and are left unknown",
    )
    fetch_hint: str | None = Field(default=None, description="the command that makes the missing commits local")
    message_names: list[str] = Field(
        default_factory=list,
        description="hex ids the commit message names that look like submodule commits other than the two pointers",
    )
    mentions: list[Mention] = Field(default_factory=list, description="every hex id in the message, classified")
    warnings: list[str] = Field(default_factory=list)


class NextAction(Model):
    """What to run next to find where the regression really lives."""

    kind: ActionKind
    submodule: str | None = Field(default=None, description="path of the submodule the action works in")
    old: str | None = Field(default=None, description="submodule pointer before the culprit")
    new: str | None = Field(default=None, description="submodule pointer at the culprit")
    direction: str | None = None
    commits: int | None = Field(
        default=None,
        description="all submodule commits in the range to search, counted in "
        "the direction of the move (old..new forward, new..old for a rollback)",
    )
    first_parent_commits: int | None = Field(
        default=None, description="the commits of that range on its first-parent line: what the search tests"
    )
    range: str | None = Field(
        default=None, description="the git revision range of those commits, for `git -C <submodule> log`"
    )
    superproject_commit: str | None = Field(
        default=None,
        description="the superproject commit to hold while the action runs: the culprit for a "
        "level-2 bisect or find-fix search, its parent for a split test",
    )
    sentence: str


class Highlight(Model):
    """One diff hunk that plausibly moves numerical results."""

    file: str
    line: int = Field(description="line in the culprit's version of the file where the flagged change sits")
    old_line: int = Field(description="the same place in the parent's version")
    category: HighlightCategory = Field(description="the strongest reason the hunk was flagged")
    categories: list[HighlightCategory]
    kind: str = Field(description="what the strongest flagged line changes, for example 'working precision'")
    effect: str = Field(description="why a change of that kind can move numbers")
    change: str | None = Field(
        default=None,
        description="'old -> new' of the tokens that differ on the strongest line, when it replaces a line",
    )
    score: float = Field(description="higher is more likely to move precision; rules in docs/culprit.md")
    excerpt: str = Field(description="the flagged changed lines, prefixed '+' or '-'")
    why: list[str] = Field(description="the rules that fired, in words")


class PullRequestMention(Model):
    """A pull-request number the commit's subject or message names, and the repository it belongs to."""

    number: int
    repository: str = Field(
        description="'.' for the repository evaluated; the path of the submodule whose own commit "
        "messages (in the range the commit moves it over) hold the number; or 'unknown' when the message names "
        "it and a moved submodule's range cannot be read locally"
    )
    where: Literal["subject", "message"]


class MergedCommit(Model):
    """One commit a merge culprit brings in, with the hunks of its own diff most likely to move numbers."""

    commit: str
    short: str
    subject: RepoSubject
    author: RepoName
    date: str
    pr_number: int | None
    is_merge: bool = Field(
        default=False, description="a merge inside the merged branch (read against its first parent)"
    )
    stat: str = Field(description="the `git show --stat` summary line of this commit against its first parent")
    highlights: list[Highlight] = Field(default_factory=list)
    highlights_total: int = 0


class CulpritReport(ListsCapped):
    repo: str
    commit: str
    short: str
    subject: RepoSubject
    message: RepoMessage
    author: RepoName
    author_email: RepoName
    date: str
    pr_number: int | None = Field(
        description="this repository's pull request: the one the subject names (squash and merge commits put it "
        "there), else one the message names that no moved submodule's own commits name"
    )
    pr_mentions: list[PullRequestMention] = Field(
        default_factory=list, description="every pull-request number the subject and message name, by repository"
    )
    parents: list[str]
    stat: str = Field(description="the `git show --stat` summary line")
    stat_text: str = Field(default="", description="the `git show --stat` per-file listing")
    files: list[FileChange]
    kind: CulpritKind
    source_changed: bool = Field(
        default=False,
        description="whether the commit changes anything besides the pointer of the submodule under study",
    )
    submodule: SubmoduleMove | None = Field(description="the pointer move of the submodule under study, if any")
    other_submodules: list[SubmoduleMove] = Field(default_factory=list)
    next_action: NextAction
    highlights: list[Highlight] = Field(default_factory=list, description="flagged hunks, best first")
    highlights_total: int = Field(default=0, description="flagged hunks before the list was cut to its limit")
    merged: list[MergedCommit] = Field(
        default_factory=list,
        description="for a merge: the commits it brings in (reachable from its other parents, not from its "
        "first), oldest first, each with its own highlights; cut to the first 20",
    )
    merged_total: int = Field(default=0, description="how many commits the merge brings in, all of them counted")
    warnings: list[str] = Field(default_factory=list)

    def human(self) -> str:
        lines = [
            f"{self.short} {quoted(self.subject)}",
            f"  author  {self.author} <{self.author_email}>, {self.date}",
            f"  kind    {self.kind}",
            f"  stat    {self.stat}",
        ]
        if self.pr_number:
            lines.append(f"  PR      #{self.pr_number}")
        by_repo: dict[str, list[str]] = {}
        for pr in self.pr_mentions:
            if pr.repository != ".":
                by_repo.setdefault(pr.repository, []).append(f"#{pr.number}")
        for repo, numbers in by_repo.items():
            if repo == "unknown":
                lines.append(
                    f"  PR      {', '.join(numbers)}: named in the message; telling whose needs the submodule's history"
                )
            else:
                lines.append(
                    f"  PR      {', '.join(numbers)} of '{repo}': named in the message, held by '{repo}' commits "
                    "in the moved range"
                )
        if self.submodule:
            s = self.submodule
            between = (
                "" if s.commits_between is None else f" ({commit_count(s.commits_between, s.first_parent_commits)})"
            )
            lines.append(f"  {s.path}: {(s.old or '-')[:12]} -> {(s.new or '-')[:12]} {s.direction}{between}")
        lines.append(f"  next    {self.next_action.sentence}")
        lines += [f"  warning: {w}" for w in self.warnings]
        if self.highlights:
            lines.append(f"  highlights ({len(self.highlights)} of {self.highlights_total}):")
            lines += [ln for h in self.highlights for ln in highlight_lines(h, "    ")]
        if self.merged_total:
            shown = "" if len(self.merged) == self.merged_total else f", the first {len(self.merged)} shown"
            lines.append(
                f"  merges  {commit_count(self.merged_total)} (every commit its other parents bring in{shown}):"
            )
            for m in self.merged:
                merge = " (a merge, read against its first parent)" if m.is_merge else ""
                lines.append(f"    {m.short} {quoted(m.subject)}{merge}  {m.stat}")
                if not m.highlights:
                    lines.append("      no hunk matched the precision rules")
                lines += [ln for h in m.highlights for ln in highlight_lines(h, "      ")]
                if m.highlights_total > len(m.highlights):
                    lines.append(f"      ... {m.highlights_total - len(m.highlights)} more flagged hunks")
        return "\n".join(lines)


def commit_count(total: int, first_parent: int | None = None) -> str:
    """A commit count that says what it counts: every commit, and the first-parent line when known."""
    words = f"{total} commit{'s' if total != 1 else ''}"
    return words if first_parent is None else f"{words} in all, {first_parent} first-parent"


def highlight_lines(h: Highlight, indent: str) -> list[str]:
    """A highlight as text: where, what kind of change, why it can move numbers, the rules that fired."""
    change = f": {h.change}" if h.change else ""
    pad = indent + " " * 19
    return [
        f"{indent}{h.score:5.1f} {h.category:<12} {h.file}:{h.line}  {h.kind}{change}",
        f"{pad}can move numbers: {h.effect}",
        f"{pad}rules: {'; '.join(h.why)}",
    ]
