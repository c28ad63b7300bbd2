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
from perfkit.lint.markdown import norm_heading
from perfkit.publish.draft_model import Checkbox
from perfkit.publish.models import CheckboxOutcome, PolicyConflict, RepoNote, SkippedHeading

_NAMES = ("pull_request_template.md", "pull_request_template.txt", "pull_request_template")
_FOLDER = "pull_request_template"
_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_ATX_RE = re.compile(r"^\s{0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$")
_SETEXT_RE = re.compile(r"^\s{0,3}(=+|-+)\s*$")
BOX_RE = re.compile(r"^(?P<lead>\s*[-*+]\s+\[)(?P<mark>[ xX])(?P<close>\]\s+)(?P<text>.*?)\s*$")

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
class Section:
    heading: str | None  # heading text, None for the text before the first heading
    level: int
    heading_lines: list[str]  # the heading as written (two lines for a setext heading)
    body: list[str]
    line: int  # 1-based line of the heading (or of the first body line)
    body_line: int  # 1-based line of body[0]

    @property
    def boxes(self) -> list[tuple[int, re.Match[str]]]:
        """Checkbox lines outside HTML comments and code fences."""
        hidden = _hidden_lines(self.body)
        return [(k, m) for k, ln in enumerate(self.body) if not hidden[k] and (m := BOX_RE.match(ln))]

    def visible_text(self) -> str:
        return _strip_comments("\n".join(self.body)).strip()


@dataclass
class RepoTemplate:
    path: str | None  # repo-relative
    candidates: list[str]
    why: str
    sections: list[Section] = field(default_factory=list)
    text: str = ""


def _comment_state_after(line: str, in_comment: bool) -> bool:
    """Whether an HTML comment is still open at the end of line, given whether one was open before it."""
    pos = 0
    while True:
        if in_comment:
            end = line.find("-->", pos)
            if end == -1:
                return True
            in_comment, pos = False, end + 3
        else:
            start = line.find("<!--", pos)
            if start == -1:
                return False
            in_comment, pos = True, start + 4


def _hidden_lines(lines: list[str]) -> list[bool]:
    """For each line, whether it starts inside an HTML comment or a code fence."""
    out, in_comment, fence = [], False, None
    for ln in lines:
        m = _FENCE_RE.match(ln)
        out.append(in_comment or bool(fence) or (bool(m) and not in_comment))
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m and not in_comment:
            fence = m.group(1)
            continue
        in_comment = _comment_state_after(ln, in_comment)
    return out


def _strip_comments(text: str) -> str:
    return re.sub(r"<!--.*?(-->|$)", "", text, flags=re.S)


def _ci_child(folder: Path, name: str) -> Path | None:
    """A child of folder whose name matches case-insensitively (GitHub accepts any case)."""
    if not folder.is_dir():
        return None
    for p in sorted(folder.iterdir()):
        if p.name.lower() == name:
            return p
    return None


def find_templates(repo: Path) -> tuple[list[Path], list[Path]]:
    """(single templates in GitHub's lookup order, templates of the multi-template folder)."""
    singles: list[Path] = []
    for base in (repo / ".github", repo, repo / "docs"):
        for name in _NAMES:
            p = _ci_child(base, name)
            if p and p.is_file() and p not in singles:
                singles.append(p)
    folder: list[Path] = []
    for base in (repo / ".github", repo, repo / "docs"):
        d = _ci_child(base, _FOLDER)
        if d and d.is_dir():
            folder += sorted(p for p in d.iterdir() if p.is_file() and p.suffix.lower() in (".md", ".txt", ""))
    return singles, folder


_FIT = [
    (r"perf|speed|optimi[sz]|latency|throughput|fast", 0),
    (r"feature|enhance|improve|change|code", 1),
    (r"default|general|standard|template|pull_request", 2),
    (r"bug|fix|hotfix", 4),
    (r"doc|typo|readme", 5),
    (r"release|dependab|deps|chore", 6),
]


def _fit(p: Path) -> int:
    name = p.stem.lower()
    for rx, rank in _FIT:
        if re.search(rx, name):
            return rank
    return 3


def select(repo: Path, choice: str | None) -> RepoTemplate:
    """The template to follow: the one named by choice, else GitHub's default, else the best fit."""
    singles, folder = find_templates(repo)
    rel = [str(p.relative_to(repo)) for p in singles + folder]
    if choice:
        wanted = choice.strip().lower()
        hits = [
            p for p in singles + folder if wanted in (p.name.lower(), p.stem.lower(), str(p.relative_to(repo)).lower())
        ]
        if not hits:
            raise InputError(
                "pr_template",
                f"'{choice}' is not a PR template of this repo",
                f"use one of: {', '.join(rel)}" if rel else "this repo has no PR template; leave it out",
            )
        return _load(repo, hits[0], rel, "chosen by the pr_template parameter")
    if singles:
        why = "the repo's default PR template"
        if folder:
            why += f" (the folder holds {len(folder)} more; pick one with pr_template)"
        return _load(repo, singles[0], rel, why)
    if folder:
        best = min(folder, key=lambda p: (_fit(p), p.name))
        rank = _fit(best)
        why = (
            "fits a performance change by its name"
            if rank == 0
            else "no template is named for performance changes; picked the closest by name"
        ) + f" from {len(folder)} templates; pick another with pr_template"
        return _load(repo, best, rel, why)
    return RepoTemplate(path=None, candidates=[], why="the repo has no PR template")


def _load(repo: Path, path: Path, rel: list[str], why: str) -> RepoTemplate:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    text = text.replace("\r\n", "\n")
    return RepoTemplate(path=str(path.relative_to(repo)), candidates=rel, why=why, sections=split(text), text=text)


def split(text: str) -> list[Section]:
    """Sections by ATX and setext headings, ignoring headings inside code fences and HTML comments."""
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    sections: list[Section] = [Section(None, 0, [], [], 1, 1)]
    fence: str | None = None
    in_comment = False
    i = 0
    while i < len(lines):
        ln = lines[i]
        m = _FENCE_RE.match(ln)
        heading = None
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
        elif not in_comment and m:
            fence = m.group(1)
        elif not in_comment:
            hm = _ATX_RE.match(ln)
            if hm:
                heading = (len(hm.group(1)), (hm.group(2) or "").strip(), [ln])
            elif (
                i + 1 < len(lines)
                and ln.strip()
                and not BOX_RE.match(ln)
                and _SETEXT_RE.match(lines[i + 1])
                and not re.match(r"^\s*([-*+>|]|\d+[.)])\s", ln)
                and not (sections[-1].body and sections[-1].body[-1].strip())
            ):
                level = 1 if lines[i + 1].strip()[0] == "=" else 2
                heading = (level, ln.strip(), [ln, lines[i + 1]])
        if heading:
            level, title, hl = heading
            sections.append(Section(title, level, hl, [], i + 1, i + 1 + len(hl)))
            i += len(hl)
            continue
        # track comments across lines (after the heading test: a heading line never opens one here)
        if not fence:
            in_comment = _comment_state_after(ln, in_comment)
        sections[-1].body.append(ln)
        i += 1
    if not sections[0].body or not "\n".join(sections[0].body).strip():
        sections = sections[1:] if len(sections) > 1 else sections
    for s in sections:
        while s.body and not s.body[-1].strip():
            s.body.pop()
    return sections


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


def _contrib_files(repo: Path) -> list[Path]:
    out = []
    for base in (repo, repo / ".github", repo / "docs"):
        for name in ("contributing.md", "contributing.rst", "contributing.txt", "contributing"):
            p = _ci_child(base, name)
            if p and p.is_file():
                out.append(p)
    return out


def repo_notes(repo: Path, tpl: RepoTemplate) -> tuple[list[RepoNote], list[PolicyConflict]]:
    """Lines of CONTRIBUTING and the PR template about titles, sign-off, AI use and PR rules."""
    notes: list[RepoNote] = []
    conflicts: list[PolicyConflict] = []
    sources: list[tuple[str, str]] = [
        (str(p.relative_to(repo)), p.read_text("utf-8", "replace")) for p in _contrib_files(repo)
    ]
    if tpl.path:
        sources.append((tpl.path, tpl.text))
    for rel, text in sources:
        fence = None
        for n, ln in enumerate(text.split("\n"), 1):
            m = _FENCE_RE.match(ln)
            if m:
                fence = None if fence else m.group(1)
                continue
            if fence or not ln.strip() or BOX_RE.match(ln):
                continue
            s = ln.strip()
            kind = None
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


def template_lines(repo: Path) -> set[str]:
    """Every line of every PR template: text the lint must treat as the repo's own words."""
    singles, folder = find_templates(repo)
    out: set[str] = set()
    for p in singles + folder:
        out |= {ln for ln in p.read_text("utf-8", "replace").split("\n") if ln.strip()}
    return out


def template_headings(repo: Path) -> set[str]:
    singles, folder = find_templates(repo)
    out: set[str] = set()
    for p in singles + folder:
        out |= {norm_heading(s.heading) for s in split(p.read_text("utf-8", "replace")) if s.heading}
    return out
