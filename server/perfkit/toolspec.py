"""What an adapter needs to know about a tool, declared once next to the core function.

Both adapters (MCP and CLI) are generated from these records, so a parameter, its description
or a safety hint cannot differ between them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel


class Progress(Protocol):
    """Progress sink: the MCP adapter forwards to notifications, the CLI draws a bar."""

    def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None: ...


def no_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    """Default sink for callers that do not watch progress."""


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its core function, its name on both surfaces, and truthful behaviour hints."""

    func: Callable[..., BaseModel]
    read_only: bool
    destructive: bool = False
    idempotent: bool = True
    open_world: bool = False
    title: str | None = None
    name: str = field(default="")

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", self.func.__name__)

    @property
    def cli_name(self) -> str:
        return self.name.replace("_", "-")

    @property
    def description(self) -> str:
        return inspect.cleandoc(self.func.__doc__ or "")

    @property
    def wants_progress(self) -> bool:
        return "progress" in inspect.signature(self.func).parameters

    def parameters(self) -> list[inspect.Parameter]:
        """The user-facing parameters, without the progress sink."""
        sig = inspect.signature(self.func, eval_str=True)
        return [p for p in sig.parameters.values() if p.name != "progress"]

    def return_type(self) -> type[BaseModel]:
        return inspect.signature(self.func, eval_str=True).return_annotation

    def call(self, arguments: dict[str, Any], progress: Progress | None = None) -> BaseModel:
        try:
            if self.wants_progress:
                return self.func(**arguments, progress=progress or no_progress)
            return self.func(**arguments)
        except OSError as exc:
            field = _too_long(exc, arguments)
            if field is None:
                raise
            from perfkit.errors import InputError

            raise InputError(field, "names a path longer than this system allows", "pass a shorter path") from None


def _too_long(exc: OSError, arguments: dict[str, Any]) -> str | None:
    """The argument behind a 'file name too long' error: the caller can fix that, like any bad path."""
    import errno

    if exc.errno != errno.ENAMETOOLONG:
        return None
    for name, value in arguments.items():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and (
                len(v.encode(errors="replace")) >= 4096
                or any(len(part.encode(errors="replace")) > 255 for part in v.split("/"))
            ):
                return name
    return None
