"""The draft as Draft, from whatever a tool was given: a Draft already checked, an object, JSON
text or a file path (read by perfkit.guards.draft_source), or nothing.

An object or text is checked against Draft here, and a refusal worded by the one conversion
(perfkit.errors.from_validation), the same as the MCP SDK's check of an object before the tool runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from perfkit.draft.model import Draft
from perfkit.errors import InputError, from_validation
from perfkit.guards.draft_source import FIX as _FIX
from perfkit.guards.draft_source import MAX_BYTES, MAX_DEPTH, check_depth, read_data

__all__ = ["MAX_BYTES", "MAX_DEPTH", "load_draft"]


def _validate(data: Any, field: str) -> Draft:
    if not isinstance(data, dict):
        raise InputError(field, "is not an object (a mapping of field names to values)", _FIX)
    check_depth(data, field)
    try:
        return Draft.model_validate(data)
    except ValidationError as exc:
        raise from_validation(exc, field, _FIX, model=Draft) from None


def load_draft(
    draft: Draft | dict[str, Any] | str | None, campaign_dir: str | Path | None = None, field: str = "draft"
) -> Draft:
    if draft is None:
        return Draft.model_validate({})
    if isinstance(draft, Draft):
        return draft
    return _validate(read_data(draft, campaign_dir, field), field)
