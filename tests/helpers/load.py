"""Time bounds that hold on a busy machine.

A test that proves "stops within its deadline" or "reads this in linear time" compares a measured time
with a bound. On a shared 2-core machine the same work can take several times longer, so every such
bound is scaled by how busy the machine is when it is checked: the 1-minute load average per core, at
least 1 and at most MAX_FACTOR, times PERFKIT_TEST_SLACK when set (a slower machine, a debugger).

The case a bound rules out must stay outside the largest scaled bound, or the test could not fail:
a parked run sleeps far longer than any scaled bound, and such tests also check the evidence itself
(the run's end marker never seen, the pattern's step count), not the clock alone.
"""

from __future__ import annotations

import os

MAX_FACTOR = 6.0


def factor() -> float:
    """How many times slower than a quiet machine this one may be right now."""
    try:
        per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:  # no load average on this platform
        per_core = 1.0
    try:
        extra = float(os.environ.get("PERFKIT_TEST_SLACK", "1") or 1)
    except ValueError:
        extra = 1.0
    return min(MAX_FACTOR, max(1.0, per_core)) * max(1.0, extra)


def slack(seconds: float) -> float:
    """`seconds` on a quiet machine, scaled to how busy this one is now."""
    return seconds * factor()
