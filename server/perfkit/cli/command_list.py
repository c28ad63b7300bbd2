"""The top-level command list (name and one-line summary of each tool) kept on disk.

`perfkit --help`, `perfkit --version` and a mistyped command need only the commands' names and
summaries, but those come from the tool records, and importing every tool (their pydantic models)
is most of such a start. The list is stored under the same fingerprint as the server's cached tool
list (perfkit's sources, the library and Python versions), so an edited tool is never listed stale;
a list that cannot be read or written only costs the import.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

from perfkit.guards import private_dirs
from perfkit.mcp_server import tool_list_cache

log = logging.getLogger("perfkit")


def _path(key: str) -> Path:
    return tool_list_cache.cache_dir() / f"cli-commands-{key}.json"


def key() -> str:
    return tool_list_cache.fingerprint()


def load(key: str) -> list[tuple[str, str]] | None:
    """The stored (command, summary) pairs for key; None when there are none or they cannot be read."""
    try:
        data = json.loads(_path(key).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, list) or not all(
        isinstance(d, list) and len(d) == 2 and all(isinstance(x, str) for x in d) for d in data
    ):
        return None
    return [(name, summary) for name, summary in data]


def store(key: str, commands: list[tuple[str, str]]) -> None:
    """Write atomically (a reader sees the old file or the new one); a failure only costs speed."""
    target = _path(key)
    tmp: str | None = None
    try:
        private_dirs.make_dir(target.parent)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".cli-commands-", suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump([list(c) for c in commands], f)
        os.replace(tmp, target)
    except OSError:
        log.debug("command list cache not written", exc_info=True)
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
