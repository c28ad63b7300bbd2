"""Result models for triage_builds."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from perfkit.base_model import Model
from perfkit.guards.list_caps import ListsCapped


class FileDiff(Model):
    subdir: str
    path: str = Field(description="path inside the subdir")
    changed_lines: int = Field(description="lines removed plus lines added, after normalisation")
    diff: str = Field(
        description="unified diff (good -> bad) of the original text, hunks that differ after normalisation only"
    )
    truncated: bool = Field(description="whether the diff was cut to the line limit")


class SubdirTriage(Model):
    name: str
    in_good: bool = Field(description="whether the subdir exists in the good build")
    in_bad: bool = Field(description="whether the subdir exists in the bad build")
    compared: int = Field(description="text files present on both sides")
    identical: int = Field(description="text files byte for byte equal")
    differ: list[str] = Field(description="text files whose content differs after normalisation")
    added: list[str] = Field(description="text files only in the bad build")
    missing: list[str] = Field(description="text files only in the good build")
    timestamp_only: list[str] = Field(description="text files that differ only in dates, times, build ids or hashes")
    binary_differ: list[str] = Field(description="binary files (ignored for the reading) whose bytes differ")
    binary_added: list[str] = Field(default_factory=list, description="binary files only in the bad build")
    binary_missing: list[str] = Field(default_factory=list, description="binary files only in the good build")
    binary_identical: int = 0


class TriageReport(ListsCapped):
    good_dir: str
    bad_dir: str
    subdirs: list[SubdirTriage]
    generated_code_differs: bool
    reading: Literal["compiler", "runtime"] = Field(
        description="compiler: the generated code differs, so the superproject (compiler) most likely changed "
        "it; runtime: only binaries and timestamps differ, so the same code ran on a different runtime"
    )
    verdict: str = Field(description="the reading in one sentence, with the evidence")
    diffs: list[FileDiff] = Field(description="the most changed text files, most changed first")
    normalised: dict[str, int] = Field(
        default_factory=dict, description="how many text files each normalisation rule made equal to the other side"
    )
    warnings: list[str] = Field(default_factory=list)

    def human(self) -> str:
        lines = [f"reading: {self.reading}: {self.verdict}"]
        for s in self.subdirs:
            if not (s.in_good or s.in_bad):
                lines.append(f"  {s.name}/: absent from both builds")
                continue
            lines.append(
                f"  {s.name}/: {s.compared} text files compared, {len(s.differ)} differ, "
                f"{len(s.added)} added, {len(s.missing)} missing, {len(s.timestamp_only)} timestamp-only; binaries: "
                f"{len(s.binary_differ)} differ, {len(s.binary_added)} added, {len(s.binary_missing)} missing"
            )
            for label, names in (("differ", s.differ), ("added", s.added), ("missing", s.missing)):
                for n in names[:10]:
                    lines.append(f"    {label:<8} {s.name}/{n}")
                if len(names) > 10:
                    lines.append(f"    ... {len(names) - 10} more {label}")
        lines += [f"  warning: {w}" for w in self.warnings]
        for d in self.diffs:
            lines += ["", f"--- {d.subdir}/{d.path} ({d.changed_lines} changed lines)", d.diff]
        return "\n".join(lines)
