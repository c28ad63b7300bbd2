"""CLI adapter: `perfkit <tool-name> ARGS [--json]`, generated from the same ToolSpecs as MCP.

Required parameters are positional in the function's order, optional ones are --options; the
arguments are validated by pydantic exactly as the MCP server validates them. Exit codes: 0 ok,
2 bad input (one line on stderr), 1 any other failure.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import os
import re
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from perfkit import __version__
from perfkit.cli import command_list
from perfkit.cli.argparse_private import LazyParser, WideCommandList
from perfkit.cli.terms import Vocabulary, cli_error, cli_text, tool_words
from perfkit.errors import InputError, ToolFailure
from perfkit.registry import tools_in
from perfkit.tools.spec import ToolSpec, argument_error

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT = 0, 1, 2


def _unwrap(annotation: Any) -> tuple[Any, str]:
    """The bare type and the Field description of an Annotated parameter."""
    description = ""
    if typing.get_origin(annotation) is typing.Annotated:
        base, *meta = typing.get_args(annotation)
        for m in meta:
            description = getattr(m, "description", None) or description
        return base, description
    return annotation, description


def _non_none(tp: Any) -> list[Any]:
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return [a for a in typing.get_args(tp) if a is not type(None)]
    return [tp]


def _is(tp: Any, kind: type) -> bool:
    return any(a is kind or typing.get_origin(a) is kind for a in _non_none(tp))


def _structured(tp: Any) -> bool:
    """A parameter given as JSON on the command line: a mapping, or a model's object."""
    return any(
        a is dict or typing.get_origin(a) is dict or (isinstance(a, type) and issubclass(a, BaseModel))
        for a in _non_none(tp)
    )


_PATH_NAMES = {"repo", "path", "paths", "run_cwd", "submodule", "checkout_paths"}
_REV_NAMES = {"good", "bad", "base", "head", "commit"}
_COMMAND_NAMES = {"run", "install", "install_submodule"}


def metavar(name: str, tp: Any) -> str:
    """The placeholder a user reads in --help, from the parameter's type and name (never a bare VALUE)."""
    kinds = _non_none(tp)
    lit = [a for a in kinds if typing.get_origin(a) is Literal]
    if lit:
        return "{" + ",".join(str(c) for c in typing.get_args(lit[0])) + "}"
    if _structured(tp):
        return "JSON|PATH" if _is(tp, str) else "JSON"
    if _is(tp, bool):
        return "BOOL"
    if _is(tp, int):
        return "N"
    if _is(tp, float):
        return "SECONDS" if name.endswith("_s") else "NUMBER"
    if name in _PATH_NAMES or name.endswith("_dir") or name.endswith("_dirs"):
        return "PATH"
    if name in _REV_NAMES:
        return "REV"
    if name in _COMMAND_NAMES:
        return "COMMAND"
    if name.endswith("_pattern"):
        return "REGEX"
    if name == "subdirs":
        return "SUBDIR"
    return "TEXT"


def _default_text(default: Any) -> str:
    if isinstance(default, list):
        return ", ".join(map(str, default))
    if isinstance(default, bool):
        return "on" if default else "off"
    return str(default)


def option_help(description: str, default: Any) -> str:
    """The description with the default stated once: appended only when the text does not give it."""
    text = description.strip()
    if default not in (None, inspect.Parameter.empty) and not re.search(r"\bdefault\b", text, re.IGNORECASE):
        text = f"{text.rstrip('.')}. Default: {_default_text(default)}."
    return text.replace("%", "%%")


def _add_param(parser: argparse.ArgumentParser, p: inspect.Parameter, spec: ToolSpec, words: Vocabulary) -> None:
    tp, desc = _unwrap(p.annotation)
    desc = cli_text(spec.cli.params.get(p.name, desc), spec, words)
    name = metavar(p.name, tp)
    # choices are checked by pydantic, like every other value, so a wrong one is a one-line error too
    if p.default is inspect.Parameter.empty:
        parser.add_argument(p.name, metavar=p.name.upper(), help=option_help(desc, p.default))
        return
    flag = "--" + p.name.replace("_", "-")
    help_text = option_help(desc, p.default)
    if _is(tp, bool) and not _is(tp, str):
        parser.add_argument(flag, dest=p.name, action=argparse.BooleanOptionalAction, default=None, help=help_text)
    elif _is(tp, list) and not _is(tp, str):
        parser.add_argument(
            flag,
            dest=p.name,
            action="append",
            default=None,
            metavar=name,
            help=f"{help_text} Repeat {flag} for several.",
        )
    else:
        parser.add_argument(flag, dest=p.name, default=None, metavar=name, help=help_text)


def _coerce(tp: Any, value: Any) -> Any:
    """JSON for structured parameters (dicts, models); strings stay strings for pydantic to convert.

    A parameter that takes text too (render_pr's draft: an object, JSON text or a file path) keeps its
    text: the core reads it with its own limits and checks it against the same model.

    A list option is given by repeating its flag; one value written as a JSON list (`--devices '["0", "1"]'`,
    the form the MCP description shows) is read as that list rather than as one odd name.
    """
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str) and value[0].lstrip()[:1] == "[":
        try:
            items = json.loads(value[0])
        except json.JSONDecodeError:
            return value
        return [str(v) for v in items] if isinstance(items, list) else value
    if isinstance(value, str) and _structured(tp) and not _is(tp, str) and value.lstrip()[:1] in "{[":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _validate(spec: ToolSpec, raw: dict[str, Any]) -> dict[str, Any]:
    params = spec.parameters()
    model = spec.arguments_model()
    given = {p.name: _coerce(_unwrap(p.annotation)[0], raw[p.name]) for p in params if raw.get(p.name) is not None}
    try:
        validated = model.model_validate(given)
    except ValidationError as exc:
        raise argument_error(exc, f"see `perfkit {spec.cli_name} --help`", model) from None
    return {p.name: getattr(validated, p.name) for p in params}


def cli_words(text: str, words: Vocabulary) -> str:
    """A message written with MCP tool names, reworded for a shell user: `bisect_run` -> `perfkit bisect-run`.

    Core messages name the tools as an agent calls them; only this adapter knows the user is at a shell.
    A name inside a path, a longer identifier or code (a call, an assignment) is left alone.
    """
    return tool_words(text, words)


def _render(result: Any) -> str:
    from perfkit.guards.list_caps import omitted_note

    if hasattr(result, "human"):
        note = omitted_note(result)
        return str(result.human()) + (f"\n{note}" if note else "")
    return json.dumps(result.model_dump(mode="json"), indent=2)


def _run_tool(spec: ToolSpec, ns: argparse.Namespace, words: Vocabulary) -> int:
    from perfkit.cli.progressbar import ProgressBar

    bar = ProgressBar() if spec.wants_progress and not ns.quiet else None
    try:
        args = _validate(spec, vars(ns))
        result = spec.call(args, _Reworded(bar, words) if bar else None)
    finally:
        if bar:
            bar.close()
    if ns.json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write(cli_words(_render(result), words) + "\n")
    code = getattr(result, "cli_exit_code", None)  # a result may say its answer is not a success
    return int(code()) if callable(code) else EXIT_OK


class _Reworded:
    """Progress messages pass through cli_words on their way to the bar."""

    def __init__(self, bar: Any, words: Vocabulary) -> None:
        self.bar, self.words = bar, words

    def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None:
        self.bar(done, total, cli_words(message, self.words) if message else message)


SERVE_HELP = "run the MCP server on stdio (what MCP clients start)"
SERVE_DESCRIPTION = (
    "Run perfkit's MCP server on stdin/stdout until the client closes it. Claude Code starts it through the\n"
    "plugin's launcher; other clients run `perfkit serve` (see the README). Logs go to stderr.\n\n"
    "Examples:\n"
    "  perfkit serve                      # what an MCP client's server entry runs\n"
    "  npx @modelcontextprotocol/inspector perfkit serve   # try the tools in the MCP Inspector"
)


def _examples(spec: ToolSpec) -> str | None:
    """The Examples section of a command's --help."""
    if not spec.cli.examples:
        return None
    return "Examples:\n" + "".join(f"  {line}\n" for line in spec.cli.examples).replace("%", "%%")


def _raw(text: str) -> str:
    """argparse %-formats a description only when it names %(prog); keep a literal '%' literal."""
    return text.replace("%", "%%") if "%(" in text else text


def build_parser(
    specs: list[ToolSpec] | None = None,
    listing: list[tuple[str, str, str]] | None = None,
    words: Vocabulary | None = None,
) -> argparse.ArgumentParser:
    """The `perfkit` parser. Each tool command's arguments and help are made when that command is
    parsed or shown (LazyParser); with `listing` (command, summary, tool module) and `words` instead of
    specs, a command imports its own tool module only then, so `perfkit --help` imports none."""
    if specs is not None:
        listing = [(s.cli_name, command_list.summary(s), "") for s in specs]
        words = Vocabulary.of(specs)
    assert listing is not None and words is not None  # either specs, or a listing and its vocabulary
    given = specs

    # allow_abbrev=False everywhere: a cut-off option (--warmup-step) is an error with a "did you mean", never
    # silently another option, and a new option can never change what an old command line means
    parser = argparse.ArgumentParser(
        prog="perfkit",
        allow_abbrev=False,
        formatter_class=WideCommandList,
        description="Publish performance campaigns and bisect precision regressions.",
        epilog="`perfkit COMMAND --help` describes a command, with examples. Every tool command accepts --json "
        "to print the tool's structured result exactly as MCP returns it.",
    )
    parser.add_argument("--version", action="version", version=f"perfkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=LazyParser)
    sub.add_parser(
        "serve",
        help=SERVE_HELP,
        description=SERVE_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    for name, (fn, help_text, description) in _extra_commands().items():
        extra = sub.add_parser(
            name,
            help=help_text,
            description=description,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            allow_abbrev=False,
        )
        fn(extra)
    for name, summary, module in listing:
        p = sub.add_parser(name, help=summary, formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
        load = (lambda: given) if given is not None else functools.partial(tools_in, module)
        p.fill = functools.partial(_fill_command, name=name, load=load, words=words)
    return parser


def _fill_command(p: argparse.ArgumentParser, name: str, load: Callable[[], list[ToolSpec]], words: Vocabulary) -> None:
    """A tool command's arguments and help text, made when that command is parsed or shown."""
    spec = next(s for s in load() if s.cli_name == name)
    p.description = _raw(cli_text(spec.cli.description or spec.description, spec, words))
    p.epilog = _examples(spec)
    p.set_defaults(_spec=spec, quiet=False)
    for param in spec.parameters():
        _add_param(p, param, spec, words)
    p.add_argument("--json", action="store_true", help="print the structured result as JSON")
    if spec.wants_progress:
        p.add_argument("--quiet", action="store_true", help="no progress bar")


def _extra_commands() -> dict[str, tuple[Any, str, str]]:
    """Commands that are not MCP tools (the demo); each registers its own arguments."""
    try:
        from perfkit.cli.demo.command import COMMAND
    except ImportError:
        return {}
    return {COMMAND.name: (COMMAND.configure, COMMAND.help, COMMAND.description)}


def main(argv: list[str] | None = None) -> int:
    if (sys.argv[1:] if argv is None else argv) == ["serve"]:  # before the parsers: serve needs none
        from perfkit.mcp_server.server import serve

        serve()
        return EXIT_OK
    listing, words = command_list.current()
    parser = build_parser(listing=listing, words=words)
    args = sys.argv[1:] if argv is None else argv
    say = _Errors(as_json="--json" in args)
    from perfkit.cli.hints import extra_arguments_hint, unknown_command_hint

    hint = unknown_command_hint(args, parser)
    if hint:
        return say("bad_input", hint, EXIT_BAD_INPUT)
    if say.as_json:
        parsed = _parse_quietly(parser, args)
        if isinstance(parsed, str):
            return say("bad_input", parsed, EXIT_BAD_INPUT)
        ns, extras = parsed
    else:
        ns, extras = parser.parse_known_args(args)
    if extras:
        return say("bad_input", extra_arguments_hint(args, extras, ns, parser), EXIT_BAD_INPUT)
    if ns.command is None:
        parser.print_help()
        return EXIT_BAD_INPUT
    if ns.command == "serve":
        from perfkit.mcp_server.server import serve

        serve()
        return EXIT_OK
    spec = getattr(ns, "_spec", None)
    if spec is None:  # a command that is not a tool (the demo) has no tool names to reword
        words = Vocabulary(commands={}, flags={})
    try:
        if spec is not None:
            return _run_tool(spec, ns, words)
        return int(ns._run(ns))
    except InputError as exc:
        return say("bad_input", cli_error(exc, spec, words), EXIT_BAD_INPUT, field=_flag_of(exc.field, spec))
    except ToolFailure as exc:
        return say("failed", cli_text(str(exc), spec, words), EXIT_FAILURE)
    except KeyboardInterrupt:
        return say("interrupted", _interrupted(spec, ns), EXIT_INTERRUPTED)
    except Exception as exc:  # a bug: one line for users, the traceback on request
        if os.environ.get("PERFKIT_DEBUG"):
            raise
        text = f"{type(exc).__name__}: {exc} (set PERFKIT_DEBUG=1 for the traceback)"
        return say("internal_error", text, EXIT_FAILURE)


EXIT_INTERRUPTED = 130
_PREFIX = {"bad_input": "error", "failed": "failed", "interrupted": "", "internal_error": "internal error"}


class _Errors:
    """How the CLI ends on an error: one line on stderr, `perfkit: error: ...`; with --json, one JSON object
    on stderr instead, {"error": kind, "exit_code": N, "message": the same line, "field": the flag when one
    is at fault}, so a script reading stdout never mistakes an error for a result (stdout stays empty)."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json

    def __call__(self, kind: str, message: str, code: int, field: str | None = None) -> int:
        if self.as_json:
            said: dict[str, Any] = {"error": kind, "exit_code": code, "message": message}
            if field:
                said["field"] = field
            print(json.dumps(said), file=sys.stderr)
        elif kind == "interrupted":
            print(f"perfkit: {message}", file=sys.stderr)
        else:
            print(f"perfkit: {_PREFIX[kind]}: {message}", file=sys.stderr)
        return code


def _parse_quietly(parser: argparse.ArgumentParser, args: list[str]) -> tuple[argparse.Namespace, list[str]] | str:
    """argparse's own errors (a missing argument) as one line, for --json; --help still prints and exits."""
    import contextlib
    import io

    caught = io.StringIO()
    try:
        with contextlib.redirect_stderr(caught):
            return parser.parse_known_args(args)
    except SystemExit as exc:
        if exc.code in (0, None):
            raise
        lines = [ln for ln in caught.getvalue().splitlines() if ln.strip()]
        last = lines[-1] if lines else "bad arguments"
        return re.sub(r"^perfkit(?: [\w-]+)?: error: ", "", last)


def _flag_of(field: str, spec: ToolSpec | None) -> str:
    """The field of an InputError as the command line spells it (the JSON error's `field`)."""
    from perfkit.cli.terms import flag

    if spec is None:
        return field
    params = {p.name: p for p in spec.parameters()}
    head = re.split(r"[.\[]", field, maxsplit=1)[0]
    return flag(params[head]) + field[len(head) :] if head in params else field


def _interrupted(spec: ToolSpec | None, ns: argparse.Namespace) -> str:
    """Ctrl-C: a bisect keeps its steps and resumes where it stopped; say with which command."""
    import shlex

    repo = getattr(ns, "repo", None)
    if spec is not None and spec.name in ("bisect_run", "bisect_step") and repo:
        where = shlex.quote(str(repo))
        return (
            f"interrupted; the bisect keeps its steps: resume with `perfkit bisect-run {where}` "
            f"(or `perfkit bisect-step {where}`), or end it with `perfkit bisect-reset {where}`"
        )
    return "interrupted"


if __name__ == "__main__":
    sys.exit(main())
