"""argparse's private parts perfkit's command line relies on, in this one module.

argparse has no public way to list a parser's sub-commands or options, to tell an option that is
repeated for several values, or to widen the column of command names. The CLI reaches these only
here, and tests/test_private_api_contract.py fails when a Python version changes them, or when it runs
on a Python not in SUPPORTED_PYTHON (Python itself is not capped in pyproject.toml, so that a newer
one still installs perfkit): add a version after the test passes on it.
"""

from __future__ import annotations

import argparse
from typing import Any

SUPPORTED_PYTHON = ("3.11", "3.12", "3.13", "3.14")  # whose argparse the contract test was written against


def actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Every argument of the parser, positional and optional, in the order they were added."""
    return list(parser._actions)


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's sub-commands by name (empty when it has none)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def takes_one_value_per_flag(action: argparse.Action) -> bool:
    """An option given once per value (action="append"): `--devices 0 --devices 1`."""
    return isinstance(action, argparse._AppendAction)


class WideCommandList(argparse.HelpFormatter):
    """Room for the longest command name, so each command's summary stays on the name's own line.

    argparse measures sub-commands two columns short of where it prints them; widen by that much.
    """

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if isinstance(action, argparse._SubParsersAction):
            longest = max((len(name) for name in action.choices), default=0)
            self._action_max_length = max(self._action_max_length, longest + 6)


class LazyParser(argparse.ArgumentParser):
    """A parser whose arguments are added by `fill` the first time anything reads them.

    `perfkit --help` lists the commands and `perfkit bisect-run ...` parses one: building every
    command's options and help (a dozen tools, each text reworded for the shell) is most of a start
    otherwise. argparse reads a parser's arguments through `_actions` (parsing, help, usage), so
    reading it fills the parser first; fill may also set the description, epilog and defaults."""

    fill: Any = None

    @property
    def _actions(self) -> list[argparse.Action]:
        fill = self.__dict__.get("fill")
        if fill is not None:
            self.fill = None
            fill(self)
        actions: list[argparse.Action] = self.__dict__["_actions_list"]
        return actions

    @_actions.setter
    def _actions(self, value: list[argparse.Action]) -> None:
        self.__dict__["_actions_list"] = value
