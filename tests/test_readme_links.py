"""The README is the index of the documentation, and what it quotes is what the files hold.

Every file in docs/ is linked from README.md, every relative link of the README reaches a file (and its
anchor, a heading of that file), and the draft excerpt the README shows is lines of the example
description it names. Links are read as GitHub renders them (markdown-it-py, tables on), so a link
inside a code block or a table cell counts only where a reader can follow it.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt
from perfkit.markdown import parse_blocks

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
EXAMPLE = ROOT / "templates" / "pr-description.example.md"


def links(markdown: str) -> list[str]:
    """The href of every link a reader can follow, in order."""
    found: list[str] = []
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        for child in token.children or []:
            if child.type == "link_open":
                found.append(str(child.attrs["href"]))
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces made hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    return {slug(b.text) for b in parse_blocks(markdown) if b.kind == "heading"}


def local(href: str) -> tuple[str, str] | None:
    """(path, anchor) of a link into this repository; None for a link elsewhere."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return None
    return unquote(parts.path), unquote(parts.fragment)


def test_every_file_in_docs_is_linked_from_the_readme():
    linked = {
        (README.parent / path).resolve() for path, _ in filter(None, map(local, links(README.read_text()))) if path
    }
    docs = sorted(p for p in (ROOT / "docs").rglob("*") if p.is_file())
    assert len(docs) >= 17
    missing = [str(p.relative_to(ROOT)) for p in docs if p.resolve() not in linked]
    assert not missing, f"README.md's Documents list does not link: {missing} (add one line each)"


def test_every_relative_link_of_the_readme_reaches_its_file_and_heading():
    text = README.read_text()
    targets = [t for t in map(local, links(text)) if t]
    assert len(targets) >= 20
    broken = []
    for path, anchor in targets:
        target = (README.parent / path) if path else README
        if not target.exists():
            broken.append(f"{path}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in anchors(target.read_text()):
            broken.append(f"{path}#{anchor}: no such heading")
    assert not broken, broken


def test_the_draft_excerpt_is_lines_of_the_example_description():
    fences = [b for b in parse_blocks(README.read_text()) if b.kind == "code" and b.info == "markdown"]
    assert len(fences) == 1, "the README shows one excerpt of a rendered description"
    example = set(EXAMPLE.read_text().splitlines())
    shown = [line for line in fences[0].text.splitlines() if line.strip() and line != "..."]  # ... elides
    assert len(shown) >= 5
    stale = [line for line in shown if line not in example]
    assert not stale, f"the README quotes lines {EXAMPLE.name} no longer holds: {stale}"


def test_the_link_reader_sees_links_in_tables_and_not_in_code():
    text = "| a | [x](docs/x.md) |\n|---|---|\n\n    [y](docs/y.md)\n\n```\n[z](docs/z.md)\n```\n[w](docs/w.md#h)\n"
    assert links(text) == ["docs/x.md", "docs/w.md#h"]
    assert local("https://example.com/docs/a.md") is None
    assert slug("Several devices and machines") == "several-devices-and-machines"
    assert slug("`{device}` everywhere") == "device-everywhere"
