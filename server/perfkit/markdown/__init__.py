"""perfkit's one model of Markdown: CommonMark's, as GitHub renders it, with perfkit's rules on top.

Everything in perfkit that reads or writes Markdown structure goes through this package: the lint
(which text is prose, code, comment or live), the writer that keeps drafts inert, the readers of a
repository's PR template and issue templates, and render_pr where a campaign's text enters the
description. What belongs here:

- `blocks`: the block structure of a text with line ranges (headings ATX and setext, paragraphs,
  list items with their markers and task boxes, fenced and indented code with its info string,
  HTML blocks, tables, block quotes, thematic breaks), from markdown-it-py, and per line what a
  reader must know (in code, in a comment, inside `<details>`, which spans are code or raw HTML);
- `spans`: code spans and raw HTML inside a block as CommonMark pairs them, and GitHub's mentions;
- `html`: the one list of HTML tag names perfkit knows, each with its role, and comment scanning;
- `safe`: text from a campaign or a repository made one line, fence-safe and inert before it
  enters Markdown, and the mark (`Markdown`) for text perfkit vouches for.

A module outside this package that needs to know where a fence, a heading, a comment or a tag is
asks here instead of matching the syntax itself (tests/test_markdown_layer.py keeps it so).
"""

from __future__ import annotations

from perfkit.markdown.blocks import Block, Outline, outline, parse_blocks, split_lines
from perfkit.markdown.safe import Markdown, code, code_block, inline

__all__ = ["Block", "Markdown", "Outline", "code", "code_block", "inline", "outline", "parse_blocks", "split_lines"]
