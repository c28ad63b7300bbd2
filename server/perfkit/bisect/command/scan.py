"""The verdict patterns applied to a command's whole output, line by line, however long.

The patterns are the user's, and a pattern can backtrack for hours on one line (`(a+)+$`). So the
search runs in a child process (scanproc.py starts this file as a script, standard library only)
that the step can stop at its deadline; the child also stops itself at the deadline, so a search
orphaned by a killed perfkit does not spin on. `Scan` itself is plain and also used in process.
"""

from __future__ import annotations

import collections
import os
import re
import signal
import sys

_SCAN_LINE_MAX = 64 * 1024

# where a match starts and ends, and its first group (-1, -1 without one); a namedtuple, not a
# dataclass: the child process starts faster without importing dataclasses
Found = collections.namedtuple("Found", "start end g_start g_end")


class Scan:
    # a plain class, not a dataclass: the child process starts faster without importing dataclasses
    def __init__(self, fail: re.Pattern[str], passed: re.Pattern[str], metric: re.Pattern[str] | None = None):
        self.fail, self.passed, self.metric = fail, passed, metric
        self.fail_line: str | None = None
        self.pass_line: str | None = None
        self.metric_text: str | None = None
        self.unfinished: str | None = None  # why the search did not get through the output (out of time)
        self._carry = b""

    def feed(self, data: bytes, final: bool = False) -> None:
        buf = self._carry + data
        if final:
            block, self._carry = buf, b""
        else:
            cut = buf.rfind(b"\n")
            if cut < 0 and len(buf) < _SCAN_LINE_MAX:
                self._carry = buf
                return
            if cut < 0:
                cut = len(buf) - 1
            block, self._carry = buf[: cut + 1], buf[cut + 1 :]
        if block:
            self._block(block)

    def _block(self, block: bytes) -> None:
        """Search one block of whole lines (or a line cut at the cap) with Python's engine."""
        text = block.decode("utf-8", "replace")
        if self.fail_line is None:
            m = _search(self.fail, text)
            if m:
                self.fail_line = _line_of(text, m)
        if self.pass_line is None:
            m = _search(self.passed, text)
            if m:
                self.pass_line = _line_of(text, m)
        if self.metric is not None and _search(self.metric, text) is not None:
            last = _last(self.metric, text)
            self.metric_text = last.group(1) if last.re.groups else last.group(0)

    def spec(self) -> list[str]:
        """The patterns and their flags, as the child's arguments."""
        out = []
        for rx in (self.fail, self.passed, self.metric):
            out += [rx.pattern, str(rx.flags)] if rx is not None else ["", "-1"]
        return out

    def found(self) -> str:
        """What the search found, as one line the parent reads back with `take`."""
        return repr((self.fail_line, self.pass_line, self.metric_text))

    def take(self, found: str) -> None:
        import ast  # only the parent reads results back; the child starts faster without it

        value = ast.literal_eval(found)
        if not (isinstance(value, tuple) and len(value) == 3 and all(v is None or isinstance(v, str) for v in value)):
            raise ValueError("not a scan result")
        self.fail_line, self.pass_line, self.metric_text = value


def _last(rx: re.Pattern[str], text: str) -> re.Match[str]:
    """The last match of rx in text, which holds one. A flood that prints a metric on every line has
    thousands per block: halve towards the last line that starts a match, then walk only that tail."""
    lo, hi = 0, len(text)  # some match starts at or after lo, none at or after hi
    while hi - lo > 4096:
        cut = text.find("\n", (lo + hi) // 2, hi - 1)
        if cut < 0:
            break
        if _search(rx, text, cut + 1) is not None:
            lo = cut + 1
        else:
            hi = cut + 1
    return collections.deque(rx.finditer(text, lo), maxlen=1)[0]


_WIDER: dict[re.Pattern[str], re.Pattern[str] | None] = {}
_LEADING = re.compile(r"^((?:\(\?[aiLmsux]+\))?)((?:\\b|\^)+)(?=[^*+?{])")


def _search(rx: re.Pattern[str], text: str, pos: int = 0) -> re.Match[str] | None:
    """rx.search(text), fast on floods of output that hold no match.

    Python's regex engine tries a pattern that starts with an assertion (the default \\bFAIL\\b) at
    every position, fifty times slower than one that starts with a literal. The same pattern without
    its leading \\b and ^ matches wherever the original does (an assertion only narrows), so when the
    wider one finds nothing, neither would the original."""
    if rx not in _WIDER:
        m = _LEADING.match(rx.pattern)
        _WIDER[rx] = re.compile(m.group(1) + rx.pattern[m.end() :], rx.flags) if m and rx.pattern[m.end() :] else None
    wider = _WIDER[rx]
    if wider is not None and wider.search(text, pos) is None:
        return None
    return rx.search(text, pos)


def _line_of(text: str, m: re.Match[str]) -> str:
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    line = text[start : end if end >= 0 else len(text)].strip()
    return line if len(line) <= 160 else line[:157] + "..."


def _child(budget_s: float, spec: list[str]) -> None:
    """Search stdin for the patterns in spec; print what was found. Exit 3 at the deadline."""
    signal.signal(signal.SIGALRM, lambda *_: os._exit(3))  # the regex engine checks for signals
    signal.setitimer(signal.ITIMER_REAL, max(budget_s, 0.01))
    rx = [re.compile(spec[i], int(spec[i + 1])) if spec[i + 1] != "-1" else None for i in (0, 2, 4)]
    fail, passed, metric = rx
    if fail is None or passed is None:
        raise SystemExit(2)
    scan = Scan(fail=fail, passed=passed, metric=metric)
    fd = sys.stdin.fileno()  # unbuffered reads: each returns what the pipe holds, up to 1 MiB
    while chunk := os.read(fd, 1 << 20):
        scan.feed(chunk)
    scan.feed(b"", final=True)
    sys.stdout.write(scan.found())
    sys.stdout.flush()


if __name__ == "__main__":
    _child(float(sys.argv[1]), sys.argv[2:8])
