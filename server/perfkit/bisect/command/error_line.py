"""The line a broken command printed at every point: what a skip storm's message quotes.

"exit 1 without a verdict line" says the command failed, not why; the why is nearly always the
last line it printed (a traceback's exception, a missing file, a refused option). A storm is only
called when every point skipped, so the line they all end on is the one to show.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

TAIL_BYTES = 65536  # the end of a log is where an error is printed; the log keeps at least this much
MAX_CHARS = 200


def last_line(log: str | None) -> str | None:
    """The last line the commands printed in a step's log (perfkit's own notes and command echoes left out)."""
    if not log:
        return None
    try:
        with Path(log).open("rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - TAIL_BYTES))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line and not line.startswith(("[perfkit", "perfkit", "$ ", "(cwd ")):
            return line[:MAX_CHARS]
    return None


def shared(logs: Iterable[str | None]) -> str | None:
    """The last printed line when every log ends on the same one, else None."""
    lines = {last_line(log) for log in logs}
    if len(lines) != 1:
        return None
    return lines.pop()
