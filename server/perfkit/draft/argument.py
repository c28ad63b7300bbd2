"""The draft as a tool parameter: Draft's object, or text naming one (JSON, or a .json/.yaml file path).

render_pr and lint_wording take it through this one type, so tools/list shows Draft's schema for
both (every field, its bounds, no other key) beside the string and null alternatives. An object is
checked against Draft before the tool runs (by the MCP SDK, or the CLI's check of its arguments);
text is read by perfkit.draft.load, which checks it against the same model. A refusal either way is
worded by perfkit.errors.from_validation.

An object is validated by Draft alone, not as one member of a union: pydantic reports a union's
failure once per member ('draft.Draft.jobb', then 'draft.str: input should be a valid string'),
naming types the caller never wrote and counting an alternative the caller did not choose.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ValidatorFunctionWrapHandler, WrapValidator
from pydantic_core import PydanticCustomError

from perfkit.draft.model import Draft
from perfkit.errors import InputError
from perfkit.guards.draft_source import check_depth


def _object_or_text(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    if isinstance(value, dict):
        try:  # the draft's depth limit holds for an object too, before the model walks it
            check_depth(value, "draft")
        except InputError as exc:
            raise PydanticCustomError("draft_depth", exc.problem) from None
        return Draft.model_validate(value)
    if value is None or isinstance(value, (str, Draft)):
        return value
    raise PydanticCustomError(
        "draft_type", "is not an object (a mapping of field names to values), JSON text or a file path"
    )


DraftArgument = Annotated[Draft | str | None, WrapValidator(_object_or_text)]
