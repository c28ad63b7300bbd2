"""A dependency-free progress bar for the CLI (stderr, so --json output stays clean).

A bisect's total is an estimate that grows when a point is skipped or a second level starts. A bar that
shrinks reads as lost work, so the filled part never goes back, and once the total has changed it is
shown as "about N".

On a terminal the bar redraws in place. Anywhere else (a log file, CI, a pipe) each redraw would be a
new line, so there a line is written only when the count moves: one per item or step, never one per
message or per second of a long step.
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
        self._written_done = 0.0

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
        if not self.tty:
            if done <= self._written_done:
                return
            self._written_done = done
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
