"""Lines of a repo's PR template that are answered in place: AI-use questions and cut-off lines.

Each is recognised by its wording alone and rewritten only where the answer is certain: a question
whether AI was used gets the true answer (this description was drafted with an agent), and a line
saying a bot removes everything below it marks where our description must end. Issue-link lines
are perfkit.publish.template_parts.links.
"""

from __future__ import annotations

import re

from perfkit.markdown import blocks

# "AI usage: YES / NO", "Was AI used? (yes/no):", "AI-assisted: Yes/No"
_AI_WORDS = r"(?:ai|a\.i\.|llms?|agents?|copilot|chatgpt|claude|generative|machine[- ]generated)"
AI_VALUE_RE = re.compile(
    r"^(?P<lead>\s*(?:[-*+]\s+)?(?:\*\*|__)?[^:\n]{0,80}\b" + _AI_WORDS + r"\b[^:\n]{0,80}?(?:\*\*|__)?\s*[:?]?\s*"
    r"(?:\*\*|__)?\s*)\(?\s*(?P<opts>yes\s*(?:/|\bor\b|\|)\s*no|no\s*(?:/|\bor\b|\|)\s*yes)\s*\)?\s*[:.]?\s*$",
    re.I,
)
AI_ANSWER = "YES (the description was drafted with an AI agent from my measurements; I reviewed it)"

# "Anything written below this line will be removed by GitHub Actions"
CUT_RE = re.compile(
    r"\b(?:anything|everything|all|text|content|whatever)\b[^\n]{0,40}\b(?:below|under|after)\b[^\n]{0,20}"
    r"\b(?:this|the)\s+(?:line|comment|marker)\b[^\n]{0,80}\b(?:removed|deleted|stripped|dropped|cut|discarded)\b",
    re.I,
)


def ai_value(line: str) -> str | None:
    """The AI-use question answered truthfully, or None when the line asks no such yes/no value."""
    m = AI_VALUE_RE.match(line)
    return None if m is None else m.group("lead").rstrip() + " " + AI_ANSWER


def cut_line(lines: list[str]) -> int | None:
    """Index of the first line a bot cuts from (a `sed` range to the end), moved back to the start of
    the HTML comment it sits in, so that nothing of ours is left after an unclosed `<!--`."""
    o: blocks.Outline | None = None
    for i, ln in enumerate(lines):
        if CUT_RE.search(ln):
            o = o or blocks.outline("\n".join(lines))  # comments as the page reads them
            opened = i
            while opened > 0 and o.in_comment[opened]:
                opened -= 1
            return opened
    return None
