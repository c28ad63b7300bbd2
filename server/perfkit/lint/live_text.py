"""Rules for text that would act once posted: mentions, raw HTML, script links, hidden characters.

A PR description quotes commit subjects, candidate titles and template text written by others. On
GitHub some of it acts: `@org/team` notifies a whole team, `<img onerror=...>` and `javascript:`
links are markup a reader did not write, and bidi overrides (U+202A-202E, U+2066-2069) or
zero-width characters make the text read differently from what it holds. Each finding gives the
line and column where the text sits and says what it would do. Code spans, fenced blocks and
comments are inert on GitHub and the repository's own template text is the repository's, so
mentions, HTML and links there are left alone; hidden characters are flagged everywhere but the
template's text, code included, since they change what a reader sees there too.

Every scan here is one linear pass: the patterns use possessive repeats or single characters.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from perfkit.lint.markdown import Doc
from perfkit.lint.models import Finding

_CODE_SPAN = re.compile(r"(?<!`)(`++)(.+?)\1")
# @name or @org/team, not an e-mail address (a word character before '@') and not a path
_MENTION = re.compile(r"(?<![\w@./`-])@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}+)(?:/[A-Za-z0-9][\w-]{0,99}+)?(?![\w@])")
# tags that load, run or embed something, or restyle the page; any tag with an on...= handler too.
# Other angle-bracket words (`<fork verify branch>`, `<br>`) are placeholders or harmless markup.
_ACTIVE_TAGS = {"img", "script", "iframe", "frame", "svg", "object", "embed", "style", "link", "meta", "form"}
_ACTIVE_TAGS |= {"input", "button", "video", "audio", "source", "picture", "math", "base", "textarea", "select"}
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]{0,30}+)(?=[\s/>])([^<>]{0,2000}+)>?")
# what follows a tag's name when it is markup: attributes, name or name=value; a placeholder such
# as "<base commit, data size>" is not
_ATTRS = re.compile(r"(?:[\s/]++[A-Za-z_:][\w:.-]*+(?:\s*+=\s*+(?:\"[^\"]*+\"|'[^']*+'|[^\s\"'>]++))?)*+\s*+/?")
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
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)}
_ZERO_WIDTH = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u180e"}


def _without_code(line: str) -> str:
    """The line with inline code spans blanked to spaces, so columns stay where they were."""
    return _CODE_SPAN.sub(lambda m: " " * len(m.group()), line)


def _finding(rule: str, line: int, column: int, excerpt: str, fix: str) -> Finding:
    return Finding(rule=rule, line=line + 1, column=column + 1, excerpt=excerpt[:120], fix=fix)


Span = tuple[str, int, int, int, str]  # rule, line index, start, end, fix


def _mention_spans(doc: Doc) -> list[Span]:
    out = []
    for i, line in enumerate(doc.lines):
        if "@" not in line:
            continue
        for m in _MENTION.finditer(_without_code(doc.live[i])):
            team = " (a whole team)" if "/" in m.group() else ""
            fix = f"posting this notifies {m.group()}{team}: write it as code (`@name`) or leave it out"
            out.append(("mention", i, m.start(), m.end(), fix))
    return out


def _html_spans(doc: Doc) -> list[Span]:
    out = []
    for i, line in enumerate(doc.lines):
        if "<" not in line:
            continue
        for m in _TAG.finditer(_without_code(doc.live[i])):
            name, attrs = m.group(2).lower(), m.group(3)
            if not _ATTRS.fullmatch(attrs):
                continue
            if name not in _ACTIVE_TAGS and not _EVENT_ATTR.search(attrs) and "javascript:" not in attrs.lower():
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
        bare = _without_code(doc.live[i])
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
        shown = line if doc.fenced[i] else doc.live[i]  # a fence's text is code, and shown
        for col, ch in enumerate(shown):
            if ch in _BIDI or ch in _ZERO_WIDTH:
                name = unicodedata.name(ch, "format character").lower()
                kind = "a bidi control" if ch in _BIDI else "a zero-width character"
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
