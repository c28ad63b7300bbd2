"""A Markdown text seen the way the wording rules need it: prose only, with positions kept.

Rules search masked copies of each line in which code, HTML comments, URLs, tags and the repo's
own template text are blanked with spaces. Blanking instead of deleting keeps every column
right, so a finding points at the exact character a writer must change. Which lines are code,
which stretches are code spans or comments, where headings, tables and `<details>` blocks are:
all of it is CommonMark's reading from perfkit.markdown, the same one the writer of drafts uses.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from perfkit.markdown import blocks, html
from perfkit.repo.template_text import norm_heading

if TYPE_CHECKING:
    from perfkit.lint.numbers import Figure

__all__ = ["norm_heading"]  # rules and callers compare headings through here

_URL_RE = re.compile(r"\]\([^)\s]*\)|<https?://[^>\s]*>|https?://[^\s)>\]]+")
# perfkit's own placeholders ('<answer 'Test plan'>', '<one of: x86 (64 bits) | arm64>', '#<issue>'): not
# prose, so no rule reads their words or numbers
_PLACEHOLDER_RE = re.compile(
    r"<(?![/!])(?!(?:" + html.names() + r"|https?:|mailto:)\b)"
    r"[A-Za-z#'][^<>\n]{0,4000}+>",
    re.I,
)
OWN_SUBSECTIONS = {"speedup result"}


def norm_line(line: str) -> str:
    """A line compared with the repo's template: boxes unticked, spacing collapsed."""
    m = blocks.BOX_RE.match(line)
    if m:
        line = f"{m.group('lead')} {m.group('close')}{m.group('text')}"
    return re.sub(r"\s+", " ", line).strip()


@dataclass
class Doc:
    lines: list[str]
    outline: blocks.Outline
    prose: list[str] = field(default_factory=list)  # code, comments, URLs, tags, repo text blanked
    code: list[str] = field(default_factory=list)  # comments, URLs, repo text blanked; code kept
    fenced: list[bool] = field(default_factory=list)  # in a code block (fenced or indented), fences included
    heading: list[tuple[int, str] | None] = field(default_factory=list)
    section: list[int] = field(default_factory=list)
    section_names: list[str] = field(default_factory=list)
    table: list[bool] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)  # what a reader sees: comments and repo text blanked
    live: list[str] = field(default_factory=list)  # what GitHub renders as markup: shown, without code

    def joined(self, mask: str = "prose") -> tuple[str, list[int]]:
        """The masked lines joined by newlines, and the offset where each line starts."""
        key = "_joined_" + mask
        if key not in self.__dict__:
            lines = self.prose if mask == "prose" else self.code
            starts, pos = [], 0
            for line in lines:
                starts.append(pos)
                pos += len(line) + 1
            self.__dict__[key] = ("\n".join(lines), starts)
        joined: tuple[str, list[int]] = self.__dict__[key]
        return joined

    def figures(self, i: int) -> list[Figure]:
        """The figures of prose line i (cached: several rules ask)."""
        from perfkit.lint.numbers import figures_in

        cache: dict[int, list[Figure]] = self.__dict__.setdefault("_figures", {})
        if i not in cache:
            cache[i] = figures_in(i, self.prose[i])
        return cache[i]

    def figures_between(self, i: int, start: int, end: int) -> list[Figure]:
        """The figures of line i that lie within [start, end): a bisection, so a long line stays linear."""
        figs = self.figures(i)
        starts: dict[int, list[int]] = self.__dict__.setdefault("_figure_starts", {})
        if i not in starts:
            starts[i] = [f.start for f in figs]
        lo = bisect.bisect_left(starts[i], start)
        hi = bisect.bisect_left(starts[i], end)
        return [f for f in figs[lo:hi] if f.end <= end]

    def sections(self) -> list[tuple[str, range]]:
        out: list[tuple[str, range]] = []
        start = 0
        for i in range(1, len(self.lines) + 1):
            if i == len(self.lines) or self.section[i] != self.section[start]:
                out.append((self.section_names[self.section[start]], range(start, i)))
                start = i
        return out

    def details_opened(self, i: int) -> bool:
        """A <details> block opens on line i (in raw HTML, as the page reads it)."""
        return self.outline.details_opened[i] > 0

    def details_closed(self, i: int) -> bool:
        return self.outline.details_closed[i] > 0


class _RepoText:
    """The stretch of a line, from its start, that is the repo's template text carried verbatim."""

    def __init__(self, repo_lines: set[str] | None) -> None:
        norm = {norm_line(x) for x in (repo_lines or set())}
        self.repo_norm = {x for x in norm if len(x) >= 3}
        # prefix lengths to try, longest first: a line is looked up once per distinct length, never
        # compared with every repo line, so masking stays linear in the text and the template
        self.lengths = sorted({len(x) for x in self.repo_norm})

    def cut(self, raw: str) -> int:
        """How much of raw, from its start, is the repo's template text carried verbatim."""
        if not self.repo_norm:
            return 0
        nl = norm_line(raw)
        if nl in self.repo_norm:
            return len(raw)
        # a line that starts with the repo's text is ours after it: a long prefix, or a label to fill in
        # ("**GPU**:"), however short; only lengths shorter than the line are tried, longest first
        start = bisect.bisect_left(self.lengths, len(nl))
        for size in reversed(self.lengths[:start]):
            if (size >= 12 or nl[size - 1] == ":") and nl[:size] in self.repo_norm:
                return _prefix_len(raw, nl[:size])
        return 0


class _Sections:
    """Names the section each line belongs to: the title, each heading, the Details block, after it."""

    def __init__(self, doc: Doc) -> None:
        self.doc = doc
        doc.section_names = ["(start)"]
        self.current = 0
        self.in_details = False

    def _open(self, name: str) -> None:
        self.doc.section_names.append(name)
        self.current = len(self.doc.section_names) - 1

    def before(self, idx: int, h: tuple[int, str] | None) -> int:
        if h is not None:
            if idx == 0 and h[0] == 1:
                self._open("(title)")
            elif norm_heading(h[1]) not in OWN_SUBSECTIONS:
                self._open(h[1])
        if self.doc.details_opened(idx) and not self.in_details:
            self.in_details = True
            self._open("(details)")
        return self.current

    def after(self, idx: int, h: tuple[int, str] | None) -> None:
        o = self.doc.outline
        if self.in_details and o.details_closed[idx] and (idx + 1 >= len(o.details) or o.details[idx + 1] == 0):
            self.in_details = False
            self._open("(after details)")
        if idx == 0 and h is not None and h[0] == 1:
            self._open("(after title)")


def _heading(o: blocks.Outline, i: int) -> tuple[int, str] | None:
    """(level, text) of the heading that starts on line i, its comments left out; None for an empty one."""
    b = o.heading_at(i)
    if b is None:
        return None
    title = " ".join(html.strip_comments(b.text).split())
    return (b.level, title) if title else None


def _masks(o: blocks.Outline, i: int) -> tuple[str, str, str]:
    """(prose, code, shown) of line i outside code blocks."""
    raw = o.lines[i]
    comments = o.comments[i]
    links = [(m.start(), m.end()) for rx in (_URL_RE, html.MARKUP_TAG_RE, _PLACEHOLDER_RE) for m in rx.finditer(raw)]
    code = blocks.blank(raw, comments + links)
    prose = blocks.blank(code, o.code_spans(i))
    return prose, code, blocks.blank(raw, comments)


def parse(text: str, repo_lines: set[str] | None = None) -> Doc:
    """The text's CommonMark outline (perfkit.markdown) turned into masks, sections and table flags."""
    o = blocks.outline(text)
    doc = Doc(lines=o.lines, outline=o)
    repo = _RepoText(repo_lines)
    sections = _Sections(doc)
    for idx, raw in enumerate(o.lines):
        fenced = o.code[idx] is not None
        if fenced:
            prose, code, shown = " " * len(raw), raw, raw
        else:
            prose, code, shown = _masks(o, idx)
        live = " " * len(raw) if fenced else blocks.blank(shown, o.code_spans(idx))
        cut = repo.cut(raw)
        if cut:
            prose, code = blocks.blank(prose, [(0, cut)]), blocks.blank(code, [(0, cut)])
            shown, live = blocks.blank(shown, [(0, cut)]), blocks.blank(live, [(0, cut)])
        h = None if fenced else _heading(o, idx)
        doc.section.append(sections.before(idx, h))
        doc.prose.append(prose)
        doc.code.append(code)
        doc.shown.append(shown)
        doc.live.append(live)
        doc.fenced.append(fenced)
        doc.heading.append(h)
        doc.table.append(o.table[idx])
        sections.after(idx, h)
    return doc


def _prefix_len(raw: str, norm_prefix: str) -> int:
    """How many characters of raw produce norm_prefix once normalised (spaces collapsed), in one pass."""
    want, count, pending, started = len(norm_prefix), 0, False, False
    for i, ch in enumerate(raw):
        if ch.isspace():
            pending = pending or started
            continue
        count += 2 if pending else 1
        pending, started = False, True
        if count >= want:
            return i + 1
    return len(raw)


def paragraphs(doc: Doc) -> list[list[int]]:
    """Groups of line indexes: each paragraph, list item, heading, table or HTML block is one unit.

    Units are CommonMark's blocks (perfkit.markdown), cut at lines with no prose left; a setext
    heading's underline is not a line of its own."""
    o = doc.outline
    starts: dict[int, int] = {}
    for b in o.blocks:
        if b.kind in ("paragraph", "heading", "table", "html"):
            starts.setdefault(b.start, b.end if b.style != "setext" else b.end - 1)
    units: list[list[int]] = []
    i = 0
    while i < len(doc.lines):
        end = starts.get(i, i + 1)
        cur: list[int] = []
        for j in range(i, min(end, len(doc.lines))):
            if not doc.prose[j].strip():
                if cur:
                    units.append(cur)
                cur = []
                continue
            cur.append(j)
        if cur:
            units.append(cur)
        h = o.heading[i]
        i = h.end if h is not None and h.style == "setext" else max(end, i + 1)
    return units


_SENT_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z(<*\d\"'])")


def sentences(doc: Doc, unit: list[int]) -> list[list[tuple[int, int, int]]]:
    """Sentences of a paragraph as lists of (line, start, end) spans over the prose mask."""
    spans: list[tuple[int, int, int]] = []
    for i in unit:
        spans.append((i, 0, len(doc.prose[i])))
    # join with a separator, remember offsets
    text = ""
    offsets: list[tuple[int, int]] = []
    for i, s, e in spans:
        offsets.append((len(text), i))
        text += doc.prose[i][s:e] + " "
    out: list[list[tuple[int, int, int]]] = []
    start = 0
    bounds = [m.start() for m in _SENT_END_RE.finditer(text)] + [len(text)]
    starts = [off for off, _ in offsets]
    for b in bounds:
        parts = []
        # only the lines that overlap [start, b): a paragraph of thousands of lines stays linear
        k = max(bisect.bisect_right(starts, start) - 1, 0)
        while k < len(offsets) and offsets[k][0] < b:
            off, i = offsets[k]
            ln = len(doc.prose[i])
            lo, hi = max(start, off), min(b, off + ln)
            if lo < hi:
                parts.append((i, lo - off, hi - off))
            k += 1
        if parts:
            out.append(parts)
        start = b
    return out
