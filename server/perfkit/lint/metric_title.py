"""The PR title of a campaign measured in its own metrics, not in step time.

'[perf] <job> on <hardware>: 2,387 to 2,789 output tokens/s and TTFT p99 1,583 ms to 707 ms
at TP 8, mostly from <cause>': the hardware after 'on', at least one 'A to B' span with figures,
an optional 'at <parallelism>', and the largest cause.
"""

from __future__ import annotations

import re

from perfkit.lint import numbers as nums
from perfkit.lint.models import Finding

METRIC_TITLE_RE = re.compile(
    r"^# (?:(?P<prefix>(?:\[[^\]]+\])+|[\w-]+(?:\([^)]*\))?!?:)\s+)?(?P<job>.+?) on (?P<hw>[^:]+?): "
    r"(?P<spans>.*?\d[\d,.]*\s?\S*\s+to\s+\d.*?)(?: at (?P<ws>[^,]+))?(?:, mostly from (?P<cause>.+?))?\s*$"
)


def matches(first: str) -> bool:
    return bool(METRIC_TITLE_RE.match(first))


def check(first: str) -> list[Finding]:
    m = METRIC_TITLE_RE.match(first)
    if m is None:
        return []
    return hardware_check(m, "8 H100")


def hardware_check(m: re.Match[str], example: str) -> list[Finding]:
    """One rule for both title forms: the 'hw' group names an accelerator model (or is still a placeholder)."""
    if not nums.HARDWARE_RE.search(m.group("hw")) and "<" not in m.group("hw"):
        return [
            Finding(
                rule="title-form",
                line=1,
                column=m.start("hw") + 1,
                excerpt=m.group("hw"),
                fix=f"name the accelerator model after 'on' ('{example}')",
            )
        ]
    return []
