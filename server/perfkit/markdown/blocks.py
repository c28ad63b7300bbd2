"""The block structure of a Markdown text, as CommonMark (and so GitHub) reads it, with line ranges.

The blocks come from markdown-it-py, a CommonMark-conformant parser that keeps each block's lines,
with GitHub's tables switched on; only its block pass runs. On top, perfkit adds what CommonMark
leaves to the browser or to GitHub, and what perfkit's readers ask of each line:

- task boxes: a list item whose text starts with `[ ]`, `[x]` or `[X]` and a space;
- HTML comments, read the way the page reads them: a `<!--` in raw HTML (an HTML block) opens a
  comment that runs over the following lines, Markdown blocks included, to the next `-->` the page
  gets as markup (in an HTML block or in raw HTML inside a paragraph; text and code are escaped and
  never close one); a comment complete inside a paragraph is hidden, an incomplete one is text;
- `<details>` blocks: the depth of open `<details>` at each line, counted in raw HTML only;
- inline spans: code spans and raw HTML of each paragraph, heading and table row, per line; the
  text of a `<code>`, `<pre>` or `<kbd>` element written in raw HTML on one line counts as code.

Nothing else in perfkit decides where a code block opens or closes: a fence closes only on a fence
line of its own character, at least as long, with nothing after it but spaces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Literal

from perfkit.markdown import html, spans

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

Kind = Literal["heading", "paragraph", "list", "item", "code", "html", "table", "quote", "rule"]
_LINE_BREAK_RE = re.compile(r"\r\n?+|\n")
_TASK_RE = re.compile(r"\[([ xX])\](?=[ \t]|$)")
# a line that opens or closes a fence, for the readers that still walk a template line by line (its
# parser of parts); where a code block starts and ends is the Outline's, by CommonMark's rule
FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
# an ATX heading's opening #s and the whitespace after them, for the same line-by-line readers; the text
# is the rest of the line, taken in Python (no pattern over a long line)
ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:\s++|$)")
_UNDERLINE_RE = re.compile(r"\s{0,3}(=++|-++)\s*+")


def atx_heading(line: str) -> tuple[int, str] | None:
    """The level of the ATX heading a line is read alone, and its text without the closing #s; None
    when it is not one."""
    m = ATX_RE.match(line)
    if m is None:
        return None
    return len(m.group(1)), line[m.end() :].strip().rstrip("#").rstrip()


def underline_level(line: str) -> int:
    """1 or 2 when a line alone is a setext underline ('===' or '---'), else 0."""
    m = _UNDERLINE_RE.fullmatch(line)
    return 0 if m is None else 1 if m.group(1)[0] == "=" else 2


# perfkit's rule for a template's box line: a task item ('- [ ] text'), or a bare '[ ] text' some
# templates write without a list marker (GitHub shows it as text, and people still tick it)
BOX_RE = re.compile(
    r"^(?P<lead>\s*+(?:(?:[-*+]|\d{1,9}[.)])\s++)?\[)(?P<mark>[ xX])(?P<close>\]\s++)(?P<text>(?:.*\S)?)\s*$"
)
_KINDS: dict[str, Kind] = {
    "heading_open": "heading",
    "paragraph_open": "paragraph",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "list_item_open": "item",
    "fence": "code",
    "code_block": "code",
    "html_block": "html",
    "table_open": "table",
    "blockquote_open": "quote",
    "hr": "rule",
}


@dataclass(frozen=True)
class Block:
    """One block: its kind, its lines [start, end) (0-based) and what CommonMark says of it."""

    kind: Kind
    start: int
    end: int
    depth: int  # how many blocks hold it (list, item, quote)
    level: int = 0  # heading: 1 to 6
    style: str = ""  # heading: atx or setext; code: fence or indent; list: bullet or ordered; html: comment
    marker: str = ""  # heading: its #s, "=" or "-"; list and item: '-', '*', '+', '.' or ')'; fence: its run
    info: str = ""  # fence: the info string
    number: int | None = None  # ordered item: its number
    task: str = ""  # item: ' ', 'x' or 'X' when it starts with a task box
    closed: bool = True  # fence: a closing fence was found (else it runs to the end of its container)
    text: str = ""  # heading, paragraph, table row: the inline text; html and code: the content


def split_lines(text: str) -> list[str]:
    """The lines of text at CommonMark's line endings: LF, CRLF and a lone CR."""
    return _LINE_BREAK_RE.split(text)


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    md.core.ruler.disable(["inline", "text_join"])  # blocks only: inline spans are read in spans.py
    return md


def _block(t: Token, nxt: Token | None) -> Block | None:
    kind = _KINDS.get(t.type)
    if kind is None or t.map is None:
        return None
    start, end = t.map
    depth = t.level
    if kind == "heading":
        text = nxt.content if nxt is not None and nxt.type == "inline" else ""
        style = "atx" if t.markup.startswith("#") else "setext"
        return Block(kind, start, end, depth, level=int(t.tag[1]), style=style, marker=t.markup, text=text)
    if kind == "code":
        if t.type == "code_block":
            return Block(kind, start, end, depth, style="indent", text=t.content)
        closed = end - start == t.content.count("\n") + 2
        return Block(
            kind, start, end, depth, style="fence", marker=t.markup, info=t.info, closed=closed, text=t.content
        )
    if kind == "html":
        style = "comment" if t.content.lstrip().startswith("<!--") else ""
        return Block(kind, start, end, depth, style=style, text=t.content)
    if kind == "list":
        return Block(
            kind, start, end, depth, style="ordered" if t.type == "ordered_list_open" else "bullet", marker=t.markup
        )
    if kind == "item":
        number = int(t.info) if t.info.isdigit() else None
        return Block(kind, start, end, depth, marker=t.markup, number=number)
    if kind == "paragraph":
        return Block(kind, start, end, depth, text=nxt.content if nxt is not None else "")
    return Block(kind, start, end, depth)


def parse_blocks(text: str) -> list[Block]:
    """Every block of text in document order (containers before what they hold), with its lines."""
    tokens = _parser().parse(text)
    out: list[Block] = []
    for k, t in enumerate(tokens):
        b = _block(t, tokens[k + 1] if k + 1 < len(tokens) else None)
        if b is None:
            continue
        if b.kind == "paragraph" and out and out[-1].kind == "item" and out[-1].start == b.start:
            m = _TASK_RE.match(b.text)  # the item's first paragraph: only its first line holds a box
            if m:
                out[-1] = replace(out[-1], task=m.group(1))
        out.append(b)
    return out


_NONE: list[tuple[int, int]] = []  # shared by every line with nothing hidden: never appended to
_NO_SPANS: list[spans.Span] = []


@dataclass
class Outline:
    """A text's blocks and, per line, what a reader of that line must know."""

    lines: list[str]
    blocks: list[Block]
    code: list[Block | None] = field(default_factory=list)  # the code block holding the line (fences included)
    html: list[Block | None] = field(default_factory=list)  # the HTML block holding the line
    heading: list[Block | None] = field(default_factory=list)  # the heading the line is part of
    item: list[Block | None] = field(default_factory=list)  # the list item that starts on the line
    table: list[bool] = field(default_factory=list)
    spans: list[list[spans.Span]] = field(default_factory=list)  # code spans and raw HTML, per line
    comments: list[list[tuple[int, int]]] = field(default_factory=list)  # hidden stretches, per line
    in_comment: list[bool] = field(default_factory=list)  # the line starts inside a comment
    details: list[int] = field(default_factory=list)  # open <details> at the start of the line
    details_opened: list[int] = field(default_factory=list)  # <details> opened on the line
    details_closed: list[int] = field(default_factory=list)  # </details> on the line

    def code_spans(self, i: int) -> list[tuple[int, int]]:
        return [(s.start, s.end) for s in self.spans[i] if s.kind == "code"]

    def hidden(self, i: int) -> bool:
        """The line starts inside a code block, a comment or a <details> block (perfkit's quiet lines)."""
        return self.code[i] is not None or self.in_comment[i] or self.details[i] > 0

    def heading_at(self, i: int) -> Block | None:
        h = self.heading[i]
        return h if h is not None and h.start == i else None


def _inline_lines(o: Outline) -> list[tuple[int, int]]:
    """Runs of lines [a, b) whose text is one inline text: paragraphs, headings (text lines), table rows."""
    runs: list[tuple[int, int]] = []
    for b in o.blocks:
        if b.kind == "paragraph":
            runs.append((b.start, b.end))
        elif b.kind == "heading":
            runs.append((b.start, b.end if b.style == "atx" else b.end - 1))
        elif b.kind == "table":
            runs += [(i, i + 1) for i in range(b.start, b.end) if i != b.start + 1]
    return runs


def _spans(o: Outline) -> None:
    covered = [False] * len(o.lines)
    for blk in o.blocks:
        if blk.kind in ("code", "html", "paragraph", "heading", "table", "rule"):
            covered[blk.start : min(blk.end, len(o.lines))] = [True] * (min(blk.end, len(o.lines)) - blk.start)
    runs = _inline_lines(o) + [(i, i + 1) for i, c in enumerate(covered) if not c and o.lines[i].strip()]
    for a, end in runs:
        b = min(end, len(o.lines))
        if b - a == 1:
            o.spans[a] = spans.scan(o.lines[a])
            continue
        starts, pos = [], 0
        for i in range(a, b):
            starts.append(pos)
            pos += len(o.lines[i]) + 1
        k = 0
        for s in spans.scan("\n".join(o.lines[a:b])):
            while k + 1 < b - a and starts[k + 1] <= s.start:
                k += 1
            j = k
            while j < b - a and starts[j] < s.end:  # a span over a line break is cut at each line
                lo, hi = max(s.start, starts[j]) - starts[j], min(s.end, starts[j] + len(o.lines[a + j])) - starts[j]
                if hi > lo:
                    if o.spans[a + j] is _NO_SPANS:
                        o.spans[a + j] = []
                    o.spans[a + j].append(spans.Span(s.kind, lo, hi))
                j += 1


def _carried(line: str, line_spans: list[spans.Span]) -> tuple[list[tuple[int, int]], bool]:
    """A comment carried into a paragraph, heading or table row: escaped text never closes it, only a
    `-->` inside raw HTML does (the page gets that as markup). Complete comments after it hide too."""
    for s in line_spans:
        end = line.find("-->", s.start, s.end) if s.kind != "code" else -1
        if end >= 0:
            after = [(x.start, x.end) for x in line_spans if x.kind == "comment" and x.start >= end + 3]
            return [(0, end + 3), *after], False
    return [(0, len(line))], True


def _comments_and_details(o: Outline) -> None:
    """Comments and <details> depth as the page reads them: carried over lines by raw HTML only."""
    open_comment, depth = False, 0
    for i, line in enumerate(o.lines):
        o.in_comment.append(open_comment)
        o.details.append(depth)
        opened = closed = 0
        if open_comment and "-->" not in line:  # the common case of a long comment: the whole line, still open
            hidden = [(0, len(line))] if line else _NONE
        elif o.code[i] is not None:  # a code block is text on the page: it neither opens nor closes
            hidden = _NONE
        elif o.html[i] is not None:
            hidden, open_comment = (
                html.comment_spans(line, open_comment) if "<!--" in line or open_comment else (_NONE, False)
            )
        elif open_comment:
            hidden, open_comment = _carried(line, o.spans[i])
        else:
            hidden = [(s.start, s.end) for s in o.spans[i] if s.kind == "comment"] if o.spans[i] else _NONE
        o.comments.append(hidden)
        if o.code[i] is None and "<" in line:
            _code_elements(o, i, hidden)
            visible = _blank(line, hidden)
            raw = o.html[i] is not None
            tags = [visible] if raw else [visible[s.start : s.end] for s in o.spans[i] if s.kind == "tag"]
            opened = sum(len(html.DETAILS_OPEN_RE.findall(t)) for t in tags)
            closed = sum(len(html.DETAILS_CLOSE_RE.findall(t)) for t in tags)
        o.details_opened.append(opened)
        o.details_closed.append(closed)
        depth = max(0, depth + opened - closed)


def _code_elements(o: Outline, i: int, hidden: list[tuple[int, int]]) -> None:
    """The text of a `<code>`, `<pre>` or `<kbd>` element written in raw HTML on line i, as code spans."""
    line = _blank(o.lines[i], hidden)
    if o.html[i] is None:  # in a paragraph, only where both tags are raw HTML, not inside a code span
        tags = {s.start for s in o.spans[i] if s.kind == "tag"}
        found = [m for m in html.CODE_ELEMENT_RE.finditer(line) if m.start() in tags]
    else:
        found = list(html.CODE_ELEMENT_RE.finditer(line))
    if found:
        o.spans[i] = sorted(
            o.spans[i] + [spans.Span("code", m.start(2), m.end(2)) for m in found], key=lambda s: s.start
        )


def _blank(s: str, spans: list[tuple[int, int]]) -> str:
    """s with every span replaced by spaces, in one pass."""
    if not spans:
        return s
    out, pos = [], 0
    for start, end in sorted(spans):
        start = max(start, pos)
        if end <= start:
            continue
        out += [s[pos:start], " " * (end - start)]
        pos = end
    out.append(s[pos:])
    return "".join(out)


def outline(text: str) -> Outline:
    """The blocks of text and the per-line facts built from them, in time linear in the text.

    The last few outlines are kept: readers of one template ask about the same text several times
    (its sections, then the boxes and fields of each). An Outline is shared: read it, never change it."""
    return _outline(text)


@lru_cache(maxsize=4)  # a 1 MB template holds about 25 MB of outline: four at most
def _outline(text: str) -> Outline:
    lines = split_lines(text)
    n = len(lines)
    o = Outline(lines=lines, blocks=parse_blocks(text))
    o.code, o.html, o.heading, o.item = [None] * n, [None] * n, [None] * n, [None] * n
    o.table = [False] * n
    o.spans = [_NO_SPANS] * n  # one shared empty list: a line with spans gets a list of its own
    for b in o.blocks:
        stop = min(b.end, n)
        if b.kind == "code":
            o.code[b.start : stop] = [b] * (stop - b.start)
        elif b.kind == "html":
            o.html[b.start : stop] = [b] * (stop - b.start)
        elif b.kind == "heading":
            o.heading[b.start : stop] = [b] * (stop - b.start)
        elif b.kind == "table":
            o.table[b.start : stop] = [True] * (stop - b.start)
        elif b.kind == "item" and o.item[b.start] is None:
            o.item[b.start] = b
    _spans(o)
    _comments_and_details(o)
    return o


blank = _blank
