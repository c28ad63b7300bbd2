"""Rules for text that would act once posted: mentions, raw HTML, script links, hidden characters.

A PR description quotes commit subjects, candidate titles and template text written by others. On
GitHub some of it acts: `@org/team` notifies a whole team, `<img onerror=...>` and `javascript:`
links are markup a reader did not write, and bidi overrides (U+202A-202E, U+2066-2069) or
zero-width characters make the text read differently from what it holds. Each finding gives the
line and column where the text sits and says what it would do. Code spans, fenced blocks and
comments are inert on GitHub and the repository's own template text is the repository's, so
mentions, HTML and links there are left alone; hidden characters are flagged everywhere but the
template's text, code included, since they change what a reader sees there too.

What is code, a comment or raw HTML is perfkit.markdown's CommonMark reading, shared with the
writer that makes drafts inert; so are the mention pattern, the tag shapes and the list of tags
that act. Every scan here is one linear pass: the patterns use possessive repeats or single characters.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from perfkit.lint.markdown import Doc
from perfkit.lint.models import Finding
from perfkit.markdown import html, safe
from perfkit.markdown.spans import MENTION_RE

# Tags that load, run or embed something, or restyle the page (perfkit.markdown.html.ACTIVE), and
# any tag with an on...= handler. Other angle-bracket words (`<fork verify branch>`, `<br>`) are
# placeholders or harmless markup.
_EVENT_ATTR = re.compile(r"\bon[a-z]{2,30}+\s*+=", re.I)
# a Markdown link's target (to its closing parenthesis) or an autolink, with its scheme
_LINK_SCHEME = re.compile(
    r"\]\(\s*+<?([A-Za-z][A-Za-z0-9+.-]{0,30}+):(?:[^()\s]|\([^()\s]{0,200}+\)){0,2000}+\)?"
    r"|<([A-Za-z][A-Za-z0-9+.-]{0,30}+):[^<>\s]{0,2000}+>?"
)
# outside a link's brackets: script schemes anywhere; data: and file: only in their URL shapes
# ("Data: ..." is a label)
_BARE_SCHEME = re.compile(
    r"(?<![\w.+-])(?:(javascript|vbscript):|(data):[a-z]{1,20}+/[\w.+-]{1,60}+[;,]|(file)://)", re.I
)
_WEB = {"http", "https", "mailto"}


def _finding(rule: str, line: int, column: int, excerpt: str, fix: str) -> Finding:
    return Finding(rule=rule, line=line + 1, column=column + 1, excerpt=excerpt[:120], fix=fix)


Span = tuple[str, int, int, int, str]  # rule, line index, start, end, fix


def _mention_spans(doc: Doc) -> list[Span]:
    out = []
    for i, line in enumerate(doc.lines):
        if "@" not in line:
            continue
        for m in MENTION_RE.finditer(doc.live[i]):
            team = " (a whole team)" if "/" in m.group() else ""
            fix = f"posting this notifies {m.group()}{team}: write it as code (`@name`) or leave it out"
            out.append(("mention", i, m.start(), m.end(), fix))
    return out


def _html_spans(doc: Doc) -> list[Span]:
    out = []
    for i, line in enumerate(doc.lines):
        if "<" not in line:
            continue
        for m in html.TAG_SHAPE_RE.finditer(doc.live[i]):
            name, attrs = m.group(2).lower(), m.group(3)
            if not html.ATTRS_RE.fullmatch(attrs):
                continue
            if name not in html.ACTIVE and not _EVENT_ATTR.search(attrs) and "javascript:" not in attrs.lower():
                continue
            why = "an event handler" if _EVENT_ATTR.search(attrs) else f"a <{name}> tag"
            fix = f"raw HTML with {why} that no one here wrote for this PR: remove it, or quote it as code"
            out.append(("raw-html", i, m.start(), m.end(), fix))
    return out


def _link_spans(doc: Doc) -> list[Span]:
    out = []
    for i, line in enumerate(doc.lines):
        if ":" not in line:
            continue
        bare = doc.live[i]
        taken: list[tuple[int, int]] = []
        for m in _LINK_SCHEME.finditer(bare):
            scheme = (m.group(1) or m.group(2)).lower()
            if scheme not in _WEB:
                start = m.start()
                if m.group(1):  # the whole link, from its text's opening bracket
                    opening = bare.rfind("[", 0, start)
                    start = opening if opening >= 0 else start
                taken.append((start, m.end()))
                out.append(("link-scheme", i, start, m.end(), _scheme_fix(scheme)))
        for m in _BARE_SCHEME.finditer(bare):
            if not any(a <= m.start() < b for a, b in taken):
                scheme = next(g for g in m.groups() if g).lower()
                out.append(("link-scheme", i, m.start(), m.end(), _scheme_fix(scheme)))
    return out


def _scheme_fix(scheme: str) -> str:
    return f"a '{scheme}:' link is not a web page: link only http(s) pages, or remove it"


def _hidden_spans(doc: Doc) -> list[Span]:
    out = []
    for i, line in enumerate(doc.lines):
        if line.isascii():
            continue
        for col, ch in enumerate(doc.shown[i]):  # code too: a hidden character changes what code reads
            if ch in safe.HIDDEN:
                name = unicodedata.name(ch, "format character").lower()
                kind = "a bidi control" if ch in safe.BIDI else "a zero-width character"
                fix = f"U+{ord(ch):04X} ({name}) is {kind}: the text reads differently from what it holds; delete it"
                out.append(("hidden-char", i, col, col + 1, fix))
    return out


def spans(doc: Doc) -> list[Span]:
    """Every stretch of text that would act once posted, with the rule it breaks and the fix."""
    return _mention_spans(doc) + _html_spans(doc) + _link_spans(doc) + _hidden_spans(doc)


def _rule(collect: Callable[[Doc], list[Span]]) -> Callable[[Doc, object], list[Finding]]:
    def run(doc: Doc, ctx: object) -> list[Finding]:
        return [_finding(rule, i, a, doc.lines[i][a:b], fix) for rule, i, a, b, fix in collect(doc)]

    return run


rule_mention = _rule(_mention_spans)
rule_raw_html = _rule(_html_spans)
rule_link_scheme = _rule(_link_spans)
rule_hidden_char = _rule(_hidden_spans)


RULES = {
    "mention": rule_mention,
    "raw-html": rule_raw_html,
    "link-scheme": rule_link_scheme,
    "hidden-char": rule_hidden_char,
}
