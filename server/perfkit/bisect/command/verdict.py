"""Turn a tested point's install and run outcome into good, bad or skip, with the reason.

A precision bisect must not confuse "the check failed" with "the program did not get that far":
only the fail pattern makes a point bad. Good needs the pass pattern, exit 0 and no fail line.
Anything else (install failure, crash, timeout, a run that printed no verdict) is a skip, so the
search steps around it instead of drawing a wrong boundary.
"""

from __future__ import annotations

import math
import re
import signal
from dataclasses import dataclass

from perfkit.bisect.command.linear_scan import NotLinear, linear_scan
from perfkit.bisect.command.runner import Result
from perfkit.bisect.command.scan import Scan
from perfkit.bisect.models import BisectSettings, Verdict


def scanner(settings: BisectSettings) -> Scan:
    """The search for the verdict patterns: in perfkit's process by RE2 when every pattern keeps its
    Python meaning there (linear_pattern.py), else Python's engine in a child stopped at the deadline."""
    fail = re.compile(settings.fail_pattern, re.MULTILINE)
    passed = re.compile(settings.pass_pattern, re.MULTILINE)
    metric = re.compile(settings.metric_pattern, re.MULTILINE) if settings.metric_pattern else None
    try:
        return linear_scan(fail, passed, metric)
    except NotLinear:
        return Scan(fail=fail, passed=passed, metric=metric)


@dataclass(frozen=True)
class Classified:
    verdict: Verdict
    reason: str
    metric: float | None


def _metric(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text.strip().rstrip(",;"))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _how_it_ended(res: Result) -> str:
    if res.error:
        return res.error
    if res.timed_out:
        return f"timed out after {res.duration_s:.0f}s"
    if res.signal:
        try:
            name = signal.Signals(res.signal).name
        except ValueError:
            name = f"signal {res.signal}"
        return f"killed by {name}"
    return f"exit {res.exit_code}"


def classify(res: Result, scan: Scan) -> Classified:
    metric = _metric(scan.metric_text)
    if scan.fail_line is not None:
        return Classified("bad", f"fail line: {scan.fail_line!r}", metric)
    if scan.unfinished is not None:
        # the search stops at the step's deadline too: when the command timed out, that is the cause
        reason = f"{_how_it_ended(res)}; {scan.unfinished}" if res.timed_out else scan.unfinished
        return Classified("skip", reason, metric)
    ended = _how_it_ended(res)
    if scan.pass_line is not None and res.ok:
        return Classified("good", f"pass line: {scan.pass_line!r}", metric)
    if scan.pass_line is not None:
        return Classified("skip", f"pass line printed but {ended}", metric)
    if res.ok:
        return Classified("skip", "exit 0 but no pass or fail line", metric)
    return Classified("skip", f"{ended} without a verdict line", metric)


COMMAND_CHARS = 120  # an install command quoted in a reason: enough to recognise it


def install_failed(side: str, res: Result, command: str | None = None, said: str | None = None) -> Classified:
    """ "superproject install failed (exit 1): `pip install -e .` said: KeyError: 'DEMO_ENV'": which command,
    and the last line it printed, so the answer points at the install, not at the check."""
    reason = f"{side} install failed ({_how_it_ended(res)})"
    if command:
        shown = command if len(command) <= COMMAND_CHARS else command[: COMMAND_CHARS - 3] + "..."
        reason += f": `{shown}`"
        if said:
            reason += f" said: {said}"
    return Classified("skip", reason, None)
