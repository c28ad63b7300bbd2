"""Core text in a shell user's terms: flags for arguments, commands for tools, "you" for the user.

The core writes its help and its errors once, for the surface an agent reads: argument names as
MCP passes them (`campaign_dir`, `columns={...}`) and tools by their MCP names. A person at a shell
types `--campaign-dir` and `perfkit read-benchmark`, so the CLI adapter rewrites those words, and
only those: a name is rewritten where it is one of the command's own arguments, never inside a path,
a longer identifier or a column name.
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from dataclasses import dataclass
from typing import Any

from perfkit.errors import InputError
from perfkit.tools.spec import ToolSpec


@dataclass(frozen=True)
class Vocabulary:
    """The words of other commands the CLI rewrites in any command's text: each tool's MCP name -> its
    command, and each argument with an underscore -> its flag (the last tool's, as listed).

    Made from the tool records (`of`), or read back from the command list on disk (`from_json`), so a
    command's start imports its own tool only, not every tool to learn their names."""

    commands: dict[str, str]
    flags: dict[str, str]

    @classmethod
    def of(cls, specs: list[ToolSpec]) -> Vocabulary:
        return cls(
            commands={s.name: s.cli_name for s in specs},
            flags={p.name: flag(p) for s in specs for p in s.parameters() if "_" in p.name},
        )

    def to_json(self) -> dict[str, Any]:
        return {"commands": self.commands, "flags": self.flags}

    @classmethod
    def from_json(cls, data: Any) -> Vocabulary | None:
        """None unless data is what to_json wrote."""
        if not isinstance(data, dict) or set(data) != {"commands", "flags"}:
            return None
        maps = [data["commands"], data["flags"]]
        if not all(isinstance(m, dict) and all(isinstance(v, str) for v in [*m, *m.values()]) for m in maps):
            return None
        return cls(commands=dict(maps[0]), flags=dict(maps[1]))


def flag(p: inspect.Parameter) -> str:
    """How the command line spells a parameter: NAME for a positional, --name for an option."""
    if p.default is inspect.Parameter.empty:
        return p.name.upper()
    return "--" + p.name.replace("_", "-")


def _is_list(annotation: Any) -> bool:
    tp = annotation
    if typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    kinds = typing.get_args(tp) if typing.get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
    return any(k is list or typing.get_origin(k) is list for k in kinds) and str not in kinds


def tool_words(text: str, words: Vocabulary) -> str:
    """`bisect_run` -> `perfkit bisect-run`; a name inside a path, a longer identifier or code stays."""
    names = sorted(words.commands, key=len, reverse=True)
    if not names:  # a command that is not a tool (the demo) has no tool names to reword
        return text
    pattern = re.compile(r"(?<![\w/.\-])(" + "|".join(map(re.escape, names)) + r")(?![\w/\-(=]|\.\w)")
    return pattern.sub(lambda m: "perfkit " + words.commands[m.group(1)], text)


def _json_list(text: str) -> list[str] | None:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return [str(v) for v in value] if isinstance(value, list) else None


def _value_end(text: str, start: int) -> int:
    """End of a value written after `name=`: a balanced {...} or [...], a <placeholder>, a quoted string, or
    one word."""
    if start < len(text) and text[start] in "{[":
        depth, quote = 0, False
        for i in range(start, len(text)):
            c = text[i]
            if c == '"' and text[i - 1] != "\\":
                quote = not quote
            elif not quote and c in "{[":
                depth += 1
            elif not quote and c in "}]":
                depth -= 1
                if depth == 0:
                    return i + 1
        return len(text)
    m = re.compile(r"<[^<>]*>|\"[^\"]*\"|'[^']*'|[^\s,;)]+").match(text, start)
    return m.end() if m else start


def argument_words(text: str, spec: ToolSpec) -> str:
    """The tool's argument names written as its command line spells them."""
    params = {p.name: p for p in spec.parameters()}
    if not params:
        return text
    names = "|".join(sorted(map(re.escape, params), key=len, reverse=True))
    # name=VALUE (how a call passes it): the flag with the value, quoted for a shell. `name = VALUE` is a
    # settings-file line, which the command line's user writes the same way: it stays.
    out, pos = [], 0
    for m in re.finditer(rf"(?<![\w\-./$])({names})=(?=[\[{{\"'\w<])", text):
        if m.start() < pos:
            continue
        p = params[m.group(1)]
        end = _value_end(text, m.end())
        value = text[m.end() : end]
        out.append(text[pos : m.start()])
        out.append(_flag_with_value(p, value))
        pos = end
    text = "".join(out) + text[pos:]
    # `name` in backticks, and a name with an underscore anywhere as a word of its own
    text = re.sub(rf"`({names})`", lambda m: f"`{flag(params[m.group(1)])}`", text)
    underscored = [n for n in params if "_" in n]
    if underscored:
        pattern = "|".join(sorted(map(re.escape, underscored), key=len, reverse=True))
        text = re.sub(rf"(?<![\w\-./`$])({pattern})(?![\w\-/`(])", lambda m: flag(params[m.group(1)]), text)
    return text


def _flag_with_value(p: inspect.Parameter, value: str) -> str:
    name = flag(p)
    items = _json_list(value) if value.startswith("[") else None
    if items is not None and _is_list(p.annotation):
        return " ".join(f"{name} {_shell(v)}" for v in items) if items else name
    if value[:1] in "\"'" and value[-1:] == value[:1]:
        value = value[1:-1]
    if re.fullmatch(r"<[^<>]*>", value):  # a placeholder (`<the baseline arm>`) for the user to replace
        return f"{name} {value}"
    return f"{name} {_shell(value)}"


def _shell(value: str) -> str:
    return value if re.fullmatch(r"[\w.,:/@%+=-]+", value) else "'" + value.replace("'", "'\\''") + "'"


def person_words(text: str) -> str:
    """The MCP texts speak to an agent about its user; on the command line the reader is that user."""
    text = re.sub(r"\bthe user's\b", "your", text)
    return re.sub(r"\bThe user's\b", "Your", text)


def other_arguments(text: str, spec: ToolSpec | None, words: Vocabulary) -> str:
    """Another command's argument named in this one's text (`build_ahead` is set at bisect_start): its flag.

    Only names with an underscore: a one-word name (`devices`, `backend`) reads as plain prose too.
    """
    own = {p.name for p in spec.parameters()} if spec is not None else set()
    flags = {n: f for n, f in words.flags.items() if n not in own and f.startswith("--")}
    if not flags:
        return text
    pattern = "|".join(sorted(map(re.escape, flags), key=len, reverse=True))
    return re.sub(rf"(?<![\w\-./`$])({pattern})(?![\w\-/`(])", lambda m: flags[m.group(1)], text)


def cli_text(text: str, spec: ToolSpec | None, words: Vocabulary) -> str:
    """Help or error text of one command in the command line's terms."""
    if spec is not None:
        text = argument_words(text, spec)
    text = other_arguments(text, spec, words)
    return person_words(tool_words(text, words))


def cli_error(exc: InputError, spec: ToolSpec | None, words: Vocabulary) -> str:
    """An InputError for the command line: the field as its flag, the text in the CLI's words."""
    field, repeat = exc.field, ""
    if spec is not None:
        params = {p.name: p for p in spec.parameters()}
        head = re.split(r"[.\[]", field, maxsplit=1)[0]
        if head in params:
            rest = field[len(head) :]
            field = flag(params[head]) + rest
            if _is_list(params[head].annotation) and field.startswith("--") and re.fullmatch(r"(\.\d+)?", rest):
                # one value per flag: "0,1" or "0 1" is one odd value to the core (not a field inside an item)
                repeat = f" ({field} takes one value; repeat it for several: {field} A {field} B)"
    text = f"{field}: {cli_text(exc.problem, spec, words)}"
    if exc.fix:
        text += f"; {cli_text(exc.fix, spec, words)}"
    return text + (repeat if repeat and "repeat" not in text else "")
