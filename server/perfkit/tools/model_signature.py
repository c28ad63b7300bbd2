"""A tool's signature made from a pydantic model of its options, so the options are declared once.

A tool whose options are a model (read_benchmark's BenchmarkOptions, bisect_start's BisectOptions)
takes them as **options; its `__signature__` lists the model's fields as parameters, each with its
type, bounds and description. Both adapters read parameters from the signature, so the MCP input
schema and the CLI options show exactly what the model accepts, and the model checks the same
bounds wherever else the options come from (a draft block, a settings file).
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, Field
from pydantic.fields import FieldInfo


def parameters(model: type[BaseModel]) -> list[inspect.Parameter]:
    """The model's fields as the parameters of a tool's signature: type, bounds and description as declared."""
    out = []
    for name, info in model.model_fields.items():
        described = Field(description=info.description)
        tp, bounds = _flat(info.annotation)
        # the description first: a reader of one parameter's Field (the CLI help) finds it there
        annotation = Annotated.__class_getitem__((tp, described, *bounds, *info.metadata))  # type: ignore[attr-defined]
        out.append(
            inspect.Parameter(
                name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=info.default, annotation=annotation
            )
        )
    return out


def signature(func: Callable[..., Any], model: type[BaseModel]) -> inspect.Signature:
    """func's signature with **options replaced by the model's fields.

    func's own parameters come first, in their order. One that bears a field's name takes the field's
    declaration there (a setting the tool wants early, such as bisect_start's run); the other fields follow.
    """
    sig = inspect.signature(func, eval_str=True)
    fields = {p.name: p for p in parameters(model)}
    own = [
        fields[p.name].replace(kind=p.kind) if p.name in fields else p
        for p in sig.parameters.values()
        if p.kind != inspect.Parameter.VAR_KEYWORD
    ]
    named = {p.name for p in own}
    return sig.replace(parameters=[*own, *(p for n, p in fields.items() if n not in named)])


def _flat(annotation: Any) -> tuple[Any, list[Any]]:
    """`Annotated[X, bounds] | None` as `X | None` and its bounds (pydantic applies them to X alike).

    A model may name a bounded kind of value once (`Seconds = Annotated[float, Field(gt=0)]`) and make it
    optional; a parameter is read as Annotated[bare type, description, bounds] by the adapters."""
    if typing.get_origin(annotation) not in (typing.Union, types.UnionType):
        return annotation, []
    members = typing.get_args(annotation)
    bounded = [m for m in members if typing.get_origin(m) is Annotated]
    if len(bounded) != 1 or len(members) != 2 or type(None) not in members:
        return annotation, []
    bare = typing.get_args(bounded[0])[0]
    return bare | None, list(FieldInfo.from_annotation(bounded[0]).metadata)
