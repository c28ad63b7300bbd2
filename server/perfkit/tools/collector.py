"""The cyclic garbage collector paused while one bounded text pass runs.

render_pr, lint_wording and classify_changes build tens of thousands of small objects that live
until the call returns (template parts, Markdown blocks, one mask per line, hunks). CPython's
collector runs a full collection each time the surviving objects grow by a quarter, and each one
walks every live object, so a call on a 1 MB template pays for several walks of a heap that grows
with the input: the time per doubling of the input rose above 2x although every step is linear
(bench/bench_template_parts.py --scaling shows the call with and without the pause). These passes
make almost no reference cycles; reference counting frees their garbage as they go, so pausing the
collector for the call changes neither the result nor the peak memory, and the collector resumes,
with whatever it has to do, when the call returns. Calls in several threads share one pause: the
collector resumes when the last one ends, and only if it was running when the first one began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    """Run the block with the cyclic collector off; its state before the outermost block comes back after."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
