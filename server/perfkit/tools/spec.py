"""What an adapter needs to know about a tool, declared once next to the core function.

Both adapters (MCP and CLI) are generated from these records, so a parameter, its description
or a safety hint cannot differ between them.
"""

from __future__ import annotations

import errno
import inspect
import logging
import math
import os
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError, create_model

from perfkit.errors import InputError, ToolFailure, from_validation
from perfkit.guards import limits
from perfkit.guards.list_caps import cap_lists
from perfkit.tools import collector

log = logging.getLogger("perfkit")
M = TypeVar("M", bound=BaseModel)

DEADLINE_S = 300.0  # an analysis call that has not answered by then is stuck on something hostile
DEADLINE_ENV = "PERFKIT_CALL_DEADLINE_S"  # a shorter deadline, for a client that wants answers sooner


def call_deadline(spec_deadline: float | None) -> float | None:
    """The deadline an MCP call of this tool gets: the tool's own, or the environment's if shorter."""
    if spec_deadline is None:
        return None
    try:
        wanted = float(os.environ.get(DEADLINE_ENV, "") or spec_deadline)
    except ValueError:
        wanted = spec_deadline
    return min(spec_deadline, wanted) if wanted > 0 else spec_deadline


class Progress(Protocol):
    """Progress sink: the MCP adapter forwards to notifications, the CLI draws a bar."""

    def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None: ...


def no_progress(done: float, total: float | None = None, message: str | None = None) -> None:
    """Default sink for callers that do not watch progress."""


_SIGNATURES: dict[Callable[..., Any], inspect.Signature] = {}
_ARGUMENT_MODELS: dict[Callable[..., Any], type[BaseModel]] = {}


def _signature(func: Callable[..., Any]) -> inspect.Signature:
    """func's signature with its annotations evaluated, once per process: the parser, the help and both
    adapters ask for every tool's parameters many times, and each evaluation re-reads every annotation."""
    sig = _SIGNATURES.get(func)
    if sig is None:
        sig = _SIGNATURES[func] = inspect.signature(func, eval_str=True)
    return sig


@dataclass(frozen=True)
class CliText:
    """What a person at a shell reads where the agent's text does not fit them.

    The MCP descriptions (docstring, Field descriptions) speak to an agent. The CLI help renders the
    same texts in its own words (cli_render), and takes these instead where the words alone are not
    enough: `params` replaces one parameter's help line, `description` the command's description.
    `examples` are whole command lines, a comment after `#` saying what each shows.
    """

    examples: tuple[str, ...] = ()
    params: Mapping[str, str] = field(default_factory=dict)
    description: str | None = None


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
    cli: CliText = field(default_factory=CliText)
    # Seconds an MCP call may take before it is answered with an error and its thread abandoned.
    # None for the bisect tools: they stop on their own step timeouts and cancellation, and a
    # thread abandoned mid-step would leave a worktree and an environment half changed.
    deadline_s: float | None = DEADLINE_S
    # One bounded pass over a large text or diff that keeps its objects alive until it returns: the
    # cyclic collector is paused for the call (perfkit.tools.collector says why). Never for a bisect.
    pause_gc: bool = False

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
        return "progress" in _signature(self.func).parameters

    def parameters(self) -> list[inspect.Parameter]:
        """The user-facing parameters, without the progress sink."""
        return [p for p in _signature(self.func).parameters.values() if p.name != "progress"]

    def arguments_model(self) -> type[BaseModel]:
        """The parameters as one pydantic model: how the CLI checks its arguments, as the MCP SDK checks a call's."""
        model = _ARGUMENT_MODELS.get(self.func)
        if model is None:
            fields: dict[str, Any] = {
                p.name: (p.annotation, ... if p.default is inspect.Parameter.empty else p.default)
                for p in self.parameters()
            }
            model = _ARGUMENT_MODELS[self.func] = create_model(f"{self.name}_args", **fields)
        return model

    def return_type(self) -> type[BaseModel]:
        annotation: type[BaseModel] = _signature(self.func).return_annotation
        return annotation

    def call(self, arguments: dict[str, Any], progress: Progress | None = None) -> BaseModel:
        """Run the tool; whatever escapes it is an InputError or a one-line ToolFailure naming the tool."""
        for name, value in arguments.items():
            _check_argument(name, value)
        with collector.paused() if self.pause_gc else nullcontext():
            return self._call(arguments, progress)

    def _call(self, arguments: dict[str, Any], progress: Progress | None) -> BaseModel:
        try:
            if self.wants_progress:
                result = self.func(**arguments, progress=progress or no_progress)
            else:
                result = self.func(**arguments)
        except (InputError, ToolFailure):
            raise
        except OSError as exc:
            field = _too_long(exc, arguments)
            if field is None:
                raise self._last_net(exc) from None
            raise InputError(
                field, "names a path or value longer than this system allows", "pass a shorter one"
            ) from None
        except Exception as exc:  # the last net: a bug, said in one line; the traceback goes to the log
            raise self._last_net(exc) from None
        result = cap_lists(result)  # every list bounded, what was cut counted in the result's `omitted`
        # one walk of what is kept for the two last nets: a name kept byte for byte must not reach
        # JSON, and neither may a number JSON cannot hold
        surrogates, where = _scan(result)
        if where is not None:
            log.error("%s returned a non-finite number at %s", self.name, where)
            raise ToolFailure(
                f"{self.name} computed a number that is not finite ({where}); please report it with the inputs"
            )
        return _rebuilt_displayable(result) if surrogates else result

    def _last_net(self, exc: Exception) -> ToolFailure:
        if os.environ.get("PERFKIT_DEBUG"):
            raise exc
        if log.hasHandlers():  # the server logs to stderr; the CLI says how to get the traceback
            log.error("%s raised %s", self.name, type(exc).__name__, exc_info=exc)
        detail = str(exc).strip().splitlines()
        text = f": {detail[0][:200]}" if detail else ""
        return ToolFailure(
            f"an unexpected {type(exc).__name__}{text} in {self.name}; please report it "
            "(the server's stderr, or PERFKIT_DEBUG=1 on the command line, shows the traceback)"
        )


_WHAT_TO_DO = {  # pydantic's error type -> what the caller does about it (an unknown field: from_validation)
    "string_too_long": "pass a shorter value",
    "too_long": "pass fewer items",
    "string_too_short": "pass a value that is not empty",
    "too_short": "pass at least one item",
    "missing": "pass it",
}


def argument_error(exc: ValidationError, help_hint: str, arguments: type[BaseModel] | None = None) -> InputError:
    """The one conversion of a tool call's arguments refused by pydantic (the MCP SDK's check of the input
    schema, or the CLI's): its first error as `field: problem; what to do`, never pydantic's own text.

    help_hint: where the adapter's user reads the parameters (the command's --help, the tool's schema).
    arguments: the tool's arguments model (ToolSpec.arguments_model), for the fields a misspelt key may mean."""
    return from_validation(exc, "", help_hint, model=arguments, todo=_WHAT_TO_DO)


def _check_argument(name: str, value: Any, depth: int = 0) -> None:
    """Strings no longer than limits.MAX_INLINE_CHARS and valid Unicode, in lists, dicts and models too."""
    if isinstance(value, str):
        limits.check_text(value, name, limits.MAX_INLINE_CHARS, "pass a shorter value, or a file path")
    elif depth > limits.MAX_JSON_DEPTH:
        raise InputError(name, f"nests more than {limits.MAX_JSON_DEPTH} levels deep", "pass a flatter value")
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_argument(name, k, depth + 1)
            _check_argument(name, v, depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _check_argument(name, v, depth + 1)
    elif isinstance(value, BaseModel):  # a model-typed parameter, validated from its object by the MCP SDK
        for field_name in type(value).model_fields:
            _check_argument(name, getattr(value, field_name), depth + 1)


def displayable_result(result: M) -> M:
    """result, rebuilt with non-UTF-8 bytes of its strings written as \\xNN when it holds any."""
    return _rebuilt_displayable(result) if _scan(result)[0] else result


def _rebuilt_displayable(result: M) -> M:
    return type(result).model_validate(_displayable(result.model_dump(mode="python")))


def _scan(result: BaseModel) -> tuple[bool, str | None]:
    """(whether a string holds a lone surrogate, the path of the first inf or NaN) of result.

    One walk of the model as it is, never dumped, and no path built: a result of 20,000 hunks is
    walked once, and an ASCII string (nearly all of them) is passed over without encoding it. Only
    a result that holds a non-finite number is walked again, to name where."""
    surrogates = non_finite = False
    stack: list[Any] = [result]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if not surrogates and not value.isascii():
                surrogates = _has_surrogate(value)
        elif isinstance(value, float):
            non_finite = non_finite or not math.isfinite(value)
        elif isinstance(value, BaseModel):
            stack.extend(getattr(value, name) for name in type(value).model_fields)
        elif isinstance(value, dict):
            stack.extend(value)
            stack.extend(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            stack.extend(value)
    return surrogates, _non_finite(result.model_dump(mode="python"), "") if non_finite else None


def _non_finite(value: Any, where: str) -> str | None:
    """Path of the first inf or NaN in a dumped result: JSON has no such number and clients reject it."""
    if isinstance(value, float):
        return None if math.isfinite(value) else where or "result"
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return None
    for k, v in items:
        found = _non_finite(v, f"{where}.{k}" if where else str(k))
        if found is not None:
            return found
    return None


def _has_surrogate(value: str) -> bool:
    try:
        value.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def _displayable(value: Any) -> Any:
    """Every string with its non-UTF-8 bytes written as \\xNN, as git writes such names when it quotes them."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if isinstance(value, dict):
        return {_displayable(k): _displayable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_displayable(v) for v in value]
    return value


def _too_long(exc: OSError, arguments: dict[str, Any]) -> str | None:
    """The argument behind 'file name too long' or 'argument list too long': the caller can fix those."""
    if exc.errno not in (errno.ENAMETOOLONG, errno.E2BIG):
        return None
    longest, name_of = 0, None
    for name, value in arguments.items():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and len(v) > longest:
                longest, name_of = len(v), name
    return name_of
