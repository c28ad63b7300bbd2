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
from perfkit.publish.draft_model import Checkbox
from perfkit.publish.models import CheckboxOutcome, NoteKind, PolicyConflict, RepoNote, SkippedHeading
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
    r"^(?:test(?:ing)? results?|results?|benchmarks?(?: results)?|performance(?: results| numbers| impact| changes?)?|"
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
    r"\b(?:ai|a\.i\.|llms?|agents?|copilot|chatgpt|claude|gpt-?\d?|generative|machine[- ]generated|"
    r"ai[- ](?:generated|assisted))\b",
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
    text = files.texts[path]
    return RepoTemplate(path=path, candidates=rel, why=why, sections=split(text), text=text)


def classify(section: Section) -> str | None:
    """Why a section is covered by our own parts, or None when it stays."""
    if section.heading is None:
        return None
    name = norm_heading(section.heading)
    if section.boxes:
        return None
    if RESULT_HEADINGS.match(name):
        return "covered by Speedup Result and Correctness Verification"
    if SUMMARY_HEADINGS.match(name):
        return "covered by Summary"
    return None


def _box_key(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[*_`]", "", text)).strip().lower()


@dataclass
class Merged:
    lines: list[str]
    kept: list[str]
    skipped: list[SkippedHeading]
    boxes: list[CheckboxOutcome]
    conflicts: list[PolicyConflict]
    unused_answers: list[str]
    unused_boxes: list[str]


def merge(tpl: RepoTemplate, answers: dict[str, str], decisions: list[Checkbox], placeholder: str) -> Merged:
    """The template's kept sections, verbatim, with the draft's answers and box decisions applied."""
    out: list[str] = []
    kept: list[str] = []
    skipped: list[SkippedHeading] = []
    boxes: list[CheckboxOutcome] = []
    conflicts: list[PolicyConflict] = []
    by_heading = {norm_heading(k): v for k, v in answers.items()}
    used_answers: set[str] = set()
    used_boxes: set[int] = set()
    has_headings = any(s.heading is not None for s in tpl.sections)
    for s in tpl.sections:
        reason = classify(s)
        if reason:
            skipped.append(SkippedHeading(heading=s.heading or "", line=s.line, reason=reason))
            continue
        if s.heading is not None:
            kept.append(s.heading)
        body = list(s.body)
        for k, m in s.boxes:
            text = m.group("text")
            line_no = s.body_line + k
            policy = bool(_POLICY_BOX_RE.search(text))
            decision = next(
                (
                    (j, d)
                    for j, d in enumerate(decisions)
                    if _box_key(d.text) and (_box_key(d.text) == _box_key(text) or _box_key(d.text) in _box_key(text))
                ),
                None,
            )
            tick, reason, note = False, None, None
            if decision:
                used_boxes.add(decision[0])
                tick, reason = decision[1].tick, decision[1].reason
            if m.group("mark") in "xX" and not tick:
                note = "the template had it ticked; unticked because the draft does not back it"
            if policy:
                if tick:
                    note = "the draft asked to tick it; left unticked: the description is drafted with an agent"
                tick = False
                conflicts.append(
                    PolicyConflict(
                        source=tpl.path or "",
                        line=line_no,
                        text=text,
                        why="the box asserts the PR is not written with AI or agent help; it stays unticked, so tell "
                        "the user before they post",
                    )
                )
            mark = "x" if tick else " "
            new = m.group("lead") + mark + m.group("close") + text
            if not tick:
                new += f" ({reason})" if reason else f" {placeholder.format(what='tick if true, else say why not')}"
            body[k] = new
            boxes.append(
                CheckboxOutcome(text=text, line=line_no, ticked=tick, reason=reason if not tick else None, note=note)
            )
        key = norm_heading(s.heading) if s.heading is not None else "preamble"
        answer = by_heading.get(key)
        if answer is not None:
            used_answers.add(key)
        needs = (
            (s.heading is not None or not has_headings)
            and not s.boxes
            and (s.heading is not None or bool(s.visible_text()))
        )
        out += s.heading_lines
        out += body
        if answer is not None or needs:
            text = (
                answer.strip()
                if answer is not None
                else placeholder.format(what=f"answer '{s.heading or 'the template'}'")
            )
            if out and out[-1].strip():
                out.append("")
            out += text.split("\n")
        out.append("")
    unused = [k for k in answers if norm_heading(k) not in used_answers]
    unused_boxes = [d.text for j, d in enumerate(decisions) if j not in used_boxes]
    while out and not out[-1].strip():
        out.pop()
    return Merged(out, kept, skipped, boxes, conflicts, unused, unused_boxes)


def _contrib_files(files: RepoFiles) -> list[str]:
    out = []
    for base in ("", ".github", "docs"):
        for e in files.children(base):
            if e.name.lower().split(".", 1)[0] == "contributing" and e.path in files.texts:
                out.append(e.path)
    return out


def repo_notes(files: RepoFiles, tpl: RepoTemplate) -> tuple[list[RepoNote], list[PolicyConflict]]:
    """Lines of CONTRIBUTING and the PR template about titles, sign-off, AI use and PR rules."""
    notes: list[RepoNote] = []
    conflicts: list[PolicyConflict] = []
    sources: list[tuple[str, str]] = [(p, files.texts[p]) for p in _contrib_files(files)]
    if tpl.path:
        sources.append((tpl.path, tpl.text))
    for rel, text in sources:
        fence = None
        for n, ln in enumerate(text.split("\n"), 1):
            m = FENCE_RE.match(ln)
            if m:
                fence = None if fence else m.group(1)
                continue
            if fence or not ln.strip() or BOX_RE.match(ln):
                continue
            s = ln.strip()
            kind: NoteKind | None = None
            if _AI_RE.search(s):
                kind = "ai-policy"
                if _AI_BAN_RE.search(s):
                    conflicts.append(
                        PolicyConflict(
                            source=rel,
                            line=n,
                            text=s[:300],
                            why="the repo restricts AI-assisted contributions; the user "
                            "decides whether and how to post",
                        )
                    )
            elif _SIGNOFF_RE.search(s):
                kind = "sign-off"
            elif _TITLE_RE.search(s) and re.search(
                r"\b(?:prefix|format|start|convention|tag|should|must|use|e\.g\.|"
                r"like|\[|:)",
                s,
                re.I,
            ):
                kind = "title-rule"
            elif rel != tpl.path and _PR_RULE_RE.search(s):
                kind = "pr-rule"
            if kind:
                notes.append(RepoNote(source=rel, line=n, kind=kind, text=s[:300]))
    return notes, conflicts
