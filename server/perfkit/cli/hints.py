"""What to say when a command line is almost right: a mistyped command, a value without its flag.

argparse answers both with its usage text and "invalid choice" or "unrecognized arguments"; a person
needs the one change that makes the line work.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shlex

from perfkit.cli.argparse_private import actions, subcommands, takes_one_value_per_flag


def unknown_command_hint(args: list[str], parser: argparse.ArgumentParser) -> str | None:
    """'read-benchmarks' -> did you mean `perfkit read-benchmark`; None when the command exists."""
    if not args or args[0].startswith("-"):
        return None
    commands = subcommands(parser)
    word = args[0]
    if word in commands:
        return None
    dashed = word.replace("_", "-").lower()
    # a command the word starts (a cut-off name) before one that is merely similar
    close = [c for c in commands if c.startswith(dashed)] if len(dashed) >= 3 else []
    for c in difflib.get_close_matches(dashed, list(commands), n=3, cutoff=0.6):
        if c not in close:
            close.append(c)
    close = close[:3]
    if close:
        rest = " ".join(shlex.quote(a) for a in args[1:])
        line = f"perfkit {close[0]}" + (f" {rest}" if rest else "")
        others = f" (or {', '.join(close[1:])})" if len(close) > 1 else ""
        return f"unknown command {word!r}; did you mean `{line}`{others}? `perfkit --help` lists the commands"
    return f"unknown command {word!r}; `perfkit --help` lists the commands"


def extra_arguments_hint(
    args: list[str], extras: list[str], ns: argparse.Namespace, parser: argparse.ArgumentParser
) -> str:
    """Arguments the command did not take, with the flag that would take them."""
    command = ns.command or ""
    sub = subcommands(parser).get(command)
    word = extras[0]
    help_line = f"`perfkit {command} --help` lists its arguments" if command else "`perfkit --help` lists the commands"
    options = [a for a in actions(sub) if a.option_strings and a.dest not in ("help", "json", "quiet")] if sub else []
    flags = [a.option_strings[0] for a in options]
    if word.startswith("-"):
        close = difflib.get_close_matches(word.replace("_", "-"), flags, n=1, cutoff=0.6)
        if close:
            return f"unknown option {word}; did you mean {close[0]}? {help_line}"
        return f"unknown option {word}; {help_line}"
    at = args.index(word) if word in args else -1
    lists = {a.option_strings[0] for a in options if takes_one_value_per_flag(a)}
    previous = args[at - 2] if at >= 2 else ""
    if previous in lists or (at >= 1 and args[at - 1].split("=", 1)[0] in lists and "=" in args[at - 1]):
        flag = previous if previous in lists else args[at - 1].split("=", 1)[0]
        value = args[at - 1].split("=", 1)[-1]
        return (
            f"unexpected argument {word!r}; {flag} takes one value, so repeat it for several: "
            f"{flag} {shlex.quote(value)} {flag} {shlex.quote(word)}. {help_line}"
        )
    looks_like_path = os.path.exists(word) or "/" in word or "." in word
    paths = [a.option_strings[0] for a in options if a.metavar == "PATH"]
    candidates = (paths if looks_like_path and paths else []) or flags
    if candidates:
        return (
            f"unexpected argument {word!r}: perfkit {command} takes it with a flag, "
            f"for example `perfkit {command} {candidates[0]} {shlex.quote(word)}`; {help_line}"
        )
    return f"unexpected argument {word!r}; {help_line}"
