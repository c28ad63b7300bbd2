"""The tools/list answer kept on disk, so a server start need not import every tool to list them.

Building the schemas means importing every tool module and letting pydantic walk every model:
about a third of a cold start, paid on every start although the answer only changes with the code.
The answer is stored under a fingerprint of everything that shapes it (perfkit's sources, the
mcp and pydantic versions, Python's), so an edited tool or an upgrade is never listed stale.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from perfkit import __version__
from perfkit.guards import private_dirs

log = logging.getLogger("perfkit")
PACKAGE = Path(__file__).resolve().parents[1]  # the whole perfkit package: perfkit/mcp_server/this file


def cache_dir() -> Path:
    """PERFKIT_CACHE_DIR, else the platform's user cache folder (XDG_CACHE_HOME or ~/.cache)."""
    explicit = os.environ.get("PERFKIT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return private_dirs.xdg_home("XDG_CACHE_HOME", strict=False) / "perfkit"


def fingerprint(root: Path = PACKAGE) -> str:
    """Changes whenever a source file of the package, or a library that shapes the schemas, changes."""
    h = hashlib.sha256()
    for name in ("mcp", "pydantic", "pydantic-core"):
        try:
            h.update(f"{name}={metadata.version(name)}\n".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{name}=?\n".encode())
    h.update(f"python={sys.version_info[:3]} perfkit={__version__}\n".encode())
    for path in sorted(root.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(root)} {st.st_size} {st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:32]


def _path(key: str) -> Path:
    return cache_dir() / f"tools-{key}.json"


def load(key: str) -> list[dict[str, Any]] | None:
    """The stored tool list for key; None when there is none or it cannot be read."""
    try:
        data = json.loads(_path(key).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, list) or not all(isinstance(t, dict) and isinstance(t.get("name"), str) for t in data):
        return None
    return data


def store(key: str, tools: list[dict[str, Any]]) -> None:
    """Write atomically (a reader sees the old file or the new one, never half); a failure only costs speed."""
    target = _path(key)
    tmp: str | None = None
    try:
        private_dirs.make_dir(target.parent)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tools-", suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(tools, f)
        os.replace(tmp, target)
    except OSError:
        log.debug("tool list cache not written", exc_info=True)
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
