"""The option of a template's list that a performance PR backs, when exactly one kind of option does.

render_pr only drafts performance PRs with measured figures, so an option naming performance
(speed, optimisation, throughput, latency) is backed by the draft's own data. Anything else
(bug fix, feature, breaking change) is the author's call and stays open for the agent.
"""

from __future__ import annotations

import re

_PERF = re.compile(
    r"\b(?:perf|performance|speed[- ]?ups?|optimi[sz]ations?|optimi[sz]e|throughput|latency|faster)\b", re.I
)
_NOT = re.compile(r"\b(?:regressions?|not\b|no\b|tests?\b|benchmarks? (?:results|attached|numbers))", re.I)


def backed(options: list[str]) -> tuple[list[int], str]:
    """(indexes of the options the draft backs, why): one option naming performance, or none."""
    hits = [k for k, o in enumerate(options) if _PERF.search(o) and not _NOT.search(o)]
    if not hits:
        return [], ""
    if len(hits) > 1:
        # 'Performance' and 'Performance Optimization' in one list: the shortest names the kind
        hits = [min(hits, key=lambda k: len(options[k]))]
    return hits, f"a performance PR: '{options[hits[0]].strip()}' is the option its measurements back"
