"""Validate a draft against the model render_pr fills its slots from.

Reading the text (JSON or bounded YAML, inline or a file, size and depth limits) is
perfkit.guards.draft_source, shared with lint_wording.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from perfkit.errors import InputError, from_validation
from perfkit.guards.draft_source import FIX as _FIX
from perfkit.guards.draft_source import MAX_BYTES, MAX_DEPTH, check_depth, read_data
from perfkit.publish.draft_model import Draft

__all__ = ["MAX_BYTES", "MAX_DEPTH", "load_draft"]


def _known_fields(loc: tuple[int | str, ...]) -> list[str]:
    """The field names allowed where an unknown one was found, walking the model along its location."""
    parent: Any = Draft
    for part in loc:
        if isinstance(part, int):
            continue
        ann = getattr(parent, "model_fields", {}).get(part)
        parent = getattr(ann, "annotation", None) if ann else None
        parent = next((a for a in getattr(parent, "__args__", (parent,)) if hasattr(a, "model_fields")), parent)
    return list(getattr(parent, "model_fields", {}) or [])


def _unknown_field_fix(name: object, known: list[str]) -> str:
    """'did you mean summary?' for a misspelt key, then every field allowed there."""
    close = difflib.get_close_matches(str(name).lower().replace("-", "_"), known, n=1, cutoff=0.6)
    meant = f"did you mean {close[0]}? " if close else ""
    return f"{meant}known fields here: {', '.join(known)}"


def _validate(data: Any, field: str) -> Draft:
    if not isinstance(data, dict):
        raise InputError(field, "is not an object (a mapping of field names to values)", _FIX)
    check_depth(data, field)
    try:
        return Draft.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        if err["type"] == "extra_forbidden":
            raise InputError(
                f"{field}.{loc}",
                "is not a draft field",
                _unknown_field_fix(err["loc"][-1], _known_fields(err["loc"][:-1])),
            ) from None
        raise from_validation(exc, field, _FIX) from None


def load_draft(
    draft: Draft | dict[str, Any] | str | None, campaign_dir: str | Path | None = None, field: str = "draft"
) -> Draft:
    if draft is None:
        return Draft.model_validate({})
    if isinstance(draft, Draft):
        return draft
    return _validate(read_data(draft, campaign_dir, field), field)
