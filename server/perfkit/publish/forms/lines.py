"""In-place edits of a template's own lines: "- GPU model:" fields and empty code blocks.

A field may hold the template's example ("- OS: [e.g. Ubuntu 22.04]"): the draft's value replaces
it, and without one a placeholder does, since an example posted as it stands reads as the author's
answer.

Lines inside HTML comments are the template's instructions and stay untouched. Which lines are
code blocks and comments is perfkit.markdown's reading; a block filled here gets fences no line of
its new text can close.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from perfkit.markdown import blocks
from perfkit.markdown.safe import fence_for
from perfkit.repo.template_text import hidden_lines

_FIELD_RE = re.compile(
    r"^(?P<lead>\s*+[-*+]\s++)?(?P<b1>\*\*)?(?P<label>[A-Za-z][^:*`<>\[\]\n]{0,119}?)\s*+"
    r"(?P<mid>\*\*:|:\*\*|:)\s*+(?P<example>\[[^\]\n]*+\]|\(e\.g\.[^)\n]*+\)|_{2,})?\s*+"
    r"(?P<note><!--(?:(?!-->)[^\n])*+-->)?\s*+$"  # '- The model code: <!-- e.g. vicuna-7b -->': the value goes before
)
# "- Run the following:" introduces a list; "- Driver version:" asks for a value
_ASKS_VALUE_RE = re.compile(
    r"\b(?:versions?|os|gpus?|cuda|cudnn|rocm|driver|model|platform|python|hardware|devices?|accelerators?|name|"
    r"type|count|number|size|memory|framework|library|package|commit|branch|command|environment|system|"
    r"distribution|compiler|kernel|cpu|ram|nodes?|world size|speed|throughput|latency|tokens?|usage|time|"
    r"configuration|config|precision|dtype|quantization|batch size|sequence length)\b",
    re.I,
)


_INLINE_EXAMPLE_RE = re.compile(r"\((?:e\.g\.|eg\b|ex\.|for example)[^()\n]*+\)", re.I)


def is_field(line: str) -> bool:
    """A one-line field of the template ('- GPU model:', '**Driver**: [e.g. 550]'), answered in place."""
    m = _FIELD_RE.match(line)
    return bool(m and (m.group("lead") or m.group("b1")))


def fill_field_lines(
    lines: list[str], value_for: Callable[[str, str], str | None], placeholder: str
) -> tuple[list[str], int, int]:
    """(lines with each empty 'Label:' field answered, fields answered, fields left as placeholders)."""
    hidden = hidden_lines(lines)
    out, done, left = [], 0, 0
    for k, ln in enumerate(lines):
        m = None if hidden[k] else _FIELD_RE.match(ln)
        if m and (m.group("lead") or m.group("b1")):
            # "Device (e.g. MacBook Pro M2)": the label is what stands outside the example
            shown = _INLINE_EXAMPLE_RE.search(m.group("label"))
            label = " ".join(_INLINE_EXAMPLE_RE.sub(" ", m.group("label")).split()) or m.group("label").strip()
            example = m.group("example") or (shown.group(0) if shown else "")
            value = value_for(label, example)  # "[e.g. PyTorch 2.3]" names the software
            if not value and (example or _ASKS_VALUE_RE.search(label)):
                left += 1  # asked and not in the draft: the example, if any, goes with the rest of the template's asks
                value = placeholder.format(what=label)
            elif value:
                done += 1
            if value:
                cut = m.start("example") if m.group("example") else m.start("note") if m.group("note") else len(ln)
                note = f" {m.group('note')}" if m.group("note") else ""
                ln = f"{ln[:cut].rstrip()} {value}{note}"
        out.append(ln)
    return out, done, left


def empty_blocks(lines: list[str]) -> list[blocks.Block]:
    """Every closed fenced code block holding only blank lines, outside comments."""
    o = blocks.outline("\n".join(lines))
    return [
        b
        for b in o.blocks
        if b.kind == "code" and b.style == "fence" and b.closed and not b.text.strip() and not o.in_comment[b.start]
    ]


def fill_block(lines: list[str], block: blocks.Block, text: str) -> list[str]:
    """The block's lines with text inside; both fences lengthened when a run in text could close them."""
    start, end = block.start, block.end - 1
    fence = fence_for(text, block.marker)
    opening, closing = lines[start], lines[end]
    indent = opening[: len(opening) - len(opening.lstrip())]
    opening = indent + fence + opening.lstrip()[len(block.marker) :]
    closing = closing[: len(closing) - len(closing.lstrip())] + fence
    return lines[:start] + [opening] + text.split("\n") + [closing] + lines[end + 1 :]
