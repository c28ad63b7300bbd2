"""Issue-link lines of a PR template ('Fixes #', 'FIX #xxxx (link issues)', 'Linked issue: <!-- e.g. -->'),
and the same line with the template's example replaced by the real number or a clear placeholder."""

from __future__ import annotations

import re

_WORDS = (
    r"(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|related(?: issues?| to| prs?| issues?/prs?)?|issues?(?: link| number)?|"
    r"linked issues?|refs?|references?|part of|see also|which issues?(?: this pr)? fix(?:es)?|issue\(s\))"
)
_LEAD = (
    r"(?P<lead>\s*(?:[-*+]\s+)?(?:\*\*|__)?(?:<!--\s*"
    + _WORDS
    + r"\s*-->\s*|(?:this (?:pr|pull request|change) )?"
    + _WORDS
    + r")(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*)"
)
# what a template writes where the number goes: '#', '#xxxx', '#<issue_number>', '#\<n>', '# (issue)', '#___', '#1234'
_REF = (
    r"#\s*(?:\\?<[^>\n]{0,40}>|x{2,}|_{2,}|\(\s*(?:issue|number|issue[ _-]?number|id)?\s*\)|\[[^\]\n]{0,40}\]|"
    r"\d{1,7}|issue_number|issue|number|\?+)?"
)
_TRAIL = r"(?P<trail>\s*(?:\(\s*[*_]*[^)\n]{0,160}[*_]*\s*\)|<!--.*?-->)?)\s*\.?\s*$"
_LINK_RE = re.compile(r"^" + _LEAD + _REF + _TRAIL, re.I)
_EMPTY_RE = re.compile(r"^" + _LEAD.replace("?P<lead>", "?P<lead2>") + r"(?:<!--.*?-->)?\s*$", re.I)
_NEEDS_COLON = re.compile(r"\b(?:issues?|linked|related|refs?|references?)\b[^:]*$", re.I)


def is_link(line: str) -> bool:
    if len(line) > 400:
        return False
    return bool(_LINK_RE.match(line)) or bool(_EMPTY_RE.match(line) and (":" in line or "<!--" in line))


# 'Fixes #<issue-id>' inside a longer line: the closing keyword and its blank, wherever they stand
_ANYWHERE = re.compile(
    r"(?<![\w#])(?P<kw>(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?))\s*+:?\s*+#\s*+"
    r"(?:\\?<[^>\n]{0,40}>|x{2,}|_{2,}|\(\s*(?:issue|number|issue[ _-]?number|id)?\s*\)|\[[^\]\n]{0,40}\]|"
    r"issue_number|\?+|(?=[\s.,)]|$))",
    re.I,
)


def find(line: str) -> re.Match[str] | None:
    """A closing keyword with a blank issue number anywhere in the line ('Closes #<issue-id> if any')."""
    return _ANYWHERE.search(line[:400])


def fill(line: str, number: str) -> str:
    """The line with its example or blank replaced by `#<number>`; the instruction after it dropped."""
    m = _LINK_RE.match(line)
    if m:
        return f"{m.group('lead').rstrip()} #{number}"
    inside = find(line)
    if inside and not _EMPTY_RE.match(line):
        bullet = re.match(r"^\s*(?:[-*+]\s+)?", line)
        return f"{bullet.group(0) if bullet else ''}{inside.group('kw')} #{number}"
    m2 = _EMPTY_RE.match(line)
    lead = m2.group("lead2").rstrip() if m2 else line.rstrip()
    return f"{lead} #{number}"


def inline_link(text: str) -> re.Match[str] | None:
    """A link at the end of a label's text ('... format)*: fixes #'): its start, for filling in place."""
    return re.search(
        r"(?i)\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s*+#\s*+(?:<[^>\n]{0,40}+>|x{2,}+|_{2,}+)?\s*+$", text
    )
