"""The top-level command list kept on disk: each tool's command, one-line summary and module, and
the Vocabulary every command's text is reworded with.

`perfkit --help`, `perfkit --version` and a mistyped command need only the commands' names and
summaries, and `perfkit COMMAND` needs its own tool and the other tools' names; all of those come
from the tool records, and importing every tool (their pydantic models) is most of such a start.
The list is stored under the same fingerprint as the server's cached tool list (perfkit's sources,
the library and Python versions), so an edited tool is never listed stale; a list that cannot be
read or written only costs the import.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from perfkit.cli.terms import Vocabulary
from perfkit.guards import private_dirs
from perfkit.mcp_server import tool_list_cache

if TYPE_CHECKING:
    from perfkit.tools.spec import ToolSpec

log = logging.getLogger("perfkit")


def _path(key: str) -> Path:
    return tool_list_cache.cache_dir() / f"cli-commands-{key}.json"


def key() -> str:
    return tool_list_cache.fingerprint()


Command = tuple[str, str, str]  # (command, summary, the tool module that declares it)


def load(key: str) -> tuple[list[Command], Vocabulary] | None:
    """The stored commands and vocabulary for key; None when there are none or they cannot be read."""
    try:
        data = json.loads(_path(key).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or set(data) != {"commands", "vocabulary"}:
        return None
    commands, words = data["commands"], Vocabulary.from_json(data["vocabulary"])
    if words is None or not isinstance(commands, list):
        return None
    if not all(isinstance(d, list) and len(d) == 3 and all(isinstance(x, str) for x in d) for d in commands):
        return None
    return [(name, summary, module) for name, summary, module in commands], words


def store(key: str, commands: list[Command], words: Vocabulary) -> None:
    """Write atomically (a reader sees the old file or the new one); a failure only costs speed."""
    target = _path(key)
    tmp: str | None = None
    try:
        private_dirs.make_dir(target.parent)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".cli-commands-", suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump({"commands": [list(c) for c in commands], "vocabulary": words.to_json()}, f)
        os.replace(tmp, target)
    except OSError:
        log.debug("command list cache not written", exc_info=True)
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def summary(spec: ToolSpec) -> str:
    """One short line for the top-level list: the tool's title, else its first sentence."""
    line = spec.title or spec.description.split(". ")[0].replace("\n", " ")
    return (line[0].lower() + line[1:]).replace("%", "%%")


def current() -> tuple[list[Command], Vocabulary]:
    """The stored list, or the list made from the tool modules (and stored) when there is none."""
    key_now = key()
    stored = load(key_now)
    if stored is None:
        from perfkit.registry import tool_modules

        found = tool_modules()
        stored = (
            [(s.cli_name, summary(s), module) for module, specs in found for s in specs],
            Vocabulary.of([s for _, specs in found for s in specs]),
        )
        store(key_now, *stored)
    return stored
