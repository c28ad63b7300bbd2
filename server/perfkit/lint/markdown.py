"""A Markdown text seen the way the wording rules need it: prose only, with positions kept.

Rules search masked copies of each line in which code, HTML comments, URLs, tags and the repo's
own template text are blanked with spaces. Blanking instead of deleting keeps every column
right, so a finding points at the exact character a writer must change.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from perfkit.repo.template_text import fence_step, norm_heading

if TYPE_CHECKING:
    from perfkit.lint.numbers import Figure

__all__ = ["norm_heading"]  # rules and callers compare headings through here

# The heading's text is everything after the marks; the closing #s and spaces are cut in code, as
# a lazy group before `\s*#*\s*$` would try every split of a long run of them.
_HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s++(.*)$")
# A code span opens at the start of a run of backticks only, so a long run is tried once.
_INLINE_CODE_RE = re.compile(r"(?<!`)(`++)(.+?)\1")
_URL_RE = re.compile(r"\]\([^)\s]*\)|<https?://[^>\s]*>|https?://[^\s)>\]]+")
_TAG_RE = re.compile(
    r"</?(?:details|summary|br|p|div|span|sub|sup|code|pre|kbd|img|a|hr|table|tr|td|th|"
    r"ul|ol|li)\b[^<>]*+>",
    re.I,
)
_CHECKBOX_RE = re.compile(r"^(\s*[-*+]\s+\[)([ xX])(\]\s*)")
OWN_SUBSECTIONS = {"speedup result"}
_DETAILS_OPEN_RE = re.compile(r"<details\b", re.I)
_DETAILS_CLOSE_RE = re.compile(r"</details>", re.I)


def norm_line(line: str) -> str:
    """A line compared with the repo's template: boxes unticked, spacing collapsed."""
    return re.sub(r"\s+", " ", _CHECKBOX_RE.sub(lambda m: m.group(1) + " " + m.group(3), line)).strip()


@dataclass
class Doc:
    lines: list[str]
    prose: list[str] = field(default_factory=list)  # code, comments, URLs, tags, repo text blanked
    code: list[str] = field(default_factory=list)  # comments, URLs, repo text blanked; code kept
    fenced: list[bool] = field(default_factory=list)
    heading: list[tuple[int, str] | None] = field(default_factory=list)
    section: list[int] = field(default_factory=list)
    section_names: list[str] = field(default_factory=list)
    table: list[bool] = field(default_factory=list)
    live: list[str] = field(default_factory=list)  # what GitHub renders as written: comments, fences, repo text blanked

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


def _blank_spans(s: str, spans: list[tuple[int, int]]) -> str:
    """s with every span replaced by spaces, in one pass (a line with many links stays linear)."""
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


def _comment_spans(raw: str, in_comment: bool) -> tuple[list[tuple[int, int]], bool]:
    """The spans of raw inside HTML comments, and whether a comment is still open at its end."""
    spans, pos = [], 0
    while pos <= len(raw):
        if in_comment:
            end = raw.find("-->", pos)
            stop = len(raw) if end == -1 else end + 3
            spans.append((pos, stop))
            if end == -1:
                break
            in_comment, pos = False, stop
        else:
            start = raw.find("<!--", pos)
            if start == -1:
                break
            in_comment, pos = True, start
    return spans, in_comment


class _Masker:
    """Line by line: fences and comments carried across lines, the repo's own lines blanked."""

    def __init__(self, repo_lines: set[str] | None) -> None:
        norm = {norm_line(x) for x in (repo_lines or set())}
        self.repo_norm = sorted((x for x in norm if len(x) >= 3), key=len, reverse=True)
        self.fence: str | None = None
        self.comment = False
        self.live = ""

    def _fenced(self, raw: str) -> bool:
        self.fence, fenced = fence_step(self.fence, self.comment, raw)
        return fenced

    def _repo_cut(self, raw: str) -> int:
        """How much of raw, from its start, is the repo's template text carried verbatim."""
        nl = norm_line(raw)
        for rl in self.repo_norm:
            # a line that starts with the repo's text is ours after it: a long prefix, or a label to
            # fill in ("**GPU**:"), however short
            if nl == rl or (nl.startswith(rl) and (len(rl) >= 12 or rl.endswith(":"))):
                return _prefix_len(raw, rl)
        return 0

    def mask(self, raw: str) -> tuple[str, str, str, bool]:
        """(prose, code, bare, fenced): bare has only comments blanked, what a reader sees."""
        fenced = self._fenced(raw)
        if fenced:
            prose, code, bare = " " * len(raw), raw, raw
        else:
            comments, self.comment = _comment_spans(raw, self.comment)
            links = [(m.start(), m.end()) for rx in (_URL_RE, _TAG_RE) for m in rx.finditer(raw)]
            code = _blank_spans(raw, comments + links)
            bare = _blank_spans(raw, comments)
            prose = _blank_spans(code, [(m.start(), m.end()) for m in _INLINE_CODE_RE.finditer(code)])
        cut = self._repo_cut(raw)
        self.live = " " * len(raw) if fenced else bare
        if cut:
            prose, code = _blank_spans(prose, [(0, cut)]), _blank_spans(code, [(0, cut)])
            self.live = _blank_spans(self.live, [(0, cut)])
        return prose, code, bare, fenced


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

    def before(self, idx: int, raw: str, h: tuple[int, str] | None, fenced: bool) -> int:
        if h is not None:
            if idx == 0 and h[0] == 1:
                self._open("(title)")
            elif norm_heading(h[1]) not in OWN_SUBSECTIONS:
                self._open(h[1])
        if not fenced and _DETAILS_OPEN_RE.search(raw):
            self.in_details = True
            self._open("(details)")
        return self.current

    def after(self, idx: int, raw: str, h: tuple[int, str] | None) -> None:
        if self.in_details and _DETAILS_CLOSE_RE.search(raw):
            self.in_details = False
            self._open("(after details)")
        if idx == 0 and h is not None and h[0] == 1:
            self._open("(after title)")


def _heading(bare: str, fenced: bool) -> tuple[int, str] | None:
    hm = None if fenced else _HEADING_RE.match(bare)
    title = hm.group(2).rstrip().rstrip("#").strip() if hm else ""
    return (len(hm.group(1)), title) if hm and title else None


def parse(text: str, repo_lines: set[str] | None = None) -> Doc:
    """Split text into lines and build the masks, sections and table flags, in one linear pass."""
    lines = text.replace("\r\n", "\n").split("\n")
    doc = Doc(lines=lines)
    masker = _Masker(repo_lines)
    sections = _Sections(doc)
    for idx, raw in enumerate(lines):
        prose, code, bare, fenced = masker.mask(raw)
        h = _heading(bare, fenced)
        doc.section.append(sections.before(idx, raw, h, fenced))
        doc.prose.append(prose)
        doc.live.append(masker.live)
        doc.code.append(code)
        doc.fenced.append(fenced)
        doc.heading.append(h)
        doc.table.append(not fenced and raw.lstrip().startswith("|"))
        sections.after(idx, raw, h)
    return doc


def _prefix_len(raw: str, norm_prefix: str) -> int:
    """How many characters of raw produce norm_prefix once normalised."""
    for cut in range(len(norm_prefix), len(raw) + 1):
        if norm_line(raw[:cut]) == norm_prefix:
            return cut
    return len(raw)


def paragraphs(doc: Doc) -> list[list[int]]:
    """Groups of line indexes: each paragraph, list item, heading or table is one unit."""
    units: list[list[int]] = []
    cur: list[int] = []
    cur_table = False
    for i, line in enumerate(doc.prose):
        blank = not line.strip()
        is_item = bool(re.match(r"^\s*([-*+]|\d+[.)])\s+", line))
        if blank or doc.heading[i] or is_item or doc.table[i] != cur_table:
            if cur:
                units.append(cur)
            cur = []
        if blank:
            cur_table = False
            continue
        cur_table = doc.table[i]
        cur.append(i)
        if doc.heading[i]:
            units.append(cur)
            cur = []
    if cur:
        units.append(cur)
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
