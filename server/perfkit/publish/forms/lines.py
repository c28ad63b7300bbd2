"""In-place edits of a template's own lines: "- GPU model:" fields and empty code blocks.

A field may hold the template's example ("- OS: [e.g. Ubuntu 22.04]"): the draft's value replaces
it, and without one the example stays as the template's prompt.

Lines inside HTML comments are the template's instructions and stay untouched.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from perfkit.repo.template_text import comment_state_after, hidden_lines

_FIELD_RE = re.compile(
    r"^(?P<lead>\s*+[-*+]\s++)?(?P<b1>\*\*)?(?P<label>[A-Za-z][^:*`<>\[\]\n]{0,59}?)\s*+"
    r"(?P<mid>\*\*:|:\*\*|:)\s*+(?P<example>\[[^\]\n]*+\]|\(e\.g\.[^)\n]*+\)|_{2,})?\s*+$"
)
_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
# "- Run the following:" introduces a list; "- Driver version:" asks for a value
_ASKS_VALUE_RE = re.compile(
    r"\b(?:versions?|os|gpus?|cuda|cudnn|rocm|driver|model|platform|python|hardware|devices?|accelerators?|name|"
    r"type|count|number|size|memory|framework|library|package|commit|branch|command|environment|system|"
    r"distribution|compiler|kernel|cpu|ram|nodes?|world size)\b",
    re.I,
)


def fill_field_lines(
    lines: list[str], value_for: Callable[[str, str], str | None], placeholder: str
) -> tuple[list[str], int, int]:
    """(lines with each empty 'Label:' field answered, fields answered, fields left as placeholders)."""
    hidden = hidden_lines(lines)
    out, done, left = [], 0, 0
    for k, ln in enumerate(lines):
        m = None if hidden[k] else _FIELD_RE.match(ln)
        if m and (m.group("lead") or m.group("b1")):
            value = value_for(m.group("label"), m.group("example") or "")  # "[e.g. PyTorch 2.3]" names the software
            if value:
                done += 1
                ln = f"{ln[: m.start('example')].rstrip()} {value}" if m.group("example") else f"{ln.rstrip()} {value}"
            elif not m.group("example") and _ASKS_VALUE_RE.search(m.group("label")):
                left += 1  # asked and not in the draft; a template's example ("[e.g. Ubuntu]") stays instead
                ln = f"{ln.rstrip()} {placeholder.format(what=m.group('label').strip())}"
        out.append(ln)
    return out, done, left


def _closes(line: str, fence: str) -> bool:
    m = _FENCE_RE.match(line)
    return m is not None and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line[m.end() :].strip()


def empty_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(opening fence, closing fence) of every code block holding only blank lines, outside comments."""
    out: list[tuple[int, int]] = []
    k, in_comment = 0, False
    while k < len(lines):
        m = _FENCE_RE.match(lines[k])
        if m and not in_comment:
            j = next((j for j in range(k + 1, len(lines)) if _closes(lines[j], m.group(1))), None)
            if j is None:
                break
            if all(not x.strip() for x in lines[k + 1 : j]):
                out.append((k, j))
            k = j + 1
            continue
        in_comment = comment_state_after(lines[k], in_comment)
        k += 1
    return out


def fill_block(lines: list[str], block: tuple[int, int], text: str) -> list[str]:
    start, end = block
    return lines[: start + 1] + text.split("\n") + lines[end:]
