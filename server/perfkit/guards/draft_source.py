"""Read a draft's data: JSON text or a file path (an object, given over MCP, arrives already checked).

perfkit.draft.load checks the data against the draft's model, for render_pr and lint_wording alike,
so the two cannot disagree on what a draft file holds or on its limits.

JSON is the main format. A `.yaml` or `.yml` file is read with PyYAML's safe loader, bounded
(perfkit.guards.safe_yaml). A draft is a few pages of prose in a shallow structure, so text over
`MAX_BYTES` (inline or in a file) and nesting deeper than `MAX_DEPTH` are refused before the
model sees them: both would otherwise cost time or end in a RecursionError, not a named field.
A relative path is tried against the working directory first, then the campaign folder.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from perfkit.errors import InputError
from perfkit.guards import safe_yaml

FIX = "see docs/publish.md (or the publish-pr skill's references/draft-format.md) for the draft's fields"
MAX_BYTES = 1024**2
MAX_DEPTH = 32  # the draft's own structure is four levels deep


def _too_big(size: int, what: str, field: str) -> InputError:
    return InputError(
        field,
        f"{what} is {size:,} bytes, more than the {MAX_BYTES:,} (1 MiB) a draft may be",
        "pass the draft render_pr documents: a few pages of prose, not another file",
    )


def _json_depth(text: str) -> int:
    """How deep brackets nest outside strings, in one pass: checked before json.loads recurses."""
    depth = deepest = 0
    for m in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        c = m.group(0)
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def _object_depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict | list):
            deepest = max(deepest, d)
            if deepest > MAX_DEPTH:
                break
            stack += [(x, d + 1) for x in (v.values() if isinstance(v, dict) else v)]
    return deepest


def _check_depth(depth: int, field: str) -> None:
    if depth > MAX_DEPTH:
        raise InputError(field, f"nests more than {MAX_DEPTH} levels deep", FIX)


def _json(text: str, field: str, name: str) -> Any:
    _check_depth(_json_depth(text), field)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            field,
            f"{name} not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}",
            "fix the JSON (a .yaml or .yml file is read as YAML)",
        ) from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise InputError(field, f"{name} not a draft: {exc}", FIX) from None


def _parse_file(p: Path, field: str) -> Any:
    size = p.stat().st_size
    if size > MAX_BYTES:
        raise _too_big(size, p.name, field)
    try:
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            field,
            f"{p.name} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start})",
            "save it as UTF-8",
        ) from None
    if p.suffix.lower() in (".yaml", ".yml"):
        try:
            return safe_yaml.load(text)
        except safe_yaml.YamlRefused as exc:
            raise InputError(field, f"{p.name}: {exc}", "fix the YAML, or write the draft as JSON") from None
    return _json(text, field, f"{p.name} is")


def read_text(s: str, campaign_dir: str | Path | None, field: str) -> Any:
    """JSON text, or the path of a JSON or YAML file (tried in the working folder, then the campaign)."""
    size = len(s.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise _too_big(size, "the text", field)
    if s.startswith(("{", "[")):
        return _json(s, field, "is")
    p = Path(s).expanduser()
    if not p.is_file() and campaign_dir is not None and not p.is_absolute():
        p = Path(campaign_dir).expanduser() / s
    if not p.is_file():
        raise InputError(
            field, f"'{s}' is not a file", "pass the draft as JSON or as the path of a .json or .yaml file"
        )
    return _parse_file(p, field)


def check_depth(data: Any, field: str) -> None:
    """Nesting of data already parsed (an object over MCP) within MAX_DEPTH."""
    _check_depth(_object_depth(data), field)


def read_data(draft: dict[str, Any] | str, campaign_dir: str | Path | None, field: str = "draft") -> Any:
    """The draft's data from an object, JSON text or a file path, bounded in size and depth."""
    if isinstance(draft, dict):
        check_depth(draft, field)
        return draft
    if isinstance(draft, str):
        return read_text(draft.strip(), campaign_dir, field)
    raise InputError(field, f"has type {type(draft).__name__}", "pass an object, JSON text or a file path")
