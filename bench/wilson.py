"""The 95% interval of a success rate, shared by the simulator and the CLI harness.

Wilson's score interval stays sound near 100%, where p +- 2 standard errors runs past 1 and says
nothing about a handful of trials that were all right.
"""

from __future__ import annotations

import math


def wilson(right: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """(low, high) of the rate right/total at 95% (z = 1.96)."""
    if not total:
        return 0.0, 1.0
    p = right / total
    mid = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, mid - half), min(1.0, mid + half)
