"""Every list in a tool's answer capped, with a count of what was left out.

A repository with 50,000 files in one commit, a draft with 100,000 flagged words or a campaign of
a million runs must not give an answer an agent cannot read or a client cannot hold. The cap is
applied once, where a result leaves the core (ToolSpec.call), so no tool can forget it: each list
or mapping keeps its first MAX_LIST_ITEMS entries, and the result's `omitted` field says, per
field path, how many entries were left out. The cap is far beyond any realistic campaign; a
result that reaches it is one to narrow, not to read whole.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, Field

from perfkit.base_model import Model

MAX_LIST_ITEMS = 5000  # entries kept per list or mapping of a tool's answer

M = TypeVar("M", bound=BaseModel)


class ListsCapped(Model):
    """Base of every tool result: the count of entries the cap left out, by field path."""

    omitted: dict[str, int] = Field(
        default_factory=dict,
        description=(
            f"Entries left out where a list held more than {MAX_LIST_ITEMS:,}: field path (list positions "
            "written as []) to the number left out over all such lists. Empty when nothing was cut; "
            "narrow the input (a shorter range, fewer files) to see the rest."
        ),
    )


def cap_lists(result: M, limit: int = MAX_LIST_ITEMS) -> M:
    """result with every list and mapping cut to limit entries, and the cut counted in `omitted`."""
    omitted: dict[str, int] = {}
    capped = _cap(result, "", limit, omitted)
    if not omitted:
        return result
    if isinstance(capped, ListsCapped):
        merged = dict(capped.omitted)
        for where, n in omitted.items():
            merged[where] = merged.get(where, 0) + n
        capped = capped.model_copy(update={"omitted": merged})
    return capped  # type: ignore[no-any-return]


def omitted_note(result: BaseModel) -> str | None:
    """One line for a person reading a result's text form, which counts only what was kept."""
    omitted = getattr(result, "omitted", None)
    if not omitted:
        return None
    parts = ", ".join(f"{n:,} of {where}" for where, n in omitted.items())
    return f"left out (lists over {MAX_LIST_ITEMS:,} entries are cut; narrow the input to see them): {parts}"


def _cap(value: Any, where: str, limit: int, omitted: dict[str, int]) -> Any:
    if isinstance(value, BaseModel):
        update = {}
        for name in type(value).model_fields:
            if name == "omitted" and isinstance(value, ListsCapped):
                continue
            old = getattr(value, name)
            new = _cap(old, f"{where}.{name}" if where else name, limit, omitted)
            if new is not old:
                update[name] = new
        return value.model_copy(update=update) if update else value
    if isinstance(value, (list, tuple)):
        kept = value[:limit]
        if len(value) > limit:
            omitted[where] = omitted.get(where, 0) + len(value) - limit
        items = [_cap(v, f"{where}[]", limit, omitted) for v in kept]
        if len(kept) == len(value) and all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    if isinstance(value, dict):
        keys = list(value)
        if len(keys) > limit:
            omitted[where] = omitted.get(where, 0) + len(keys) - limit
            keys = keys[:limit]
        out = {k: _cap(value[k], f"{where}[]", limit, omitted) for k in keys}
        if len(out) == len(value) and all(out[k] is value[k] for k in keys):
            return value
        return out
    return value
