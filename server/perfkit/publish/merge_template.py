"""The repo's PR template merged after our own parts: what stays, what is answered, what is ticked.

Stages, per section of the template: decide whether the heading is covered by our parts (then the
heading and its prompts go, but its checklist, issue links and other content stay in place); apply
the draft's box decisions (a two-line item gets its reason at its end); answer issue-link and
AI-use lines in place; append the draft's answer, or a placeholder when the heading asks for one.
Text inside comments and `<details>` blocks is the template's own and is never touched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from perfkit.publish import template_lines as tl
from perfkit.publish.draft_model import Checkbox
from perfkit.publish.models import CheckboxOutcome, PolicyConflict, SkippedHeading
from perfkit.publish.repo_template import RepoTemplate, classify, is_policy_box
from perfkit.templatetext import BOX_RE, Section, hidden_lines, norm_heading, strip_comments

_PROMPT_RE = re.compile(
    r"^\s*+(?:[-*+]\s++)?[_*]*+\s*+(?:please|describe|explain|list|add|provide|include|paste|link|attach|summari[sz]e|"
    r"tell|give|write|share|mention|show|what|why|how|which|where|when|if\b|e\.g\.|for example|example|note\b|"
    r"fill|replace|remove|delete|before|after)",
    re.I,
)
_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_BOT_LINE_RE = re.compile(r"^\s*@[\w-]+(?:\[bot\])?\b")
_DETAILS_BLOCK_RE = re.compile(r"<details\b.*?</details\s*>", re.I | re.S)
_DETAILS_OPEN_RE = re.compile(r"<details\b", re.I)
_DETAILS_CLOSE_RE = re.compile(r"</details\s*>", re.I)
_POLICY_WHY = (
    "the box asserts the PR is not written with AI or agent help; it stays unticked, so tell the user before they post"
)
_AI_VALUE_WHY = (
    "the template asks whether AI was used; answered YES because an agent drafted this description: "
    "the user confirms before posting"
)


@dataclass
class Merged:
    lines: list[str]
    kept: list[str]
    skipped: list[SkippedHeading]
    boxes: list[CheckboxOutcome]
    conflicts: list[PolicyConflict]
    unused_answers: list[str]
    unused_boxes: list[str]


@dataclass
class _State:
    tpl: RepoTemplate
    answers: dict[str, str]
    decisions: list[Checkbox]
    placeholder: str
    used_answers: set[str] = field(default_factory=set)
    used_boxes: set[int] = field(default_factory=set)
    boxes: list[CheckboxOutcome] = field(default_factory=list)
    conflicts: list[PolicyConflict] = field(default_factory=list)

    def ph(self, what: str) -> str:
        return self.placeholder.format(what=what)


def _box_key(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[*_`]", "", text)).strip().lower()


def _item_end(body: list[str], hidden: list[bool], k: int) -> int:
    """Index of the last line of the box item starting at k: its text may wrap onto following lines that
    are indented under it (an unindented line is the template's next paragraph, left as it is)."""
    indent = len(body[k]) - len(body[k].lstrip())
    end = k
    for j in range(k + 1, len(body)):
        ln = body[j]
        if not ln.strip() or hidden[j] or BOX_RE.match(ln) or _ITEM_RE.match(ln) or ln.lstrip().startswith(("#", "<")):
            break
        if len(ln) - len(ln.lstrip()) < indent + 2:
            break
        end = j
    return end


def _decide(st: _State, text: str) -> tuple[bool, str | None, bool]:
    """(tick, reason, matched) from the draft's decisions for a box with this text."""
    key = _box_key(text)
    for j, d in enumerate(st.decisions):
        dk = _box_key(d.text)
        if dk and (dk == key or dk in key):
            st.used_boxes.add(j)
            return d.tick, d.reason, True
    return False, None, False


def _apply_box(st: _State, s: Section, body: list[str], k: int, m: re.Match[str], end: int) -> None:
    text = " ".join([m.group("text")] + [body[j].strip() for j in range(k + 1, end + 1)])
    line_no = s.body_line + k
    tick, reason, _ = _decide(st, text)
    note = None
    if m.group("mark") in "xX" and not tick:
        note = "the template had it ticked; unticked because the draft does not back it"
    if is_policy_box(text):
        if tick:
            note = "the draft asked to tick it; left unticked: the description is drafted with an agent"
        tick = False
        st.conflicts.append(PolicyConflict(source=st.tpl.path or "", line=line_no, text=text, why=_POLICY_WHY))
    body[k] = m.group("lead") + ("x" if tick else " ") + m.group("close") + m.group("text")
    if not tick:
        body[end] = body[end].rstrip() + (f" ({reason})" if reason else f" {st.ph('tick if true, else say why not')}")
    st.boxes.append(
        CheckboxOutcome(text=text, line=line_no, ticked=tick, reason=reason if not tick else None, note=note)
    )


def _answer_lines(st: _State, s: Section, body: list[str]) -> None:
    """Boxes, issue links and AI-use questions answered in place, outside comments and <details>."""
    hidden = hidden_lines(body)
    for k in range(len(body)):
        if hidden[k]:
            continue
        m = BOX_RE.match(body[k])
        if m:
            _apply_box(st, s, body, k, m, _item_end(body, hidden, k))
            continue
        link = tl.issue_link(body[k])
        if link is not None:
            body[k] = link
            continue
        ai = tl.ai_value(body[k])
        if ai is not None:
            st.conflicts.append(
                PolicyConflict(source=st.tpl.path or "", line=s.body_line + k, text=body[k].strip(), why=_AI_VALUE_WHY)
            )
            body[k] = ai


def _kept_from_covered(body: list[str]) -> list[int]:
    """What stays of a covered section: its checklist, issue links, <details> blocks and content that is
    not a prompt."""
    hidden = hidden_lines(body)
    keep: list[int] = []
    k = 0
    while k < len(body):
        ln = body[k]
        if not hidden[k] and _DETAILS_OPEN_RE.search(ln):
            end = next((j for j in range(k, len(body)) if _DETAILS_CLOSE_RE.search(body[j])), len(body) - 1)
            keep += range(k, end + 1)
            k = end + 1
            continue
        if BOX_RE.match(ln) and not hidden[k]:
            end = _item_end(body, hidden, k)
            keep += range(k, end + 1)
            k = end + 1
            continue
        visible = not hidden[k] and strip_comments(ln).strip()
        prompt = _PROMPT_RE.match(ln) or ln.rstrip().endswith((":", "?")) or ln.lstrip().startswith("|")
        if visible and (tl.issue_link(ln) or tl.ai_value(ln) or not prompt):
            keep.append(k)
        k += 1
    return keep


def _asks(s: Section, has_headings: bool) -> bool:
    """Whether a kept section asks for an answer of ours: a heading over prompts, not over template text."""
    if s.boxes:
        return False
    text = _DETAILS_BLOCK_RE.sub("", strip_comments("\n".join(s.body)))
    own = [ln for ln in text.split("\n") if ln.strip() and not _BOT_LINE_RE.match(ln)]
    if s.heading is not None:
        has_details = bool(_DETAILS_BLOCK_RE.search("\n".join(s.body)))
        return not (has_details and not own)
    return not has_headings and bool(own)


def _section(st: _State, s: Section, has_headings: bool) -> list[str]:
    body = list(s.body)
    _answer_lines(st, s, body)
    key = norm_heading(s.heading) if s.heading is not None else "preamble"
    answer = next((v for k, v in st.answers.items() if norm_heading(k) == key), None)
    out = s.heading_lines + body
    if answer is not None:
        st.used_answers.add(key)
    if answer is not None or _asks(s, has_headings):
        text = answer.strip() if answer is not None else st.ph(f"answer '{s.heading or 'the template'}'")
        if out and out[-1].strip():
            out.append("")
        out += text.split("\n")
    return out + [""]


def merge(tpl: RepoTemplate, answers: dict[str, str], decisions: list[Checkbox], placeholder: str) -> Merged:
    """The template's kept sections, verbatim, with the draft's answers and box decisions applied."""
    st = _State(tpl, answers, decisions, placeholder)
    out: list[str] = []
    kept: list[str] = []
    skipped: list[SkippedHeading] = []
    has_headings = any(s.heading is not None for s in tpl.sections)
    for s in tpl.sections:
        reason = classify(s)
        if reason:
            skipped.append(SkippedHeading(heading=s.heading or "", line=s.line, reason=reason))
            keep = _kept_from_covered(s.body)
            if keep:
                body = list(s.body)
                _answer_lines(st, s, body)
                out += [body[k] for k in keep] + [""]
            continue
        if s.heading is not None:
            kept.append(s.heading)
        out += _section(st, s, has_headings)
    while out and not out[-1].strip():
        out.pop()
    unused = [k for k in answers if norm_heading(k) not in st.used_answers]
    unused_boxes = [d.text for j, d in enumerate(decisions) if j not in st.used_boxes]
    return Merged(out, kept, skipped, st.boxes, st.conflicts, unused, unused_boxes)
