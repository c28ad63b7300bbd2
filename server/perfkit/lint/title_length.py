"""How long a PR title may be, and how many headline figures it carries.

A maintainer reads a title in a list of pull requests, where about 100 characters show. render_pr
writes its title within this limit (perfkit.publish.title_fit) and lint_wording reports a title
over it, or one with more than two "A to B" spans: one or two headline figures say the result.
"""

from __future__ import annotations

import re

from perfkit.lint.models import Finding

TITLE_MAX_CHARS = 100
MAX_SPANS = 2
PLACEHOLDER_CHARS = 10  # a <placeholder> counts as the few words the user will put there
_SPAN_RE = re.compile(r"(?<![\d,.])\d[\d,.]*+\s?[^\s,]*+\s++to\s++\d")
_PLACEHOLDER_RE = re.compile(r"<[^<>\n]{1,160}>")


def length(title: str) -> int:
    """The title's length as a reader will see it, each placeholder counted as PLACEHOLDER_CHARS."""
    return len(_PLACEHOLDER_RE.sub("x" * PLACEHOLDER_CHARS, title))


def spans(title: str) -> int:
    """How many 'A to B' figure spans a title holds."""
    return len(_SPAN_RE.findall(title))


def check(first_line: str) -> list[Finding]:
    """The title (a level-one heading) against the length and the number of headline spans."""
    title = first_line[2:].strip()
    out = []
    if length(title) > TITLE_MAX_CHARS:
        out.append(
            Finding(
                rule="title-form",
                line=1,
                column=3,
                excerpt=title[:120],
                fix=f"the title has {length(title)} characters; keep it within about {TITLE_MAX_CHARS}: one or two "
                "headline figures, a shorter job name or cause",
            )
        )
    if spans(title) > MAX_SPANS:
        out.append(
            Finding(
                rule="title-form",
                line=1,
                column=3,
                excerpt=title[:120],
                fix=f"the title quotes {spans(title)} changes; keep one or two headline figures and put the rest "
                "in Speedup Result",
            )
        )
    return out
