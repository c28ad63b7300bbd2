"""perfkit's Markdown layer reads a text the way CommonMark, and so GitHub, renders it.

The blocks come from markdown-it-py's block pass; these tests hold the layer's per-line reading
(code, headings, list items, tables, quotes, comments, <details>) to what markdown-it-py's own full
rendering puts around each line, on random documents built from the shapes that broke perfkit's
old fence model: fences of both characters and several lengths with and without info strings
(CommonMark closes a fence only on a bare run of its own character at least as long), lists, task
boxes, HTML blocks, comments, details blocks and headings. Each text line carries a unique marker,
found again in the rendered HTML, so every line is checked, not a sample.

`safe.inline` is held to its promise on any text: put anywhere on a line of perfkit's own
Markdown, it leaves the document's structure as it was, adds no raw HTML, link or image, leaves no
mention outside code, and shows the text as written.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from perfkit.markdown import blocks, html, safe, spans

FULL = MarkdownIt("commonmark").enable("table")
VOID = {"img", "br", "hr", "input", "meta", "link", "source", "area", "base", "col", "embed", "wbr"}

# ---- random documents --------------------------------------------------------------------------

M = "{m}"  # replaced by a unique marker word
FENCE = st.builds(
    lambda ch, n, info: ch * n + info, st.sampled_from("`~"), st.integers(3, 5), st.sampled_from(["", "text", "python"])
)
SHAPES = st.one_of(
    st.just([f"{M} text"]),
    st.just([""]),
    st.builds(lambda k: ["#" * k + f" {M}"], st.integers(1, 6)),
    st.builds(lambda u: [M, u], st.sampled_from(["===", "---"])),
    FENCE.map(lambda f: [f]),
    FENCE.map(lambda f: [f, f"{M} in code"]),
    st.sampled_from(
        [
            [f"- {M}"],
            [f"* {M}"],
            [f"1. {M}"],
            [f"2) {M}"],
            [f"- [ ] {M}"],
            [f"- [x] {M}"],
            [f"  - {M}"],
            [f"    {M}"],
            [f"> {M}"],
            [f"> - {M}"],
            ["<details>"],
            ["</details>"],
            ["<details><summary>Sum</summary>"],
            [f"<summary>{M}</summary>"],
            ["<div>"],
            ["</div>"],
            [f"<!-- {M}"],
            [f"{M} -->"],
            [f"<!-- {M} -->"],
            [f"{M} <!-- {M} --> {M}"],
            [f"| {M} | b |", "|---|---|", f"| {M} | c |"],
            ["***"],
            ["<div>", f"<!-- {M}", "", f"{M} --> {M}", "", "<p>-->", f"{M}"],  # a comment opened in raw HTML
            ["<details>", f"<!-- {M}", "", f"{M} <b title='-->'>{M}</b>"],  # closed by markup, not by text
            [f"{M} `code` and <b>{M}</b>"],
        ]
    ),
)
DOCS = st.lists(SHAPES, min_size=1, max_size=25)


def _build(shapes: list[list[str]]) -> tuple[str, dict[str, tuple[int, int]]]:
    """The document, and where each marker sits: (line, column)."""
    lines: list[str] = []
    where: dict[str, tuple[int, int]] = {}
    for shape in shapes:
        for line in shape:
            while M in line:
                marker = f"qz{len(where)}q"
                where[marker] = (len(lines), line.index(M))
                line = line.replace(M, marker, 1)
            lines.append(line)
    return "\n".join(lines) + "\n", where


class _Context(HTMLParser):
    """For each marker in rendered HTML (comments taken out), the elements around it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.found: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        for marker in re.findall(r"qz\d+q", data):
            self.found[marker] = list(self.stack)


def _rendered(src: str) -> tuple[dict[str, list[str]], set[str]]:
    """(elements around each marker outside comments, markers inside comments), as a browser reads them.

    The HTML escapes text, so every `<!--` and `-->` in it is markup: a comment runs from one to the next."""
    out = FULL.render(src)
    hidden: set[str] = set()
    kept, pos = [], 0
    while True:
        start = out.find("<!--", pos)
        if start < 0:
            kept.append(out[pos:])
            break
        kept.append(out[pos:start])
        end = out.find("-->", start + 4)
        stop = len(out) if end < 0 else end + 3
        hidden |= set(re.findall(r"qz\d+q", out[start:stop]))
        pos = stop
    parser = _Context()
    parser.feed("".join(kept))
    parser.close()
    return parser.found, hidden


def _covering(o: blocks.Outline, kind: str, i: int) -> bool:
    return any(b.kind == kind and b.start <= i < b.end for b in o.blocks)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS)
def test_every_line_is_read_as_markdown_it_renders_it(shapes):
    src, where = _build(shapes)
    o = blocks.outline(src)
    around, in_comment = _rendered(src)
    for marker, (i, col) in where.items():
        hidden = any(a <= col < b for a, b in o.comments[i])
        assert hidden == (marker in in_comment), (marker, i, src)
        if hidden or any(b.start <= i < b.end and o.in_comment[b.start] for b in o.blocks):
            continue  # a comment that closed mid-block swallowed the page's opening tags of that block
        ctx = around.get(marker)
        assert ctx is not None, (marker, src)
        assert (o.code[i] is not None) == ("pre" in ctx), (marker, i, src)
        level = o.heading[i].level if o.heading[i] is not None else 0
        assert level == next((int(t[1]) for t in ctx if re.fullmatch(r"h[1-6]", t)), 0), (marker, i, src)
        assert o.table[i] == ("td" in ctx or "th" in ctx), (marker, i, src)
        assert _covering(o, "item", i) == ("li" in ctx), (marker, i, src)
        assert _covering(o, "quote", i) == ("blockquote" in ctx), (marker, i, src)
        assert (o.details[i] > 0) == ("details" in ctx), (marker, i, src)


@settings(max_examples=300, deadline=None)
@given(DOCS)
def test_code_blocks_hold_exactly_what_markdown_it_renders_as_code(shapes):
    """Each code block's content, info string and whether it closed, against markdown-it's fence tokens."""
    src, _ = _build(shapes)
    o = blocks.outline(src)
    ours = [(b.start, b.end, b.style, b.info, b.text) for b in o.blocks if b.kind == "code"]
    theirs = [
        (t.map[0], t.map[1], "fence" if t.type == "fence" else "indent", t.info, t.content)
        for t in FULL.parse(src)
        if t.type in ("fence", "code_block") and t.map
    ]
    assert ours == theirs
    for b in o.blocks:
        if b.kind == "code" and b.style == "fence":
            last = o.lines[b.end - 1].strip().lstrip(">").strip()
            closes = b.end - b.start >= 2 and set(last) == {b.marker[0]} and len(last) >= len(b.marker)
            assert b.closed == closes, (b, src)


@pytest.mark.parametrize(
    "text,code_lines",
    [
        ("```\na\n```text\nb\n```\nc\n", [0, 1, 2, 3, 4]),  # an info string does not close a fence
        ("````\na\n```\nb\n````\nc\n", [0, 1, 2, 3, 4]),  # a shorter run does not close it
        ("~~~\na\n```\nb\n~~~\nc\n", [0, 1, 2, 3, 4]),  # nor a run of the other character
        ("```\na\n   ```  \nb\n", [0, 1, 2]),  # up to three spaces before, spaces after: closes
        ("```\na\n    ```\nb\n", [0, 1, 2, 3]),  # four spaces: a line of code, not a fence
        ("- a\n\n  ```\n  b\n- c\n", [2, 3]),  # a fence in a list item ends with the item
    ],
)
def test_fences_close_as_commonmark_says(text, code_lines):
    o = blocks.outline(text)
    assert [i for i in range(len(o.lines)) if o.code[i] is not None] == code_lines


def test_blocks_carry_their_markers_levels_boxes_and_info():
    o = blocks.outline("Title\n===\n\n## Two ##\n\n- [x] done\n- [ ] open\n\n3) third\n\n~~~~python\nx\n~~~~\n")
    kinds = [(b.kind, b.start, b.end) for b in o.blocks]
    assert ("heading", 0, 2) in kinds and ("heading", 3, 4) in kinds
    h1, h2 = (b for b in o.blocks if b.kind == "heading")
    assert (h1.level, h1.style, h1.text, h2.level, h2.style, h2.text) == (1, "setext", "Title", 2, "atx", "Two")
    items = [b for b in o.blocks if b.kind == "item"]
    assert [(b.marker, b.task, b.number) for b in items] == [("-", "x", None), ("-", " ", None), (")", "", 3)]
    fence = next(b for b in o.blocks if b.kind == "code")
    assert (fence.marker, fence.info, fence.closed, fence.text) == ("~~~~", "python", True, "x\n")


def test_line_endings_are_commonmark_s():
    """A lone CR ends a line, as it does on GitHub: a fence behind one is a fence."""
    assert blocks.split_lines("a\rb\r\nc\nd") == ["a", "b", "c", "d"]
    o = blocks.outline("x\r```\r@team\r```")
    assert [o.code[i] is not None for i in range(4)] == [False, True, True, True]


# ---- inline spans ------------------------------------------------------------------------------

INLINE_ATOMS = st.sampled_from(
    ["`", "``", "```", "\\`", "<b>", "</b>", "<img src=x>", "<!--", "-->", "<!-- c -->", "<a href='x'>", "<http://x>",
     " ", "\n", "a", "<", ">", "\\"]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(INLINE_ATOMS, st.just("MK")), max_size=30))
def test_code_spans_and_raw_html_pair_as_markdown_it_pairs_them(atoms):
    """Each marker word is in a code span, in raw HTML, or in text, the same for the layer and markdown-it."""
    text, marks = "", []
    for a in atoms:
        if a == "MK":
            marks.append((f"qz{len(marks)}q", len(text)))
            text += marks[-1][0]
        else:
            text += a
    text = "x " + text  # a paragraph, never a block of another kind
    marks = [(m, p + 2) for m, p in marks]
    tokens = FULL.parseInline(text)[0].children or []
    in_code = {m for t in tokens if t.type == "code_inline" for m in re.findall(r"qz\d+q", t.content)}
    in_html = {m for t in tokens if t.type == "html_inline" for m in re.findall(r"qz\d+q", t.content)}
    found = spans.scan(text)
    for marker, pos in marks:
        kind = next((s.kind for s in found if s.start <= pos < s.end), None)
        assert (kind == "code") == (marker in in_code), (marker, text, found)
        assert (kind in ("comment", "tag", "other")) == (marker in in_html), (marker, text, found)


# ---- text from a campaign, made safe -----------------------------------------------------------

HOSTILE = st.lists(
    st.sampled_from(list("`~<>!-/@#*_[]()|:\\&;=+.1 \n\r\t\u2028\u202e\u200bab") + ["img", "team", "x=1", "lt"]),
    max_size=40,
).map("".join)
# perfkit's own Markdown around the text: each {x} is where a campaign's text goes
SKELETONS = [
    "{x}\n\nafter\n",
    "- {x}: +3.0%\n- next\n",
    "| | baseline |\n|---|---|\n| {x} | 1.2 s |\n",
    "1. **{x}**: what it does\n",
    "# [perf] {x} on 8 H100\n\ntext\n",
    "Tried {x} (`abc123`) and kept it.\n\n```bash\nrun\n```\n",
    '{x} per run (line 1: baseline):\n\n```mermaid\nxychart-beta\n    title "{c}"\n    line [1, 2]\n```\n\n@@\n',
]
_MENTION_IN_TEXT = re.compile(r"(?<!\w)@[A-Za-z0-9]")


def _shape(src: str) -> list[tuple[str, object, str, str]]:
    return [(t.type, t.map, t.markup, t.info) for t in FULL.parse(src) if t.type != "inline"]


def _texts(src: str) -> list[str]:
    return [t.content for t in FULL.parse(src) if t.type == "inline"]


def _inline_tokens(src: str) -> list[object]:
    return [c for t in FULL.parse(src) if t.type == "inline" for c in (t.children or [])]


@settings(max_examples=300, deadline=None)
@given(HOSTILE, st.sampled_from(SKELETONS))
def test_campaign_text_never_changes_the_document_around_it(text, skeleton):
    """Put anywhere perfkit puts a name, the text keeps the blocks as they were and brings nothing live."""
    assume(safe.one_line(text))  # an empty name leaves an empty cell or line: a gap, not a change
    plain = skeleton.replace("{x}", "word").replace("{c}", "word")
    src = skeleton.replace("{x}", safe.inline(text)).replace("{c}", safe.chart(text))
    assert _shape(src) == _shape(plain), (text, src)
    tokens = _inline_tokens(src)
    assert not [t for t in tokens if t.type in ("html_inline", "link_open", "image", "hardbreak", "softbreak")]
    # every other cell and line reads as before: a '|' in a name would push the figures along the row
    ours, theirs = _texts(src), _texts(plain)
    assert len(ours) == len(theirs)
    assert [a for a, b in zip(ours, theirs, strict=True) if "word" not in b] == [b for b in theirs if "word" not in b]
    run = ""
    for t in tokens + [None]:
        if t is not None and t.type == "text":
            run += t.content
            continue
        assert not _MENTION_IN_TEXT.search(run.replace("@@", "")), (text, src)
        run = ""


def _shown(md_text: str) -> str:
    """The characters a reader sees, without spaces, backslashes and emphasis marks."""
    tokens = FULL.parseInline(md_text)[0].children or []
    return re.sub(r"[\s\\*_]", "", "".join(t.content for t in tokens if t.type in ("text", "code_inline")))


@settings(max_examples=300, deadline=None)
@given(HOSTILE.filter(lambda t: "`" not in t))
def test_campaign_text_shows_as_written(text):
    """What a reader sees is the text (code spans of its own aside): nothing is lost or added."""
    want = re.sub(r"[\s\\*_]", "", safe.one_line(text))
    assert _shown("x " + safe.inline(text)) == "x" + want


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.sampled_from(["", "bash", "python a", "``x"]))
def test_code_and_code_blocks_hold_any_text(text, info):
    span = safe.code(text)
    if safe.one_line(text):
        tokens = FULL.parseInline("x " + span)[0].children or []
        assert [t.type for t in tokens] == ["text", "code_inline"]
        assert tokens[1].content == safe.one_line(text)
    block = safe.code_block(text, info)
    fences = [t for t in FULL.parse(block + "\n\nafter\n") if t.type == "fence"]
    assert len(fences) == 1
    want = re.sub(r"\r\n?", "\n", text).strip("\n")
    assert fences[0].content == (want + "\n").replace("\x00", "\ufffd")


def test_the_tag_list_is_one_table_with_roles():
    assert {"details", "summary", "img", "script", "b"} <= html.KNOWN
    assert "img" in html.ACTIVE and "details" not in html.ACTIVE
    assert "b" not in html.MARKUP and "details" in html.MARKUP


def test_code_elements_in_raw_html_count_as_code():
    """GitHub reads the text of <code>, <pre> and <kbd> as code (no mention there), in an HTML block or inline."""
    o = blocks.outline("<div>\n<code>@team</code> @lead\n</div>\n\nText <code>@x</code> and `<code>@y</code>`\n")
    assert [o.lines[1][a:b] for a, b in o.code_spans(1)] == ["@team"]
    assert [o.lines[4][a:b] for a, b in o.code_spans(4)] == ["@x", "`<code>@y</code>`"]


def test_code_texts_are_what_code_spans_hold():
    assert spans.code_texts("set `NCCL_P2P_LEVEL=NVL` and `` a`b `` but not \\`x`") == ["NCCL_P2P_LEVEL=NVL", "a`b"]


def test_box_lines_are_perfkit_s_rule_for_templates():
    m = blocks.BOX_RE.match("  - [x] Ran the tests  ")
    assert m is not None and (m.group("mark"), m.group("text")) == ("x", "Ran the tests")
    assert blocks.BOX_RE.match("[ ] bare box") is not None
    assert blocks.BOX_RE.match("- [] not a box") is None


def test_markup_is_told_from_a_blank_to_fill_in():
    markup = ["<details>", "</summary>", "<img src=x>", "<br/>", "<details open>", '<a href="x">', "<b>"]
    blanks = ["<base commit, what both versions share, data size, seed>", "<link to the issue>", "<job>", "<n>"]
    assert [html.is_markup(t) for t in markup] == [True] * len(markup)
    assert [html.is_markup(t) for t in blanks] == [False] * len(blanks)


def test_a_filled_fence_is_longer_than_any_run_inside():
    assert safe.fence_for("a ``` b", "```") == "````"
    assert safe.fence_for("no runs", "~~~~") == "~~~~"
