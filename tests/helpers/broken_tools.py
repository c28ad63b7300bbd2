"""Tools with planted bugs, to show what the adapters make of an exception no tool expected."""

from __future__ import annotations

from pydantic import BaseModel


class Values(BaseModel):
    values: list[float]


def broken_tool(size: int) -> Values:
    """A tool that divides by zero."""
    return Values(values=[1.0 / (size - size)])


def infinite_tool(size: int) -> Values:
    """A tool whose result holds an infinity."""
    return Values(values=[1.0] + [float("inf")] * (size - 1))
