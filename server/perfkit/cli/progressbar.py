"""A dependency-free progress bar for the CLI (stderr, so --json output stays clean).

On a terminal the bar is redrawn in place (a heartbeat each second while a command runs); on a
pipe or a log file it writes one line per step, never one per heartbeat.

A bisect's total is an estimate that grows when a point is skipped or a second level starts. A bar that
shrinks reads as lost work, so the filled part never goes back, and once the total has changed it is
shown as "about N".
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    def __init__(self, stream: TextIO | None = None, width: int = 28) -> None:
        self.stream: TextIO = stream or sys.stderr
        self.width = width
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last = ""
        self._started = time.monotonic()
        self._filled = 0
        self._total: float | None = None
        self._estimate = False
        self._logged: tuple[float, float | None] | None = None

    def _counts(self, done: float, total: float) -> str:
        if self._total is not None and total != self._total:
            self._estimate = True
        self._total = total
        return f"{done:g}/about {total:g}" if self._estimate else f"{done:g}/{total:g}"

    def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None:
        elapsed = time.monotonic() - self._started
        if total:
            frac = max(0.0, min(1.0, done / total))
            self._filled = max(self._filled, int(frac * self.width))
            counts = self._counts(done, total)
            bar = "[" + "#" * self._filled + "." * (self.width - self._filled) + f"] {counts}"
        else:
            bar = f"[{done:g}]"
        line = f"{bar} {elapsed:5.0f}s {message or ''}".rstrip()
        if line == self._last:
            return
        if not self.tty:  # a log file or a pipe: one line per step, not one per heartbeat second
            if (done, total) == self._logged:
                return
            self._logged = (done, total)
        self._last = line
        if self.tty:
            self.stream.write("\r\x1b[2K" + line[:200])
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self._last:
            self.stream.write("\n")
            self.stream.flush()
