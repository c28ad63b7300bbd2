"""The one exception type the adapters turn into a user-facing error.

Core code raises InputError whenever the caller can fix the problem (a wrong path, an unknown
revision, a malformed file). Anything else is a bug and is reported as such, so the two must
never be confused: an agent retries differently after each.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections import abc
from collections.abc import Mapping
from dataclasses import dataclass
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


def from_validation(
    exc: Any, where: str, fix: str | None, sep: str = ".", model: Any = None, todo: Mapping[str, str] | None = None
) -> InputError:
    """A pydantic ValidationError as perfkit's error: the first problem's field (its location after
    `where` and sep, joined by dots), pydantic's words for it, how many more there are, and what to do.

    model: what was validated (a model class, or a type holding models, such as a tool's arguments
    model). With it, every model-typed input (a draft, a metric declaration, a tool's arguments) gets
    the same help: a key the model does not know gets "did you mean <field>?" and the fields known
    there, and a value that fits no member of a union is named by its place in the input, not by the
    members' type names ('template_answers.p3', not 'template_answers.p3.list[str]'), with what each
    member wanted in one problem, not counted as more problems.
    todo: what to do about a kind of problem (pydantic's error type), said before fix.
    The one conversion, so every surface names a field the same way.
    """
    errors = [_Problem(e, *_place(model, tuple(e["loc"]))) for e in exc.errors()]
    first = _most_telling(errors)
    members = [e for e in errors if e is not first and first.fork is not None and e.fork == first.fork]
    problem = _sentence(first.error["msg"])
    if first.place == first.fork:  # the value's type fits no member: what each one wanted
        problem += "".join(f" or {_sentence(m.error['msg'], wanted=True)}" for m in members if m.place == m.fork)
    others = [e for e in errors if e is not first and e not in members]
    step = (todo or {}).get(first.error["type"])
    if step:
        fix = f"{step}; {fix}" if fix else step
    parts = [str(x) for x in first.place]
    if first.error["type"] == "extra_forbidden":
        problem = "unknown field"
        meant = _close(first.place[-1], known := _known_fields(model, first.place[:-1]))
        own = f"did you mean {meant}? " if meant else ""
        own += f"known fields here: {', '.join(known)}" if known else "leave it out"
        fix = f"{own}; {fix}" if fix else own
        misspelt = (*first.place[:-1], meant)  # the field it misspells is missing too: one problem, not two
        others = [e for e in others if not (e.error["type"] == "missing" and e.place == misspelt)]
    if len(parts) >= 2 and parts[-1] == "[key]":  # a mapping's key refused: the mapping is the field
        problem = f"unknown key '{parts[-2]}': {problem}"
        parts = parts[:-2]
    loc = ".".join(parts)
    field = f"{where}{sep}{loc}" if where and loc else (where or loc or "arguments")
    count = len({e.fork if e.fork is not None else e.place for e in others})  # a union's members: one problem
    more = f" (and {count} more)" if count else ""
    return InputError(field, problem + more, fix)


@dataclass(frozen=True, eq=False)
class _Problem:
    error: Any  # one of pydantic's errors
    place: tuple[int | str, ...]  # its location in the input: union members' labels left out
    fork: tuple[int | str, ...] | None  # the place of the union whose member it comes from, if any


def _sentence(msg: object, wanted: bool = False) -> str:
    """pydantic's sentence inside ours (quoted values keep their case); wanted: only what it asks for."""
    text = str(msg)
    if wanted:
        text = re.sub(r"^Input should be ", "", text)
    return text[:1].lower() + text[1:]


def _most_telling(errors: list[_Problem]) -> _Problem:
    """The problem to name: the first, unless it is a missing field beside an unknown one (a misspelt key is
    both, and its spelling is the one to name), or one union member's refusal of the value's type where
    another member took the value's shape and refused something inside it (that is the member meant)."""
    first = errors[0]
    if first.error["type"] == "missing":
        parent = first.place[:-1]
        first = next((e for e in errors if e.error["type"] == "extra_forbidden" and e.place[:-1] == parent), first)
    if first.fork is not None and first.place == first.fork:
        deeper = [e for e in errors if e.fork == first.fork and len(e.place) > len(first.place)]
        first = deeper[0] if deeper else first
    return first


def _place(tp: Any, loc: tuple[int | str, ...]) -> tuple[tuple[int | str, ...], tuple[int | str, ...] | None]:
    """loc without the labels pydantic adds for a union's members, and where the first such union is."""
    if tp is None:
        return loc, None
    candidates: list[Any] = [tp]
    out: list[int | str] = []
    fork: tuple[int | str, ...] | None = None
    for part in loc:
        if isinstance(part, str):
            alts = [a for t in candidates for a in _alternatives(t)]
            named = [a for a in alts if part.replace(" ", "").lower() in _labels(a)] if len(alts) > 1 else []
            if named:  # a member's label, not a place in the input
                fork = tuple(out) if fork is None else fork
                candidates = named
                continue
        out.append(part)
        candidates = [inner for t in candidates for inner in _inside(t, part)]
    return tuple(out), fork


_QUALIFIED = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\.([A-Za-z_]\w*)")


def _labels(tp: Any) -> set[str]:
    """The labels pydantic may give tp as a union member: 'str', 'list[str]', 'Draft', 'constrained-str'."""
    if typing.get_origin(tp) is None and isinstance(tp, type):
        label = tp.__name__.lower()
    else:
        label = _QUALIFIED.sub(r"\1", str(tp).replace(" ", "")).lower()
    return {label, f"constrained-{label}"}


def _close(name: object, known: list[str]) -> str | None:
    """The known field a misspelt key most likely means, if one is close enough."""
    close = difflib.get_close_matches(str(name).lower().replace("-", "_"), known, n=1, cutoff=0.6)
    return close[0] if close else None


def _known_fields(tp: Any, loc: tuple[int | str, ...]) -> list[str]:
    """The field names of the model found at loc inside tp, walking models' fields, list items and
    mapping values (through unions and Annotated); [] when there is no model there."""
    types = [tp] if tp is not None else []
    for part in loc:
        types = [inner for t in types for inner in _inside(t, part)]
    models = [m for t in types for m in _alternatives(t) if isinstance(getattr(m, "model_fields", None), dict)]
    return list(models[0].model_fields) if models else []


def _alternatives(tp: Any) -> list[Any]:
    """tp without Annotated, its union's members one by one."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _alternatives(typing.get_args(tp)[0])
    if origin is typing.Union or origin is types.UnionType:
        return [a for arg in typing.get_args(tp) for a in _alternatives(arg)]
    return [tp]


def _inside(tp: Any, part: int | str) -> list[Any]:
    """The types one step of an error's location leads to from tp: a field, an item, a mapping's value."""
    out = []
    for t in _alternatives(tp):
        fields = getattr(t, "model_fields", None)
        origin, args = typing.get_origin(t), typing.get_args(t)
        if isinstance(fields, dict):
            if isinstance(part, str) and part in fields:
                out.append(fields[part].annotation)
        elif isinstance(origin, type) and issubclass(origin, abc.Mapping) and len(args) == 2:
            out.append(args[1])
        elif isinstance(part, int) and isinstance(origin, type) and issubclass(origin, abc.Iterable) and args:
            out.append(args[0])
    return out


class ToolFailure(RuntimeError):
    """An operation on valid input that could not complete (for example a git command failed)."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(_capped(a) if isinstance(a, str) else a for a in args))
