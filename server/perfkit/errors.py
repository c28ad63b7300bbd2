"""The one exception type the adapters turn into a user-facing error.

Core code raises InputError whenever the caller can fix the problem (a wrong path, an unknown
revision, a malformed file). Anything else is a bug and is reported as such, so the two must
never be confused: an agent retries differently after each.
"""

from __future__ import annotations

from typing import Any

MAX_ERROR_CHARS = 4000  # an error is read by a person or an agent: a 10 MB cell is not quoted whole


def _capped(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a file name git gave with bytes that are not UTF-8: shown as \xNN
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if len(text) <= MAX_ERROR_CHARS:
        return text
    return f"{text[:MAX_ERROR_CHARS]}… [cut: {len(text):,} characters in all]"


class InputError(ValueError):
    """Bad input: names the field, what is wrong with it and what to do instead."""

    def __init__(self, field: str, problem: str, fix: str | None = None):
        self.field = _capped(field)
        self.problem = _capped(problem)
        self.fix = _capped(fix) if fix else fix
        text = f"{self.field}: {self.problem}"
        if self.fix:
            text += f"; {self.fix}"
        super().__init__(text)

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str, str | None]]:
        # pickled with its three parts (a Ray worker sends it back to the driver), not the joined text
        return (type(self), (self.field, self.problem, self.fix))


def from_validation(exc: Any, where: str, fix: str | None, sep: str = ".") -> InputError:
    """A pydantic ValidationError as perfkit's error: the first problem's field (its location after
    `where` and sep, joined by dots), pydantic's words for it, how many more there are, and what to do.

    The one conversion, so every surface names a field the same way; callers with a better word for a
    kind of problem (an unknown field, an unknown key) check exc.errors()[0] before calling this.
    """
    errors = exc.errors()
    first = errors[0]
    parts = [str(x) for x in first["loc"]]
    problem = str(first["msg"]).lower()
    if len(parts) >= 2 and parts[-1] == "[key]":  # a mapping's key refused: the mapping is the field
        problem = f"unknown key '{parts[-2]}': {problem}"
        parts = parts[:-2]
    loc = ".".join(parts)
    field = f"{where}{sep}{loc}" if where and loc else (where or loc or "arguments")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return InputError(field, problem + more, fix)


class ToolFailure(RuntimeError):
    """An operation on valid input that could not complete (for example a git command failed)."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(_capped(a) if isinstance(a, str) else a for a in args))
