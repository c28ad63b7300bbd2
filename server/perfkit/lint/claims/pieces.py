"""The text cut into the pieces a claim is read from: the title, each sentence, each table cell, each chart.

A claim's metric, arm and statistic are read from the words around its figure, so the piece is
what counts as "around": a sentence of prose (a heading is one sentence), one cell of a table with
its row's label and its column's header, or one data line of a Mermaid chart with the legend that
names its arm. Every piece keeps the (line, column) of each of its characters, so a finding points
at the figure as written. One pass over the document; each piece is read once.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from perfkit.lint.markdown import Doc, norm_heading, paragraphs, sentences


@dataclass
class Piece:
    kind: str  # 'title', 'sentence', 'cell', 'chart'
    text: str  # the piece's prose, its spans joined by one space
    where: list[tuple[int, int, int]]  # (offset in text, line, column of that offset), one per span
    section: str = ""  # the normalised heading of the section it sits in
    row: str = ""  # a cell: its row's label
    column: str = ""  # a cell: its column's header
    table: str = ""  # a cell: 'result', 'commits', 'checks' or 'other'
    arm: str = ""  # a chart line: the arm its legend names ('baseline', 'pr') or ''
    values: list[tuple[float, int, int, str]] = field(default_factory=list)  # a chart line: (value, col, end, text)
    lead: str = ""  # a list item: the paragraph that introduces the list ("Tried and not kept:")
    commit: str = ""  # a cell of the per-commit table: the commit its row names

    def at(self, offset: int) -> tuple[int, int]:
        """(line, column) of a character of text."""
        k = max(bisect.bisect_right(self.where, (offset, 1 << 62, 0)) - 1, 0)
        base, line, col = self.where[k]
        return line, col + (offset - base)


def _table_kind(header: list[str]) -> str:
    h = " | ".join(header)
    if "commit" in h:
        return "commits"
    if "recorded" in h or "tolerance" in h:
        return "checks"
    if "baseline" in h or "this pr" in h or "before" in h or "after" in h:
        return "result"
    return "other"


def _cells(line: str) -> list[tuple[int, int]]:
    """(start, end) of each cell of a table line, pipes excluded."""
    bars = [i for i, ch in enumerate(line) if ch == "|"]
    if not bars:
        return [(0, len(line))]
    edges = ([-1] if line[: bars[0]].strip() else []) + bars + ([len(line)] if line[bars[-1] + 1 :].strip() else [])
    return [(a + 1, b) for a, b in zip(edges, edges[1:], strict=False)]


def _table(doc: Doc, unit: list[int], section: str) -> list[Piece]:
    header = [doc.prose[unit[0]][a:b].strip().lower() for a, b in _cells(doc.prose[unit[0]])]
    kind = _table_kind(header)
    out = []
    if kind == "checks":
        return []  # a re-verification's figures: backed by its record, not by read_benchmark
    for i in unit[1:]:
        spans = _cells(doc.prose[i])
        if all(set(doc.prose[i][a:b].strip()) <= set("-: ") for a, b in spans):
            continue  # the separator line
        label = doc.prose[i][spans[0][0] : spans[0][1]].strip() if spans else ""
        sha = _SHA_RE.search(doc.code[i][spans[0][0] : spans[0][1]]) if spans and kind == "commits" else None
        for k, (a, b) in enumerate(spans):
            text = doc.prose[i][a:b]
            if not text.strip():
                continue
            column = header[k] if k < len(header) else ""
            piece = Piece("cell", text, [(0, i, a)], section, label, column, kind)
            piece.commit = sha.group(0).lower() if sha else ""
            out.append(piece)
    return out


_SHA_RE = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{7,40}(?![0-9A-Za-z])")
_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_LEGEND_RE = re.compile(r"line (\d+): ([^;)]+)", re.I)
_CHART_LINE_RE = re.compile(r"^\s*(?:line|bar)\s*\[(.*)\]\s*$")
_CHART_TITLE_RE = re.compile(r'^\s*title\s+"([^"]*)"')
_CHART_NUM_RE = re.compile(r"-?\d+(?:\.\d+)?")


def _arm_of(legend: str) -> str:
    low = legend.lower()
    if "baseline" in low or "before" in low:
        return "baseline"
    if "this pr" in low or "after" in low:
        return "pr"
    return ""


def _charts(doc: Doc) -> list[Piece]:
    """Each data line of a Mermaid xychart, with the chart's title and the arm its legend gives it."""
    out: list[Piece] = []
    for b in doc.outline.blocks:
        if b.kind != "code" or b.style != "fence" or b.marker[0] != "`" or not b.info.startswith("mermaid"):
            continue
        i = b.start
        legend = next((doc.lines[j] for j in range(i - 1, max(i - 4, -1), -1) if doc.lines[j].strip()), "")
        legends = {int(k): v.strip() for k, v in _LEGEND_RE.findall(legend)}
        title, k = "", 0
        for j in range(i + 1, min(b.end - (1 if b.closed else 0), len(doc.lines))):
            raw = doc.lines[j]
            t = _CHART_TITLE_RE.match(raw)
            if t:
                title = t.group(1)
            m = _CHART_LINE_RE.match(raw)
            if m:
                k += 1
                values = [
                    (float(v.group(0)), m.start(1) + v.start(), m.start(1) + v.end(), v.group(0))
                    for v in _CHART_NUM_RE.finditer(m.group(1))
                ]
                words = legends.get(k, "")
                out.append(Piece("chart", title, [(0, j, 0)], "(chart)", row=words, arm=_arm_of(words), values=values))
    return out


def split(doc: Doc) -> list[Piece]:
    """Every piece of the document, in order of position (charts last)."""
    out: list[Piece] = []
    names = doc.section_names
    lead, lead_section = "", -1
    for unit in paragraphs(doc):
        section = norm_heading(names[doc.section[unit[0]]]) if names else ""
        item = bool(_ITEM_RE.match(doc.prose[unit[0]]))
        if doc.section[unit[0]] != lead_section:
            lead, lead_section = "", doc.section[unit[0]]
        if not item and not doc.table[unit[0]] and not doc.heading[unit[0]]:
            lead = " ".join(doc.prose[i].strip() for i in unit)
        if doc.table[unit[0]]:
            out += _table(doc, unit, section)
            continue
        if unit[0] == 0 and doc.heading[0]:
            line = doc.prose[0]
            start = len(line) - len(line.lstrip("# "))
            out.append(Piece("title", line[start:], [(0, 0, start)], "(title)"))
            continue
        for sent in sentences(doc, unit):
            where, parts, pos = [], [], 0
            for i, s, e in sent:
                where.append((pos, i, s))
                parts.append(doc.prose[i][s:e])
                pos += e - s + 1
            text = " ".join(parts)
            if text.strip():
                out.append(Piece("sentence", text, where, section, lead=lead if item else ""))
    return out + _charts(doc)
