"""The verdict search in perfkit's own process, by RE2: no interpreter started per check.

`LinearScan` is `Scan` (scan.py) with RE2 doing the searching: the same blocks of whole lines, the
same first fail line, first pass line and last metric, so the verdict is the one Python's engine
would give (linear_pattern.py keeps Python's meaning). RE2's time is linear in the text, so a user's
pattern cannot hold a step: the search keeps pace with the output as the runner reads it.

A block whose characters outside ASCII have no stand-in for these patterns (rare: a pattern that
names such a character) cannot be searched exactly by RE2; `LinearSearch` then starts Python's
engine in a child process (scanproc.py, stopped at the step's deadline) for the rest of the output
and joins the two answers: a fail or pass line found before the hand-over stands, the metric is the
last one either side saw.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from perfkit.bisect.command import linear_pattern
from perfkit.bisect.command.linear_pattern import Linear, NotLinear
from perfkit.bisect.command.scan import Found, Scan
from perfkit.bisect.command.scanproc import GRACE_S, SLOW, ScanProcess

__all__ = ["LinearScan", "LinearSearch", "NotLinear", "join", "linear_scan"]

_LINE_SHOWN = 160
_PIECE = 256 * 1024  # bytes searched per RE2 call between looks at the clock


class LinearScan(Scan):
    def __init__(self, fail: re.Pattern[str], passed: re.Pattern[str], metric: re.Pattern[str] | None = None):
        super().__init__(fail, passed, metric)
        self.lin_fail = linear_pattern.translate(fail.pattern, fail.flags)
        self.lin_pass = linear_pattern.translate(passed.pattern, passed.flags)
        self.lin_metric = linear_pattern.translate(metric.pattern, metric.flags) if metric is not None else None
        used = [self.lin_fail, self.lin_pass] + ([self.lin_metric] if self.lin_metric is not None else [])
        self.alphabet = linear_pattern.alphabet(used)
        self.handover: bytes | None = None  # set when the rest must be searched by Python's engine
        self.on_handover: Callable[[bytes], None] | None = None

    def stop(self, why: str) -> None:
        """Search no further: what was found stands, `unfinished` says why the rest was not searched."""
        self.unfinished = why
        self._carry = b""

    def feed(self, data: bytes, final: bool = False) -> None:
        if self.handover is not None:
            raise RuntimeError("the rest of this output goes to the child process")
        super().feed(data, final)

    def _block(self, block: bytes) -> None:
        if block.isascii():
            data, text = block, None
        else:
            text = block.decode("utf-8", "replace")
            found = self.alphabet.ascii_text(text)
            if found is None:
                self.handover = block + self._carry
                self._carry = b""
                if self.on_handover is not None:
                    self.on_handover(self.handover)
                return
            data = found
        if self.fail_line is None:
            f = self.lin_fail.search(data)
            if f is not None:
                self.fail_line = _line(data, text, f)
        if self.pass_line is None:
            f = self.lin_pass.search(data)
            if f is not None:
                self.pass_line = _line(data, text, f)
        lin = self.lin_metric
        if lin is not None and lin.search(data) is not None:
            last = _last(lin, data)
            if lin.groups:
                self.metric_text = _cut(data, text, last.g_start, last.g_end) if last.g_start >= 0 else None
            else:
                self.metric_text = _cut(data, text, last.start, last.end)


def _cut(data: bytes, text: str | None, a: int, b: int) -> str:
    return text[a:b] if text is not None else data[a:b].decode("ascii")


def _line(data: bytes, text: str | None, f: Found) -> str:
    """The line holding the match (from its start to the end of the line its end is on), cut at 160."""
    start = data.rfind(b"\n", 0, f.start) + 1
    end = data.find(b"\n", f.end)
    line = _cut(data, text, start, end if end >= 0 else len(data)).strip()
    return line if len(line) <= _LINE_SHOWN else line[: _LINE_SHOWN - 3] + "..."


def _last(lin: Linear, data: bytes) -> Found:
    """The last match in data, which holds one, as scan._last finds it: halve towards the last line
    that starts a match, then walk that tail match by match."""
    lo, hi = 0, len(data)
    while hi - lo > 4096:
        cut = data.find(b"\n", (lo + hi) // 2, hi - 1)
        if cut < 0:
            break
        if lin.search(data, cut + 1) is not None:
            lo = cut + 1
        else:
            hi = cut + 1
    last = None
    pos = lo
    while (f := lin.search(data, pos)) is not None:  # every match is non-empty (linear_scan checks)
        last, pos = f, f.end
    assert last is not None  # the caller saw a match at or after lo
    return last


def linear_scan(fail: re.Pattern[str], passed: re.Pattern[str], metric: re.Pattern[str] | None) -> LinearScan:
    """The in-process scan of these patterns; raises NotLinear (saying which and why) when one cannot be."""
    for name, rx in (("fail_pattern", fail), ("pass_pattern", passed), ("metric_pattern", metric)):
        if rx is None:
            continue
        try:
            lin = linear_pattern.translate(rx.pattern, rx.flags)
        except NotLinear as exc:
            raise NotLinear(f"{name} {rx.pattern!r} uses {exc}") from None
        if rx is metric and lin.min_width == 0:  # its last match is walked match by match: none empty
            raise NotLinear(f"{name} {rx.pattern!r} uses a match that can be empty")
    return LinearScan(fail, passed, metric)


class LinearSearch:
    """The runner's view of an in-process scan: the same calls as ScanProcess, with a child only after a
    hand-over (see the module docstring)."""

    def __init__(self, scan: LinearScan, deadline: float, env: dict[str, str]):
        self.scan, self.deadline, self.env = scan, deadline, env
        self.child: ScanProcess | None = None
        self._rest: Scan | None = None
        self.busy_s = 0.0  # time spent searching in this process: the command waits meanwhile
        scan.on_handover = self._hand_over

    def _hand_over(self, data: bytes) -> None:
        s = self.scan
        self._rest = Scan(s.fail, s.passed, s.metric)
        self.child = ScanProcess(self._rest, self.deadline, self.env)
        self.child.push(data)

    @property
    def pending(self) -> int:
        return self.child.pending if self.child is not None else 0

    @property
    def fd(self) -> int:
        assert self.child is not None  # only read while something is pending, which needs a child
        return self.child.fd

    def push(self, data: bytes) -> None:
        if self.child is not None:
            self.child.push(data)
            return
        if self.scan.unfinished is not None:
            return
        t0 = time.monotonic()
        try:
            for at in range(0, len(data), _PIECE):  # RE2 cannot be stopped inside a call: keep each one short
                self.scan.feed(data[at : at + _PIECE])
                if self.scan.handover is not None:  # handed over inside that piece: the child takes the rest
                    self._to_child(data[at + _PIECE :])
                    return
                if time.monotonic() > self.deadline + GRACE_S:
                    self._out_of_time()
                    return
        finally:
            self.busy_s += time.monotonic() - t0

    def held_back(self, elapsed_s: float) -> None:
        """At the command's timeout: when the search took most of the step, the command was waiting for it
        (its output is read only as fast as it is searched), so the search is what ran out of time."""
        if self.child is None and self.scan.unfinished is None and self.busy_s >= elapsed_s / 2:
            self._out_of_time()

    def _to_child(self, data: bytes) -> None:
        assert self.child is not None  # started by the hand-over
        self.child.push(data)

    def _out_of_time(self) -> None:
        """Linear is not fast for every pattern (a DFA that keeps overflowing falls back to an NFA, a few
        seconds per MiB): past the step's deadline the search stops, as the child is stopped there."""
        self.scan.stop(SLOW)

    def flush(self) -> None:
        if self.child is not None:
            self.child.flush()

    def finish(self) -> None:
        if self.child is None and self.scan.unfinished is None:
            self.scan.feed(b"", final=True)
        if self.child is None:
            return
        self.child.finish()
        assert self._rest is not None
        join(self.scan, self._rest)

    def kill(self) -> None:
        if self.child is not None:
            self.child.kill()


def join(first: Scan, rest: Scan) -> None:
    """Record on first what the search of the whole output found, rest having searched what came after
    the hand-over: the first fail and pass lines, the last metric."""
    first.fail_line = first.fail_line if first.fail_line is not None else rest.fail_line
    first.pass_line = first.pass_line if first.pass_line is not None else rest.pass_line
    first.metric_text = rest.metric_text if rest.metric_text is not None else first.metric_text
    first.unfinished = rest.unfinished
