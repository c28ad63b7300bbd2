"""HTML in Markdown: the one list of tag names perfkit knows, and where raw HTML starts and ends.

GitHub passes a short list of tags through to the page and strips the rest; perfkit reads tags for
three reasons: to keep their markup out of the prose a wording rule reads, to tell a tag from a
`<placeholder>` a writer must fill in, and to find markup that loads or runs something. Each tag is
listed once here with the role that answers those questions.

The spans follow CommonMark's raw HTML (open and closing tags, comments, processing instructions,
declarations, CDATA) and its autolinks. Every search is a bounded or possessive pattern tried at a
`<`, or a `str.find` whose answer is remembered, so a line of any length is read in linear time.
"""

from __future__ import annotations

import bisect
import re
from typing import Literal

Role = Literal["layout", "emphasis", "active"]

# layout: structure and formatting a reader expects in a PR body; its markup is not prose.
# emphasis: inline markup a wording rule reads as such (bold is a rule of its own).
# active: loads, runs or embeds something, or restyles the page: markup no one wrote for this PR.
TAGS: dict[str, Role] = {
    **dict.fromkeys(
        "details summary br p div span sub sup code pre kbd a hr table thead tbody tr td th ul ol li dl dt dd "
        "h1 h2 h3 h4 h5 h6 blockquote".split(),
        "layout",
    ),
    **dict.fromkeys("b i em strong".split(), "emphasis"),
    **dict.fromkeys(
        "img script iframe frame svg object embed style link meta form input button video audio source picture "
        "math base textarea select".split(),
        "active",
    ),
}
KNOWN = frozenset(TAGS)
ACTIVE = frozenset(t for t, role in TAGS.items() if role == "active")
MARKUP = frozenset(t for t, role in TAGS.items() if role != "emphasis")  # blanked from prose


def names(role: Role | None = None) -> str:
    """The tag names (of one role, or all) as a regex alternation, longest first."""
    chosen = sorted((t for t, r in TAGS.items() if role is None or r == role), key=lambda t: (-len(t), t))
    return "|".join(chosen)


# A tag shape as a reader of one line meets it: a known or unknown name, attributes up to the next
# '>' (or the line's end: a tag may go on over the next line).
TAG_SHAPE_RE = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]{0,30}+)(?=[\s/>])([^<>]{0,2000}+)>?")
# what follows a tag's name when it is markup: attributes, name or name=value; a placeholder such
# as "<base commit, data size>" is not
ATTRS_RE = re.compile(r"(?:[\s/]++[A-Za-z_:][\w:.-]*+(?:\s*+=\s*+(?:\"[^\"]*+\"|'[^']*+'|[^\s\"'>]++))?)*+\s*+/?")


def is_markup(text: str) -> bool:
    """Whether `<...>` is a tag a writer meant as HTML, not a blank to fill in ('<base commit, seed>'):
    a known name with attributes in their shape; a tag that acts needs a name=value or no attribute
    ('<link to the issue>' is a blank)."""
    m = TAG_SHAPE_RE.match(text)
    if m is None or m.end() != len(text) or not text.endswith(">"):
        return False
    name, attrs = m.group(2).lower(), m.group(3).rstrip("/")
    if name not in KNOWN or not ATTRS_RE.fullmatch(attrs):
        return False
    return TAGS[name] != "active" or "=" in attrs or not attrs.strip()


# a known tag of the markup roles, as written in a line
MARKUP_TAG_RE = re.compile(r"</?(?:" + "|".join(sorted(MARKUP, key=len, reverse=True)) + r")\b[^<>]*+>", re.I)
# an element whose text GitHub reads as code (no mention in it), open and closed on one line of raw HTML
CODE_ELEMENT_RE = re.compile(r"<(code|pre|kbd)\b[^<>]*+>([^<]*+)</\1\s*+>", re.I)
DETAILS_OPEN_RE = re.compile(r"<details\b", re.I)
DETAILS_CLOSE_RE = re.compile(r"</details\s*+>", re.I)

# CommonMark's raw HTML, tried at a '<' (spec 6.6), with possessive repeats
_ATTR = r"(?:\s++[A-Za-z_:][A-Za-z0-9_.:-]*+(?:\s*+=\s*+(?:[^\"'=<>`\x00-\x20]++|'[^']*+'|\"[^\"]*+\"))?+)"
_OPEN_TAG_RE = re.compile(r"<[A-Za-z][A-Za-z0-9-]*+" + _ATTR + r"*+\s*+/?>")
_CLOSE_TAG_RE = re.compile(r"</[A-Za-z][A-Za-z0-9-]*+\s*+>")
_AUTOLINK_RE = re.compile(
    r"<[A-Za-z][A-Za-z0-9+.-]{1,31}+:[^\s<>\x00-\x1f]*+>"
    r"|<[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]++@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}+[A-Za-z0-9])?+"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}+[A-Za-z0-9])?+)*+>"
)


class _Finder:
    """str.find of one needle, remembering its last answer: a run of openers that never close stays linear."""

    def __init__(self, text: str, needle: str) -> None:
        self.text, self.needle = text, needle
        self.at = -2  # the last answer; -1: none after `since`
        self.since = 0

    def find(self, pos: int) -> int:
        if self.at == -1 and pos >= self.since:
            return -1
        if self.at >= pos:
            return self.at
        self.at, self.since = self.text.find(self.needle, pos), pos
        return self.at


_DASHES_THEN_GT_RE = re.compile(r"(?<!-)-++>")


class _CommentEnds:
    """Where an inline comment ends, as markdown-it reads one (`<!--(?:[^-]|-[^-]|--[^>])*-->`): its text
    takes dashes three at a time, so it closes at the first run of dashes before a '>' whose length,
    counted from where the text starts, is two more than a multiple of three ('<!--a---->' is text).
    The runs are indexed once, so a run of openers that never close stays linear."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts: list[int] = []
        self.ends: list[int] = []
        for m in _DASHES_THEN_GT_RE.finditer(text):
            if (m.end() - 1 - m.start()) % 3 == 2:
                self.starts.append(m.start())
                self.ends.append(m.end())

    def end(self, body: int) -> int:
        """The end of a comment whose text starts at body, or -1 when it never closes."""
        t, e = self.text, body
        while e < len(t) and t[e] == "-":  # a run that starts the text is counted from there
            e += 1
        if e > body and t.startswith(">", e) and (e - body) % 3 == 2:
            return e + 1
        k = bisect.bisect_left(self.starts, e)
        return self.ends[k] if k < len(self.starts) else -1


class RawHtml:
    """Raw HTML and autolinks in one inline text, as CommonMark reads them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._ends = {k: _Finder(text, k) for k in ("?>", ">", "]]>")}
        self._comments = _CommentEnds(text)

    def at(self, pos: int) -> tuple[str, int] | None:
        """(kind, end) of raw HTML or an autolink starting at pos: tag, comment, other or autolink."""
        t = self.text
        nxt = t[pos + 1 : pos + 2]
        if nxt == "!":
            if t.startswith("<!--", pos):
                if t.startswith(("<!-->", "<!--->"), pos):
                    return "comment", pos + (5 if t[pos + 4] == ">" else 6)
                end = self._comments.end(pos + 4)
                return ("comment", end) if end >= 0 else None
            if t.startswith("<![CDATA[", pos):
                end = self._ends["]]>"].find(pos + 9)
                return ("other", end + 3) if end >= 0 else None
            if t[pos + 2 : pos + 3].isascii() and t[pos + 2 : pos + 3].isalpha():
                end = self._ends[">"].find(pos + 2)
                return ("other", end + 1) if end >= 0 else None
            return None
        if nxt == "?":
            end = self._ends["?>"].find(pos + 2)
            return ("other", end + 2) if end >= 0 else None
        for kind, rx in (("autolink", _AUTOLINK_RE), ("tag", _OPEN_TAG_RE), ("tag", _CLOSE_TAG_RE)):
            m = rx.match(t, pos)
            if m:
                return kind, m.end()
        return None


def comment_spans(line: str, in_comment: bool) -> tuple[list[tuple[int, int]], bool]:
    """The spans of line inside HTML comments, and whether a comment is still open at its end.

    perfkit's rule for comments in raw HTML (CommonMark leaves them to the browser): a comment runs
    from `<!--` to the next `-->`, over as many lines as it takes."""
    spans, pos = [], 0
    while pos <= len(line):
        if in_comment:
            end = line.find("-->", pos)
            stop = len(line) if end == -1 else end + 3
            spans.append((pos, stop))
            if end == -1:
                break
            in_comment, pos = False, stop
        else:
            start = line.find("<!--", pos)
            if start == -1:
                break
            in_comment, pos = True, start
    return spans, in_comment


def comment_open_after(line: str, in_comment: bool) -> bool:
    """Whether an HTML comment is still open at the end of line, given whether one was open before it."""
    return comment_spans(line, in_comment)[1]


def strip_comments(text: str) -> str:
    """The text without its HTML comments (an unclosed one runs to the end), in one pass with str.find."""
    out, pos = [], 0
    while True:
        start = text.find("<!--", pos)
        if start < 0:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos:start])
        end = text.find("-->", start + 4)
        if end < 0:
            return "".join(out)
        pos = end + 3
