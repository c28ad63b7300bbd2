"""The target repo's own pull-request template: find it, split it, and merge it after our parts.

The template's text is data. It is split into sections by its headings, copied line for line,
and never passed through a template engine: a repo whose template shows `{{ }}` or `{% %}` gets
those characters back unchanged. The only edits are the ones the draft backs: an answer appended
under a heading, a box ticked, a reason written after an unticked box.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from perfkit.errors import InputError
from perfkit.publish.template_lines import cut_line
from perfkit.publish.template_parts.kinds import Part
from perfkit.repo.contribution_files import RepoFiles
from perfkit.repo.template_text import (
    BOX_RE,
    Section,
    norm_heading,
    pr_template_paths,
    split,
)

__all__ = ["BOX_RE", "Section", "norm_heading", "split"]  # issue_forms reads templates through these

SUMMARY_HEADINGS = re.compile(
    r"^(?:pr |pull request )?(?:summary|purpose|motivation|description|overview|context|background|why|"
    r"what does this (?:pr|pull request|change|patch) do|what this (?:pr|pull request|change) does|"
    r"what (?:is|was) (?:changed|the change)|what changed|what changes were proposed.*|proposed changes?|"
    r"changes?(?: made| proposed| introduced| in this pr)?|description of (?:the )?changes?|"
    r"(?:summary|description) of (?:the )?(?:pr|pull request|change)|about|details|the change|"
    r"problem|problem statement|issue|what problem does this (?:pr|change) solve)$"
)
RESULT_HEADINGS = re.compile(
    r"^(?:test(?:ing)? results?|test(?:ing)? result s|results?|benchmarks?(?: results)?|benchmarking|"
    r"profil(?:e|ing)(?: results)?|performance(?: results| numbers| impact| changes?)?|"
    r"perf(?: results| numbers)?|speed ?ups?|before (?:and|&|vs) after|accuracy(?: results)?|correctness|"
    r"numerical (?:equivalence|accuracy|correctness)|verification(?: results)?|evaluation(?: results)?|"
    r"measurements?)$"
)
_POLICY_BOX_RE = re.compile(
    r"\b(?:not|no|never|without|nothing)\b[^.]{0,60}\b(?:ai|a\.i\.|llm|llms|agent|agents|bot|bots|copilot|chatgpt|claude|"
    r"gpt|machine[- ]generated|auto(?:matically)?[- ]?generated|generated)\b"
    r"|\b(?:human[- ](?:written|authored|created|made)|written (?:entirely |solely |only )?by (?:a )?human|"
    r"i (?:wrote|authored|typed) (?:this|all|every|the)\b[^.]{0,40}\b(?:myself|by hand)|my own (?:work|words))",
    re.I,
)


@dataclass
class RepoTemplate:
    path: str | None  # repo-relative
    candidates: list[str]
    why: str
    sections: list[Section] = field(default_factory=list)
    text: str = ""
    tail: list[str] = field(default_factory=list)  # a bot's cut-off line and what follows it, verbatim
    cut_at: int | None = None  # 0-based line of the cut-off line, when the template has one
    parts: list[Part] = field(default_factory=list)  # the text above the cut, read once as a structure


_FIT = [
    (r"perf|speed|optimi[sz]|latency|throughput|fast", 0),
    (r"feature|enhance|improve|change|code", 1),
    (r"default|general|standard|template|pull_request", 2),
    (r"bug|fix|hotfix", 4),
    (r"doc|typo|readme", 5),
    (r"release|dependab|deps|chore", 6),
]


def _fit(path: str) -> int:
    name = path.rsplit("/", 1)[-1].lower().split(".", 1)[0]
    for rx, rank in _FIT:
        if re.search(rx, name):
            return rank
    return 3


def select(files: RepoFiles, choice: str | None) -> RepoTemplate:
    """The template to follow: the one named by choice, else GitHub's default, else the best fit."""
    singles, folder = pr_template_paths(files)
    rel = singles + folder
    if choice:
        wanted = choice.strip().lower()
        hits = [p for p in rel if wanted in (p.lower(), p.rsplit("/", 1)[-1].lower(), _stem(p))]
        if not hits:
            raise InputError(
                "pr_template",
                f"'{choice}' is not a PR template of this repo",
                f"use one of: {', '.join(rel)}" if rel else "this repo has no PR template; leave it out",
            )
        return _load(files, hits[0], rel, "chosen by the pr_template parameter")
    if singles:
        why = "the repo's default PR template"
        if folder:
            why += f" (the folder holds {len(folder)} more; pick one with pr_template)"
        return _load(files, singles[0], rel, why)
    if folder:
        best = min(folder, key=lambda p: (_fit(p), p.rsplit("/", 1)[-1]))
        why = (
            "fits a performance change by its name"
            if _fit(best) == 0
            else "no template is named for performance changes; picked the closest by name"
        ) + f" from {len(folder)} templates; pick another with pr_template"
        return _load(files, best, rel, why)
    return RepoTemplate(path=None, candidates=[], why="the repo has no PR template")


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].lower().rsplit(".", 1)[0]


def _load(files: RepoFiles, path: str, rel: list[str], why: str) -> RepoTemplate:
    """The template split into sections; from a bot's cut-off line on, it is kept apart as the tail."""
    text = files.texts[path]
    lines = text.split("\n")
    cut = cut_line(lines)
    head, tail = (lines, []) if cut is None else (lines[:cut], lines[cut:])
    while tail and not tail[-1].strip():
        tail.pop()
    from perfkit.publish.template_parts import parse, roles

    parts = parse.parse("\n".join(head))
    roles.assign(parts)
    return RepoTemplate(
        path=path,
        candidates=rel,
        why=why,
        sections=split("\n".join(head)),
        text=text,
        tail=tail,
        cut_at=cut,
        parts=parts,
    )


def classify(section: Section) -> str | None:
    """Why a section is covered by our own parts, or None when it stays.

    A covered section with a checklist loses only its heading and prompts: merge keeps the boxes.
    """
    if section.heading is None:
        return None
    name = norm_heading(section.heading)
    if RESULT_HEADINGS.match(name):
        return "covered by Speedup Result and Correctness Verification"
    if SUMMARY_HEADINGS.match(name):
        return "covered by Summary"
    return None


def is_policy_box(text: str) -> bool:
    """A box asserting the PR was written without AI or agent help."""
    return bool(_POLICY_BOX_RE.search(text))
