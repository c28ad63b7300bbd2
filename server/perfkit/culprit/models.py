"""Result models for evaluate_culprit."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

CulpritKind = Literal["submodule_bump", "submodule_rollback", "submodule_sideways", "mixed", "source"]


class FileChange(BaseModel):
    path: str
    status: str = Field(description="git status letter: A added, M modified, D deleted, R renamed, T type change")
    added: int | None = Field(description="lines added; null for binary files and gitlinks")
    deleted: int | None = Field(description="lines deleted; null for binary files and gitlinks")
    is_submodule: bool = False


class SubmoduleMove(BaseModel):
    path: str
    name: str | None = Field(description="submodule name from .gitmodules")
    old: str | None = Field(description="pointer at the culprit's first parent; null when the commit adds it")
    new: str | None = Field(description="pointer at the culprit; null when the commit removes it")
    direction: Literal["forward", "backward", "sideways", "added", "removed", "unknown"]
    commits_between: int | None = Field(
        description="submodule commits from old to new (forward) or dropped from new to old (backward); "
        "null when the submodule objects are not in the local clone")
    objects_available: bool = Field(description="whether both pointers exist in the local submodule clone")
    message_names: list[str] = Field(default_factory=list,
                                     description="hex ids the commit message names that look like submodule commits")
    warnings: list[str] = Field(default_factory=list)


class CulpritReport(BaseModel):
    repo: str
    commit: str
    short: str
    subject: str
    message: str
    author: str
    author_email: str
    date: str
    pr_number: int | None
    parents: list[str]
    stat: str = Field(description="the `git show --stat` summary line")
    files: list[FileChange]
    kind: CulpritKind
    submodule: SubmoduleMove | None = Field(description="the pointer move of the submodule under study, if any")
    other_submodules: list[SubmoduleMove] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    def human(self) -> str:
        lines = [f"{self.short} {self.subject}", f"  author  {self.author} <{self.author_email}>, {self.date}",
                 f"  kind    {self.kind}", f"  stat    {self.stat}"]
        if self.pr_number:
            lines.append(f"  PR      #{self.pr_number}")
        if self.submodule:
            s = self.submodule
            between = "" if s.commits_between is None else f" ({s.commits_between} commits)"
            lines.append(f"  {s.path}: {(s.old or '-')[:12]} -> {(s.new or '-')[:12]} {s.direction}{between}")
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)
