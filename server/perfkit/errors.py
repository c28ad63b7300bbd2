"""The one exception type the adapters turn into a user-facing error.

Core code raises InputError whenever the caller can fix the problem (a wrong path, an unknown
revision, a malformed file). Anything else is a bug and is reported as such, so the two must
never be confused: an agent retries differently after each.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: names the field, what is wrong with it and what to do instead."""

    def __init__(self, field: str, problem: str, fix: str | None = None):
        self.field = field
        self.problem = problem
        self.fix = fix
        text = f"{field}: {problem}"
        if fix:
            text += f"; {fix}"
        super().__init__(text)


class ToolFailure(RuntimeError):
    """An operation on valid input that could not complete (for example a git command failed)."""
