"""Load and validate a draft: an object over MCP, JSON text or a file path on the command line.

JSON is the main format. A `.yaml` or `.yml` file is read with perfkit's strict YAML subset
reader (no YAML dependency), which refuses anything it cannot read exactly rather than guess.
A relative path is tried against the working directory first, then the campaign folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from perfkit.errors import InputError
from perfkit.publish import miniyaml
from perfkit.publish.draft_model import Draft

_FIX = "see docs/publish.md (or the publish-pr skill's references/draft-format.md) for the draft's fields"
MAX_BYTES = 4 * 1024**2  # a draft is a few pages of prose


def _parse_file(p: Path, field: str) -> Any:
    size = p.stat().st_size
    if size > MAX_BYTES:
        raise InputError(
            field,
            f"{p.name} is {size / 2**20:,.0f} MiB, more than the 4 MiB a draft may be",
            "pass the draft file render_pr documents, not another file",
        )
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
            return miniyaml.loads(text)
        except miniyaml.YamlSubsetError as exc:
            raise InputError(field, f"{p.name} {exc}", "write the draft as JSON, or simplify that YAML") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            field,
            f"{p.name} is not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}",
            "fix the JSON (a .yaml or .yml name is read as YAML)",
        ) from None


def load_draft(
    draft: dict[str, Any] | str | None, campaign_dir: str | Path | None = None, field: str = "draft"
) -> Draft:
    if draft is None:
        return Draft()
    if isinstance(draft, Draft):
        return draft
    data: Any
    if isinstance(draft, dict):
        data = draft
    elif isinstance(draft, str):
        s = draft.strip()
        if s.startswith(("{", "[")):
            try:
                data = json.loads(s)
            except json.JSONDecodeError as exc:
                raise InputError(field, f"is not valid JSON: column {exc.colno}: {exc.msg}", _FIX) from None
        else:
            p = Path(s).expanduser()
            if not p.is_file() and campaign_dir is not None and not p.is_absolute():
                p = Path(campaign_dir).expanduser() / s
            if not p.is_file():
                raise InputError(field, f"'{s}' is not a file", "pass the draft as an object, JSON text or a file path")
            data = _parse_file(p, field)
    else:
        raise InputError(field, f"has type {type(draft).__name__}", "pass an object, JSON text or a file path")
    if not isinstance(data, dict):
        raise InputError(field, "is not an object (a mapping of field names to values)", _FIX)
    try:
        return Draft.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        msg = err["msg"].lower()
        if err["type"] == "extra_forbidden":
            parent = Draft
            for part in err["loc"][:-1]:
                if isinstance(part, int):
                    continue
                ann = getattr(parent, "model_fields", {}).get(part)
                parent = getattr(ann, "annotation", None) if ann else None
                parent = next((a for a in getattr(parent, "__args__", (parent,)) if hasattr(a, "model_fields")), parent)
            known = ", ".join(getattr(parent, "model_fields", {}) or [])
            raise InputError(f"{field}.{loc}", "is not a draft field", f"known fields here: {known}") from None
        more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
        raise InputError(f"{field}.{loc}" if loc else field, msg + more, _FIX) from None
