"""One lint finding, and what lint_wording returns."""

from __future__ import annotations

from pydantic import Field

from perfkit.base_model import Model
from perfkit.guards.list_caps import ListsCapped


class Finding(Model):
    rule: str = Field(description="Rule id, for example 'dash' or 'unbacked-number'.")
    line: int = Field(description="1-based line in the text.")
    column: int = Field(description="1-based column of the offending text.")
    excerpt: str = Field(description="The offending text as written.")
    fix: str = Field(description="What to change, in one line.")


class LintResult(ListsCapped):
    source: str = Field(description="The file linted, or '<text>'.")
    kind: str = Field(description="'pr' or 'issue': which title form and sections were checked.")
    findings: list[Finding]
    rules_run: list[str]
    rules_skipped: list[str] = Field(default_factory=list, description="Rules that did not run, and why.")
    figures: int = Field(0, description="How many campaign figures the truthfulness rule compared against.")
    repo_skipped: list[str] = Field(
        default_factory=list,
        description="The repo's template files not read: committed symlinks, files over 1 MiB.",
    )

    def cli_exit_code(self) -> int:
        """1 when the text has findings, so a CI job or a skill can stop on them; 0 when it is clean."""
        return 1 if self.findings else 0

    def human(self) -> str:
        if not self.findings:
            head = f"{self.source}: no findings ({len(self.rules_run)} rules)"
        else:
            head = f"{self.source}: {len(self.findings)} findings"
        lines = [head]
        lines += [f"  {f.line}:{f.column} {f.rule}: {f.excerpt!r}: {f.fix}" for f in self.findings]
        lines += [f"  skipped {s}" for s in self.rules_skipped]
        lines += [f"  repo: {s}" for s in self.repo_skipped]
        return "\n".join(lines)
