"""The target repo's own pull-request template: find it, split it, and merge it after our parts.

The template's text is data. It is split into sections by its headings, copied line for line,
and never passed through a template engine: a repo whose template shows `{{ }}` or `{% %}` gets
those characters back unchanged. The only edits are the ones the draft backs: an answer appended
under a heading, a box ticked, a reason written after an unticked box.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.errors import InputError
from perfkit.publish.models import NoteKind, PolicyConflict, RepoNote
from perfkit.publish.template_lines import cut_line
from perfkit.publish.template_parts.kinds import Part
from perfkit.repofiles import RepoFiles
from perfkit.templatetext import (
    BOX_RE,
    FENCE_RE,
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
_AI_RE = re.compile(
    r"\b(?:ai|a\.i\.|llms?|(?:ai|coding|autonomous) agents?|agent[- ](?:generated|written|authored)|copilot|"
    r"chatgpt|claude|gpt-?\d?|generative|machine[- ]generated|ai[- ](?:generated|assisted))\b",
    re.I,
)
_AI_BAN_RE = re.compile(
    r"\b(?:not accept|do not accept|don't accept|won't accept|will be (?:closed|rejected)|"
    r"(?:is|are) (?:not )?(?:allowed|permitted|prohibited|forbidden|banned)|prohibit|forbid|ban(?:s|ned)?|"
    r"reject|no (?:ai|llm))\b",
    re.I,
)
_SIGNOFF_RE = re.compile(
    r"\b(?:signed-off-by|sign[- ]off|dco|developer certificate of origin|cla|"
    r"contributor license agreement)\b",
    re.I,
)
_TITLE_RE = re.compile(r"\b(?:pr|pull request|merge request)?\s*titles?\b", re.I)
_PR_RULE_RE = re.compile(
    r"\b(?:pull requests?|prs?|merge requests?)\b.*\b(?:must|required?|should|need to|please)\b|"
    r"\b(?:must|required?|should|need to|please)\b.*\b(?:pull requests?|prs?)\b",
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


def _ci_child(folder: Path, name: str) -> Path | None:
    """A child of folder whose name matches case-insensitively (issue_forms still reads the working tree)."""
    if not folder.is_dir():
        return None
    for p in sorted(folder.iterdir()):
        if p.name.lower() == name:
            return p
    return None


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


def _contrib_files(files: RepoFiles) -> list[str]:
    out = []
    for base in ("", ".github", "docs"):
        for e in files.children(base):
            if e.name.lower().split(".", 1)[0] == "contributing" and e.path in files.texts:
                out.append(e.path)
    return out


_NOTE_CAP = 3  # per kind: the skill reads every note, so only the lines that change what the user posts
_POLICY_VERB_RE = re.compile(
    r"\b(?:must|required?|requires|disclos\w*|declar\w*|state|mention|label|mark|policy|allowed|permitted|"
    r"accept\w*|prohibit\w*|forbid\w*|ban\w*|responsib\w*|review\w*|reject\w*|close[ds]?|please)\b",
    re.I,
)
_REQUIRED_RE = re.compile(r"\b(?:must|required?|requires|mandatory|need to)\b", re.I)
_STATEMENT_RE = re.compile(
    r"\b(?:descriptions?|statements?|include|state|mention|link|declare|confirm|checklist|template)\b", re.I
)
_TITLE_SHAPE_RE = re.compile(r"\b(?:prefix|format|start|convention|tag)\w*+|\[[^\[\]]++\]|(?<!\w)\w++\(\w++\):", re.I)


def _note_kind(line: str, from_template: bool) -> NoteKind | None:
    if _AI_RE.search(line) and _POLICY_VERB_RE.search(line):
        return "ai-policy"
    if _SIGNOFF_RE.search(line) and (_REQUIRED_RE.search(line) or re.search(r"\b(?:sign|please)\b", line, re.I)):
        return "sign-off"
    if _TITLE_RE.search(line) and _TITLE_SHAPE_RE.search(line):
        return "title-rule"
    if not from_template and _PR_RULE_RE.search(line) and _REQUIRED_RE.search(line) and _STATEMENT_RE.search(line):
        return "pr-rule"
    return None


def _prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, stripped text) of lines outside code fences, boxes excluded."""
    out, fence = [], None
    for n, ln in enumerate(text.split("\n"), 1):
        m = FENCE_RE.match(ln)
        if m:
            fence = None if fence else m.group(1)
            continue
        if not fence and ln.strip() and not BOX_RE.match(ln):
            out.append((n, ln.strip()))
    return out


def repo_notes(files: RepoFiles, tpl: RepoTemplate) -> tuple[list[RepoNote], list[PolicyConflict]]:
    """The few lines of CONTRIBUTING and the PR template that change what the user posts: title rules,
    required sign-off or statements, AI policy. At most three of each kind, no repeats."""
    notes: list[RepoNote] = []
    conflicts: list[PolicyConflict] = []
    sources: list[tuple[str, str]] = [(p, files.texts[p]) for p in _contrib_files(files)]
    if tpl.path:
        sources.append((tpl.path, tpl.text))
    seen: set[str] = set()
    for rel, text in sources:
        for n, line in _prose_lines(text):
            kind = _note_kind(line, rel == tpl.path)
            key = re.sub(r"\W+", " ", line.lower()).strip()
            if kind is None or key in seen or sum(x.kind == kind for x in notes) >= _NOTE_CAP:
                continue
            seen.add(key)
            notes.append(RepoNote(source=rel, line=n, kind=kind, text=line[:300]))
            if kind == "ai-policy" and _AI_BAN_RE.search(line):
                why = "the repo restricts AI-assisted contributions; the user decides whether and how to post"
                conflicts.append(PolicyConflict(source=rel, line=n, text=line[:300], why=why))
    return notes, conflicts
