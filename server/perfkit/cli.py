"""CLI adapter: `perfkit <tool-name> ARGS [--json]`, generated from the same ToolSpecs as MCP.

Required parameters are positional in the function's order, optional ones are --options; the
arguments are validated by pydantic exactly as the MCP server validates them. Exit codes: 0 ok,
2 bad input (one line on stderr), 1 any other failure.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import types
import typing
from typing import Any, Literal

from pydantic import ValidationError, create_model

from perfkit import __version__
from perfkit.errors import InputError, ToolFailure
from perfkit.toolspec import ToolSpec

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


def _add_param(parser: argparse.ArgumentParser, p: inspect.Parameter) -> None:
    tp, desc = _unwrap(p.annotation)
    help_text = (desc or "").replace("%", "%%")
    choices = None
    lit = [a for a in _non_none(tp) if typing.get_origin(a) is Literal]
    if lit:
        choices = list(typing.get_args(lit[0]))
    # choices are checked by pydantic, like every other value, so a wrong one is a one-line error too
    if choices:
        help_text += f" (one of: {', '.join(map(str, choices))})"
    if p.default is inspect.Parameter.empty:
        parser.add_argument(p.name, metavar=p.name.upper(), help=help_text)
        return
    flag = "--" + p.name.replace("_", "-")
    if _is(tp, bool) and not _is(tp, str):
        parser.add_argument(
            flag,
            dest=p.name,
            action=argparse.BooleanOptionalAction,
            default=None,
            help=f"{help_text} (default: {p.default})",
        )
    elif _is(tp, list) and not _is(tp, str):
        parser.add_argument(
            flag, dest=p.name, action="append", default=None, metavar="VALUE", help=f"{help_text} (repeat for several)"
        )
    else:
        parser.add_argument(
            flag, dest=p.name, default=None, metavar="VALUE", help=f"{help_text} (default: {p.default})"
        )


def _coerce(tp: Any, value: Any) -> Any:
    """JSON for structured parameters (dicts, models); strings stay strings for pydantic to convert."""
    if isinstance(value, str) and any(_is(tp, k) for k in (dict,)) and value.lstrip()[:1] in "{[":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def _validate(spec: ToolSpec, raw: dict[str, Any]) -> dict[str, Any]:
    params = spec.parameters()
    fields = {p.name: (p.annotation, ... if p.default is inspect.Parameter.empty else p.default) for p in params}
    model = create_model(f"{spec.name}_args", **fields)  # type: ignore[call-overload]
    given = {p.name: _coerce(_unwrap(p.annotation)[0], raw[p.name]) for p in params if raw.get(p.name) is not None}
    try:
        validated = model.model_validate(given)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"]) or "arguments"
        raise InputError(field, err["msg"].lower(), "see `perfkit " + spec.cli_name + " --help`") from None
    return {p.name: getattr(validated, p.name) for p in params}


def _render(result: Any) -> str:
    if hasattr(result, "human"):
        return result.human()
    return json.dumps(result.model_dump(mode="json"), indent=2)


def _run_tool(spec: ToolSpec, ns: argparse.Namespace) -> int:
    from perfkit.progressbar import ProgressBar

    bar = ProgressBar() if spec.wants_progress and not ns.quiet else None
    try:
        args = _validate(spec, vars(ns))
        result = spec.call(args, bar)
    finally:
        if bar:
            bar.close()
    if ns.json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    else:
        sys.stdout.write(_render(result) + "\n")
    code = getattr(result, "cli_exit_code", None)  # a result may say its answer is not a success
    return int(code()) if callable(code) else EXIT_OK


def build_parser(specs: list[ToolSpec]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="perfkit",
        description="Publish performance campaigns and bisect precision regressions.",
        epilog="Every tool command accepts --json to print the tool's structured result exactly as MCP returns it.",
    )
    parser.add_argument("--version", action="version", version=f"perfkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("serve", help="run the MCP server on stdio (what Claude Code starts)")
    for name, (fn, help_text) in _extra_commands().items():
        extra = sub.add_parser(name, help=help_text, description=help_text)
        fn(extra)
    for spec in specs:
        first = spec.description.split("\n\n")[0].replace("\n", " ")
        p = sub.add_parser(
            spec.cli_name,
            help=first.split(". ")[0].replace("%", "%%"),
            description=spec.description.replace("%", "%%"),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        for param in spec.parameters():
            _add_param(p, param)
        p.add_argument("--json", action="store_true", help="print the structured result as JSON")
        if spec.wants_progress:
            p.add_argument("--quiet", action="store_true", help="no progress bar")
        p.set_defaults(_spec=spec, quiet=False)
    return parser


def _extra_commands() -> dict[str, tuple[Any, str]]:
    """Commands that are not MCP tools (the demo); each registers its own arguments."""
    try:
        from perfkit.demo.command import COMMAND
    except ImportError:
        return {}
    return {COMMAND.name: (COMMAND.configure, COMMAND.help)}


def main(argv: list[str] | None = None) -> int:
    from perfkit.registry import all_tools

    if (sys.argv[1:] if argv is None else argv) == ["serve"]:  # before the parsers: they import every tool
        from perfkit.server import serve

        serve()
        return EXIT_OK
    parser = build_parser(all_tools())
    ns = parser.parse_args(argv)
    if ns.command is None:
        parser.print_help()
        return EXIT_BAD_INPUT
    if ns.command == "serve":
        from perfkit.server import serve

        serve()
        return EXIT_OK
    try:
        if hasattr(ns, "_spec"):
            return _run_tool(ns._spec, ns)
        return ns._run(ns)
    except InputError as exc:
        print(f"perfkit: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ToolFailure as exc:
        print(f"perfkit: failed: {exc}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("perfkit: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: one line for users, the traceback on request
        if os.environ.get("PERFKIT_DEBUG"):
            raise
        print(
            f"perfkit: internal error: {type(exc).__name__}: {exc} (set PERFKIT_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
