"""Name a run or install command that cannot be found, before the bisect and in a step's verdict.

A command the shell cannot find exits 127 and prints no verdict line; without this, a typo in `run`
reads as "the good end is not good: exit 127 without a verdict line" after a checkout and an install.
The program a command starts is the first word of each of its parts (`a && b | c`), after any
`VAR=value` assignments, looked up on the PATH the command will run with. Words the shell itself
understands (builtins, keywords), and words built at run time (`$VAR`, `{device}`), are not judged.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from perfkit.errors import InputError

if TYPE_CHECKING:
    from perfkit.bisect.command.runner import Result
    from perfkit.bisect.command.verdict import Classified
    from perfkit.bisect.models import BisectSettings

NOT_FOUND = 127  # POSIX shells: the command was not found
# words after which the next word is still a command (`if grep ...`, `then make`, `! test`)
KEYWORDS = frozenset("! { } ( ) do done elif else fi if then time until while".split())
# builtins and words the shell runs itself: not looked up, and what follows them is their argument
BUILTINS = frozenset(
    ". : [ [[ alias bg break case cd command continue declare echo esac eval exec exit export false fg for "
    "function getopts hash in jobs kill let local printf pwd read readonly return select set shift source "
    "test times trap true type ulimit umask unalias unset wait".split()
)
# what a fresh virtual environment puts on a device worker's PATH before the user's own
VENV_PROGRAMS = frozenset({"python", "python3", "pip", "pip3"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_SEPARATORS = {"&&", "||", ";", "|", "&", "(", ")", ";;", "|&", "\n"}


def programs(command: str) -> list[str]:
    """The first word of each part of a shell command; [] when it cannot be read without a shell.

    Past a command substitution (`$(...)`, backticks, `<(...)`) the parts cannot be told apart without
    a shell, so only the parts before the first one are read.
    """
    cut = min((i for i in (command.find(m) for m in ("$(", "`", "<(", ">(")) if i >= 0), default=-1)
    if cut >= 0:
        head = command[:cut]
        # the part the substitution sits in is not judged: keep only the parts that ended before it
        ends = [head.rfind(sep) for sep in ("&&", "||", ";", "|", "\n")]
        command = head[: max(ends)] if max(ends) >= 0 else ""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote: the shell will say so itself
        return []
    # functions the command defines itself (`name() { ...; }`, `function name`) are not programs
    defined = {
        t for i, t in enumerate(tokens[:-1]) if tokens[i + 1 : i + 2] == ["()"] or tokens[i + 1 : i + 3] == ["(", ")"]
    }
    defined |= {tokens[i + 1] for i, t in enumerate(tokens[:-1]) if t == "function"}
    out: list[str] = []
    expect = True
    in_case = 0  # case patterns look like commands (`1) ...`): a case statement is not judged
    for token in tokens:
        if token in ("case", "esac") and (expect or in_case):
            in_case += 1 if token == "case" else -1
            expect = token == "esac"
            continue
        if in_case > 0:
            continue
        if token in _SEPARATORS or (token and set(token) <= set("&|;()")) or token == "{":  # `{` opens a body
            expect = True
            continue
        if not expect:
            continue
        if _ASSIGNMENT.match(token) or token in KEYWORDS:
            continue
        expect = False
        if token in BUILTINS or token in defined or any(c in token for c in "$`{}*?~<>"):
            continue
        out.append(token)
    return out


def missing(command: str, path: str, cwd: Path | None = None, extra: frozenset[str] = frozenset()) -> str | None:
    """The first program of command that is not on path (or, given with a folder, not there); else None."""
    for word in programs(command):
        if word in extra:
            continue
        if "/" in word:
            where = Path(word) if os.path.isabs(word) or cwd is None else cwd / word
            if cwd is not None or os.path.isabs(word):
                if not where.exists():
                    return word
            continue
        if shutil.which(word, path=path) is None:
            return word
    return None


def check_settings(settings: BisectSettings, notes: list[str]) -> None:
    """At bisect_start: refuse a command whose program is on no folder of the PATH the bisect runs with.

    Device workers with their own environments run with that environment's bin folder first; its
    python and pip are there even when the user's PATH has none. A program the install commands may
    put there (a console script) cannot be judged before they run: a note, not an error.
    """
    path = os.environ.get("PATH", os.defpath)
    venv = bool(settings.devices) and settings.worker_env == "venv"
    extra = VENV_PROGRAMS if venv else frozenset()
    fields = [("install", c) for c in settings.install] + [("install_submodule", c) for c in settings.install_submodule]
    fields.append(("run", settings.run))
    for name, command in fields:
        word = missing(command, path, extra=extra)
        if word is None:
            continue
        if venv and name == "run" and (settings.install or settings.install_submodule):
            notes.append(
                f"run: {word!r} is not on PATH now; the device environments must get it from the install commands"
            )
            continue
        raise InputError(
            name,
            f"command not found: {word} (not on the PATH the bisect runs with)",
            "install it, give its full path, or fix the command",
        )


def named(verdict: Classified, res: Result, command: str, env: dict[str, str], cwd: Path) -> Classified:
    """A step's verdict with "exit 127" said as what it was: the program that could not be found."""
    if verdict.verdict != "skip" or res.exit_code != NOT_FOUND or "exit 127" not in verdict.reason:
        return verdict
    word = missing(command, env.get("PATH", os.environ.get("PATH", os.defpath)), cwd)
    if word is None:
        return verdict
    said = f"command not found: {word}"
    reason = said if verdict.reason.startswith("exit 127 without") else verdict.reason.replace("exit 127", said, 1)
    return replace(verdict, reason=reason)
