"""Headings the repository's own checks require in a PR body, read from its workflows and the scripts they run.

A repository that fails a PR whose body lacks '### Description' says so in code: a workflow step, or a
script the workflow runs, matching a regex over the body. A heading counts as enforced when such a
file (one that reads the PR body) names it as a Markdown heading, literally or as a regex. Read from
git objects at the same commit as the template, through repofiles' plumbing, never executed.
"""

from __future__ import annotations

import re
from pathlib import Path

_BODY = re.compile(
    r"pull_request\.body|\bpr[_ ]?body\b|event\[?['\"]?body|\.body\b|['\"]body['\"]|\bbody\s*=|description of the pr|"
    r"PR description|pull request (?:body|description)",
    re.I,
)
_SCRIPT = re.compile(r"(?<![\w$./-])((?:\.?[\w-]++/)*+[\w.-]*?\.(?:py|sh|js|cjs|mjs|ts|rb))\b")
MAX_WORKFLOWS = 200
MAX_SCRIPTS = 40


def heading_pattern(title: str) -> re.Pattern[str]:
    """The heading as a check would name it: '### PR Types', '#+\\s*PR\\s+Types', '## Description(.*'."""
    words = [re.escape(w) for w in re.findall(r"[A-Za-z0-9]+", title)[:12]]
    if not words:
        return re.compile(r"(?!x)x")
    sep = r"(?:\s|\\s[+*]?|\\ |\[\s\]|[-_/&]|\\[-/&]|\.)+"
    lead = r"(?:\\?#){1,6}(?:[+*]|\{\d*,?\d*\})?(?:\s|\\s[+*]?|\\ )*|\*\*"
    return re.compile(r"(?:" + lead + r")" + sep.join(words) + r"(?![A-Za-z0-9])", re.I)


def check_texts(top: Path, commit: str | None) -> dict[str, str]:
    """The workflows that read the PR body, and the scripts they run, by repo path."""
    from perfkit.repo import contribution_files

    if commit is None:
        return {}
    flows = contribution_files.read_folder(top, commit, ".github/workflows", MAX_WORKFLOWS, ("yml", "yaml"))
    out = {p: t for p, t in flows.items() if _BODY.search(t)}
    wanted = sorted({m.group(1).removeprefix("./") for t in out.values() for m in _SCRIPT.finditer(t)})[:MAX_SCRIPTS]
    scripts = contribution_files.read_paths(top, commit, wanted) if wanted else {}
    out.update({p: t for p, t in scripts.items() if _BODY.search(t) or "#" in t})
    return out


def enforced(titles: list[str], checks: dict[str, str]) -> dict[str, str]:
    """Heading title -> the check file that looks for it."""
    found: dict[str, str] = {}
    for title in titles:
        rx = heading_pattern(title)
        for path, text in checks.items():
            if rx.search(text):
                found[title] = path
                break
    return found
