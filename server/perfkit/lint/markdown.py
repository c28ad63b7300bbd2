"""A Markdown text seen the way the wording rules need it: prose only, with positions kept.

Rules search masked copies of each line in which code, HTML comments, URLs, tags and the repo's
own template text are blanked with spaces. Blanking instead of deleting keeps every column
right, so a finding points at the exact character a writer must change.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from perfkit.templatetext import norm_heading

__all__ = ["norm_heading"]  # rules and callers compare headings through here

_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_INLINE_CODE_RE = re.compile(r"(`+)(.+?)\1")
_URL_RE = re.compile(r"\]\([^)\s]*\)|<https?://[^>\s]*>|https?://[^\s)>\]]+")
_TAG_RE = re.compile(
    r"</?(?:details|summary|br|p|div|span|sub|sup|code|pre|kbd|img|a|hr|table|tr|td|th|"
    r"ul|ol|li)\b[^>]*>",
    re.I,
)
_CHECKBOX_RE = re.compile(r"^(\s*[-*+]\s+\[)([ xX])(\]\s*)")
OWN_SUBSECTIONS = {"speedup result"}


def norm_line(line: str) -> str:
    """A line compared with the repo's template: boxes unticked, spacing collapsed."""
    return re.sub(r"\s+", " ", _CHECKBOX_RE.sub(lambda m: m.group(1) + " " + m.group(3), line)).strip()


def _blank(s: str, start: int, end: int) -> str:
    return s[:start] + " " * (end - start) + s[end:]


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
        return self.__dict__[key]

    def figures(self, i: int) -> list:
        """The figures of prose line i (cached: several rules ask)."""
        from perfkit.lint.numbers import figures_in

        cache = self.__dict__.setdefault("_figures", {})
        if i not in cache:
            cache[i] = figures_in(i, self.prose[i])
        return cache[i]

    def sections(self) -> list[tuple[str, range]]:
        out: list[tuple[str, range]] = []
        start = 0
        for i in range(1, len(self.lines) + 1):
            if i == len(self.lines) or self.section[i] != self.section[start]:
                out.append((self.section_names[self.section[start]], range(start, i)))
                start = i
        return out


def parse(text: str, repo_lines: set[str] | None = None) -> Doc:
    """Split text into lines and build the masks, sections and table flags."""
    lines = text.replace("\r\n", "\n").split("\n")
    doc = Doc(lines=lines)
    repo_norm = sorted({norm_line(x) for x in (repo_lines or set()) if len(norm_line(x)) >= 3}, key=len, reverse=True)
    in_fence: str | None = None
    in_comment = False
    section = 0
    doc.section_names = ["(start)"]
    in_details = False
    for idx, raw in enumerate(lines):
        prose = raw
        code = raw
        bare = raw  # only comments blanked: what a reader sees, for headings
        fenced = False
        m = _FENCE_RE.match(raw)
        if in_fence:
            fenced = True
            if m and m.group(1)[0] == in_fence[0] and len(m.group(1)) >= len(in_fence):
                in_fence = None
        elif m and not in_comment:
            in_fence = m.group(1)
            fenced = True
        if fenced:
            prose = " " * len(raw)
        else:
            # HTML comments, possibly spanning lines
            pos = 0
            while pos <= len(raw):
                if in_comment:
                    end = raw.find("-->", pos)
                    stop = len(raw) if end == -1 else end + 3
                    prose, code = _blank(prose, pos, stop), _blank(code, pos, stop)
                    bare = _blank(bare, pos, stop)
                    if end == -1:
                        break
                    in_comment = False
                    pos = stop
                else:
                    start = raw.find("<!--", pos)
                    if start == -1:
                        break
                    in_comment = True
                    pos = start
            for rx in (_URL_RE, _TAG_RE):
                for mm in rx.finditer(raw):
                    prose, code = _blank(prose, mm.start(), mm.end()), _blank(code, mm.start(), mm.end())
            for mm in _INLINE_CODE_RE.finditer(prose):
                prose = _blank(prose, mm.start(), mm.end())
        # the repo's own text (template lines carried verbatim) is not ours to lint
        nl = norm_line(raw)
        for rl in repo_norm:
            if nl == rl or (nl.startswith(rl) and len(rl) >= 12):
                # blank the prefix of raw that corresponds to rl
                cut = _prefix_len(raw, rl)
                prose, code = _blank(prose, 0, cut), _blank(code, 0, cut)
                break
        h = None
        if not fenced:
            hm = _HEADING_RE.match(bare)
            if hm and hm.group(2).strip():
                h = (len(hm.group(1)), hm.group(2).strip())
        if h is not None:
            title_line = idx == 0 and h[0] == 1
            if title_line:
                doc.section_names.append("(title)")
                section = len(doc.section_names) - 1
            elif norm_heading(h[1]) not in OWN_SUBSECTIONS:
                doc.section_names.append(h[1])
                section = len(doc.section_names) - 1
        if re.search(r"<details\b", raw, re.I) and not fenced:
            in_details = True
            doc.section_names.append("(details)")
            section = len(doc.section_names) - 1
        doc.prose.append(prose)
        doc.code.append(code)
        doc.fenced.append(fenced)
        doc.heading.append(h)
        doc.section.append(section)
        doc.table.append(not fenced and raw.lstrip().startswith("|"))
        if in_details and re.search(r"</details>", raw, re.I):
            in_details = False
            doc.section_names.append("(after details)")
            section = len(doc.section_names) - 1
        if idx == 0 and h is not None and h[0] == 1:
            doc.section_names.append("(after title)")
            section = len(doc.section_names) - 1
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
