"""Template text that survived outside structure: the repo's instructions and examples left in a draft.

Given `repo`, a line of the draft that is a line of the repo's PR template is the repo's words. It may
stay when it is structure: a heading or bold label, a box, an issue-link line, markup, code, or a note
for reviewers, CI or bots, or a legal note. Any other line of the template (an instruction to the
author, an example, a fill-in) must not reach the posted text, whatever its shape: it is reported as
`template-text`, with the fix to remove it or answer its part. render_pr passes the lines its own parse
calls instruction; lint_wording, reading the repo alone, flags only the template lines whose shape says
they are an instruction or an example (a `[PLEASE REMOVE]` tag, a fill-in such as `<BLANK>`, words
asking the author, an example item such as `- Change A`), outside code, comments and `<details>`.
"""

from __future__ import annotations

import re

from perfkit.lint.markdown import Doc, norm_line
from perfkit.lint.models import Finding
from perfkit.markdown import html
from perfkit.markdown.blocks import outline

# structure by shape (headings, fences, comments and tags are the outline's): a box, a bold label, a rule
# line, a mention, a command, an issue-link line
_STRUCTURE = re.compile(
    r"^\s*+(?:(?:[-*+]|\d+[.)])?\s*\[[ xX]\]|(?:[-*+]\s+)?(?:\*\*|__)[^*_]{1,160}(?:\*\*|__)\s*:?\s*$|"
    r"[=-]{3,}\s*$|@\w|/\w+|"
    r"(?>.*?\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|related(?: to)?)\b)[^\n]*#)",
    re.I,
)
_NOTE = re.compile(
    r"\b(?:review\w*|ci\b|merg\w*|approv\w*|labels?\b|bots?\b|automatically|codeowners|licen[sc]\w*|copyright|"
    r"contributor license|cla\b|dco\b|by submitting)",
    re.I,
)
_ASKS = re.compile(
    r"\b(?:please|make sure|describe|explain|fill (?:in|out)|replace|remove this|delete this|add (?:a|the|your)|"
    r"list (?:the|your|any)|provide|e\.g\.|for example|instructions?)\b|<[A-Z ]{3,}>|\[[A-Z ]{4,}\]",
    re.I,
)


_TAG = re.compile(r"^(?:[-*+]\s+|\d+[.)]\s+)?[*_]*\[\s*[A-Z][A-Z _/-]{2,40}\]")
_FILL_IN = re.compile(r"<\s*(?:blank|empty|fill[ _-]?in|todo|tbd|\.\.\.)\s*>|_{3,}", re.I)
_EXAMPLE = re.compile(
    r"^(?:[-*+]|\d+[.)])\s++[*_`]*+\s*+(?:\.{2,}|x{2,}|(?:item|change|feature|fix|step|example|foo|bar)[ _-]?\w{0,2})"
    r"\s*+[*_`]*+\s*+$",
    re.I,
)


def instruction_lines(template_texts: list[str]) -> set[str]:
    """The template lines whose shape says instruction or example, normalised as lint compares lines."""
    out: set[str] = set()
    for text in template_texts:
        o = outline(text)
        for i, ln in enumerate(o.lines):
            s = ln.strip()
            # code, comments, <details> (its opening line too), headings and markup are structure
            if o.hidden(i) or o.details_opened[i] or "<!--" in s or o.heading[i] is not None:
                continue
            if len(s) < 4 or _markup_line(s) or _STRUCTURE.match(s):
                continue
            if _TAG.match(s) or _FILL_IN.search(s) or _EXAMPLE.match(s) or (_ASKS.search(s) and not _NOTE.search(s)):
                out.add(norm_line(s))
    return out


def _markup_line(s: str) -> bool:
    """The line starts with a tag of markup perfkit knows (`<details>`, `<br>`, `</p>`)."""
    m = html.TAG_SHAPE_RE.match(s)
    return m is not None and m.group(2).lower() in html.MARKUP


FIX = "the template's instruction or example text: remove it, or answer its part by id in template_answers"


def rule_template_text(doc: Doc, lines: set[str] | None) -> list[Finding]:
    if not lines:
        return []
    out = []
    for i, raw in enumerate(doc.lines):
        if doc.fenced[i] or not raw.strip():
            continue
        if norm_line(raw) in lines:
            out.append(Finding(rule="template-text", line=i + 1, column=1, excerpt=raw.strip()[:120], fix=FIX))
    return out
