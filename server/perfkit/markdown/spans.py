"""Spans inside a block's text: code spans, raw HTML and autolinks, as CommonMark pairs them; mentions.

CommonMark reads a paragraph left to right: a backslash escapes the punctuation after it, a run of
n backticks opens a code span that closes at the next run of exactly n (across line breaks, inside
one paragraph), and outside code a `<` may start raw HTML or an autolink. Whatever starts first
wins. `scan` gives those stretches with their kind; nothing inside a code span is markup.

A mention (`@name`, `@org/team`) is GitHub's, not CommonMark's: it notifies people unless it sits
in code. It is declared here so that the lint that reports one and the writer that makes campaign
text safe agree on what one is.

The scan is linear: backtick runs are indexed by length once, and raw HTML is tried only at a `<`
with patterns that cannot backtrack.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

from perfkit.markdown.html import RawHtml

# @name or @org/team, not an e-mail address (a word character before '@') and not a path
MENTION_RE = re.compile(r"(?<![\w@./`-])@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}+)(?:/[A-Za-z0-9][\w-]{0,99}+)?(?![\w@])")
_BACKTICKS_RE = re.compile(r"`++")
_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")

Kind = Literal["code", "comment", "tag", "other", "autolink"]


@dataclass(frozen=True)
class Span:
    kind: Kind  # code: a code span; comment, tag, other (declaration, CDATA, processing): raw HTML
    start: int
    end: int


class _Runs:
    """Backtick runs of a text, indexed by length: the closer of a code span found by bisection."""

    def __init__(self, text: str) -> None:
        self.by_len: dict[int, list[int]] = {}
        for m in _BACKTICKS_RE.finditer(text):
            self.by_len.setdefault(m.end() - m.start(), []).append(m.start())

    def closer(self, n: int, after: int) -> int:
        """Start of the first run of exactly n backticks at or after `after`, or -1."""
        starts = self.by_len.get(n, [])
        k = bisect.bisect_left(starts, after)
        return starts[k] if k < len(starts) else -1


def scan(text: str) -> list[Span]:
    """Code spans and raw HTML of one block's inline text, in order, as CommonMark pairs them."""
    if "`" not in text and "<" not in text:
        return []
    out: list[Span] = []
    runs = _Runs(text) if "`" in text else None
    html = RawHtml(text) if "<" in text else None
    n, pos = len(text), 0
    while pos < n:
        ch = text[pos]
        if ch == "\\" and pos + 1 < n and text[pos + 1] in _PUNCT:
            pos += 2
            continue
        if ch == "`" and runs is not None:
            run_end = pos
            while run_end < n and text[run_end] == "`":
                run_end += 1
            close = runs.closer(run_end - pos, run_end)
            if close >= 0:
                out.append(Span("code", pos, close + run_end - pos))
                pos = close + run_end - pos
            else:
                pos = run_end
            continue
        if ch == "<" and html is not None:
            found = html.at(pos)
            if found is not None:
                kind, end = found
                out.append(Span(kind, pos, end))  # type: ignore[arg-type]
                pos = end
                continue
        pos += 1
    return out


def code_spans(text: str) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in scan(text) if s.kind == "code"]


def code_texts(text: str) -> list[str]:
    """What each code span of text holds, its backtick runs and one padding space each side taken off."""
    out = []
    for a, b in code_spans(text):
        inner = text[a:b].strip("`")
        if len(inner) >= 2 and inner[0] == inner[-1] == " " and inner.strip():
            inner = inner[1:-1]
        out.append(inner)
    return out


def mentions(text: str) -> list[tuple[int, int]]:
    """Where GitHub would notify someone: mentions outside code spans (the caller blanks code first)."""
    return [(m.start(), m.end()) for m in MENTION_RE.finditer(text)] if "@" in text else []
