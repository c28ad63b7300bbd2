"""A change cell that says when its test found no difference: "-9.3% (not significant, p = 0.056)".

In the result table a change the test could not tell from noise must not look like one it could:
read_benchmark's verdict for that row (Mann-Whitney U over the per-run values, or over the per-run
means of step time) marks the cell with its p-value. A row without a test (the median, peak
memory, an extra column) and a significant change keep the plain signed percentage.
"""

from __future__ import annotations

from perfkit.publish.numfmt import sig


def marked(change: str, verdict: str | None, p_value: float | None) -> str:
    """The change cell, marked when its test ran and found no significant difference."""
    if verdict == "not_significant" and p_value is not None:
        return f"{change} (not significant, p = {sig(p_value)})"
    return change
