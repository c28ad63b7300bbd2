"""A dependency-free progress bar for the CLI (stderr, so --json output stays clean)."""

from __future__ import annotations

import sys
import time


class ProgressBar:
    def __init__(self, stream=None, width: int = 28):
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last = ""
        self._started = time.monotonic()

    def __call__(self, done: float, total: float | None = None, message: str | None = None) -> None:
        elapsed = time.monotonic() - self._started
        if total:
            frac = max(0.0, min(1.0, done / total))
            filled = int(frac * self.width)
            bar = "[" + "#" * filled + "." * (self.width - filled) + f"] {done:g}/{total:g}"
        else:
            bar = f"[{done:g}]"
        line = f"{bar} {elapsed:5.0f}s {message or ''}".rstrip()
        if line == self._last:
            return
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
