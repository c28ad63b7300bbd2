"""The draft's AI disclosure, placed where the repo's PR template asks about AI use.

A heading that asks how AI tools took part ("AI assistance", "AI usage disclosure") gets the
draft's `ai_disclosure` as its answer, unless `template_answers` answers it already. A box that
promises the description discloses AI use ("If AI tools helped, the description says which and
how") is ticked only when the disclosure was placed under such a heading: ticking it otherwise
would claim something the description does not hold. A box asserting no AI was used is never
ticked here (merge_template keeps it unticked and reports the conflict). Without `ai_disclosure`
nothing changes: perfkit never states AI use for the user.
"""

from __future__ import annotations

import re
from typing import Any

from perfkit.draft.model import Checkbox
from perfkit.publish.repo_notes import mentions_ai
from perfkit.publish.repo_template import RepoTemplate, is_policy_box
from perfkit.repo.template_text import BOX_RE, hidden_lines, norm_heading

_ASKS_USE_RE = re.compile(
    r"\b(?:use[ds]?|usage|using|assist\w*|help\w*|generat\w*|tools?|disclos\w*|declar\w*|involvement|policy)\b", re.I
)
_SAYS_RE = re.compile(r"\b(?:disclos\w*|says?|states?|describ\w*|mention\w*|declar\w*|explain\w*|notes?)\b", re.I)


def _asks_ai(text: str) -> bool:
    return mentions_ai(text) and bool(_ASKS_USE_RE.search(text))


def apply(
    tpl: RepoTemplate, answers: dict[str, Any], decisions: list[Checkbox], disclosure: str | None
) -> tuple[dict[str, Any], list[Checkbox], list[str]]:
    """(template answers, box decisions, warnings) with the disclosure placed where the template asks."""
    said = (disclosure or "").strip()
    if not said or tpl.path is None:
        return dict(answers), decisions, []
    answered = {norm_heading(k) for k in answers}
    out = dict(answers)  # template answers are text, or lists where a part takes several
    placed = False
    for s in tpl.sections:
        if s.heading is None or not _asks_ai(s.heading):
            continue
        placed = True
        if norm_heading(s.heading) not in answered:
            out[s.heading] = said
    decided = {norm_heading(d.text) for d in decisions}
    boxes = list(decisions)
    lines = tpl.text.split("\n")
    hidden = hidden_lines(lines)
    asked_boxes = []
    for k, ln in enumerate(lines):
        m = None if hidden[k] else BOX_RE.match(ln)
        if not m or not _asks_ai(m.group("text")) or is_policy_box(m.group("text")):
            continue
        text = m.group("text").strip()
        if not _SAYS_RE.search(text) or any(
            d and (norm_heading(text) in d or d in norm_heading(text)) for d in decided
        ):
            continue
        asked_boxes.append(text)
        if placed:
            boxes.append(Checkbox(text=text, tick=True))
    warnings = []
    if not placed:
        where = f"; its box '{asked_boxes[0]}' stays unticked" if asked_boxes else ""
        warnings.append(
            f"draft.ai_disclosure is not placed: {tpl.path} has no heading about AI use{where}; "
            "answer the part that asks for it in template_answers"
        )
    return out, boxes, warnings
