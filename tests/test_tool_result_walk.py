"""What leaves ToolSpec.call: one walk of the result finds what the dump-based checks found, and the
collector pause of the text passes always gives the collector back as it was.

The walk replaced two dumps and two recursive walks of every result (lone surrogates, then
non-finite numbers); the property test holds it to the dump-based answer on any nested result.
"""

from __future__ import annotations

import gc
import math
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from perfkit.registry import all_tools
from perfkit.tools import collector
from perfkit.tools.spec import ToolSpec, _non_finite, _scan, displayable_result
from pydantic import BaseModel


class Inner(BaseModel):
    name: str
    value: float | None = None


class Result(BaseModel):
    items: list[Inner]
    extra: dict[str, Any]
    tags: list[str]


# a name git gave in bytes that are not UTF-8 reaches a result as surrogateescape'd text (U+DC80..U+DCFF)
_text = st.text(max_size=6) | st.sampled_from(["plain", "caf\u00e9", "\udcff", "a\udc80b", "\u2603"])
_floats = st.floats(allow_nan=True, allow_infinity=True)
_leaf = _text | _floats | st.integers() | st.booleans() | st.none()
_json = st.recursive(
    _leaf, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4), max_leaves=20
)
_results = st.builds(
    Result,
    items=st.lists(st.builds(Inner, name=_text, value=st.none() | _floats), max_size=4),
    extra=st.dictionaries(_text, _json, max_size=4),
    tags=st.lists(_text, max_size=4),
)


def _has_surrogate(value: Any) -> bool:
    """The dump-based reference: any string (or key) that UTF-8 cannot encode."""
    if isinstance(value, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_surrogate(v) for v in value)
    return False


@settings(max_examples=150, deadline=None)
@given(_results)
def test_one_walk_finds_what_the_dumps_found(result):
    dumped = result.model_dump(mode="python")
    surrogates, where = _scan(result)
    assert surrogates == _has_surrogate(dumped)
    assert where == _non_finite(dumped, "")
    shown = displayable_result(result)
    assert not _has_surrogate(shown.model_dump(mode="python"))
    if not surrogates:
        assert shown is result


def test_a_non_finite_number_is_named_by_its_path():
    result = Result(items=[Inner(name="a", value=1.0), Inner(name="b", value=math.inf)], extra={}, tags=[])
    assert _scan(result) == (False, "items.1.value")


def _probe(size: int) -> Inner:
    """A tool that reports whether the cyclic collector ran during its call."""
    return Inner(name="on" if gc.isenabled() else "off", value=float(size))


def test_the_collector_is_paused_for_the_call_and_back_after():
    assert gc.isenabled()
    paused = ToolSpec(_probe, read_only=True, pause_gc=True).call({"size": 1})
    assert paused.name == "off" and gc.isenabled()
    running = ToolSpec(_probe, read_only=True).call({"size": 1})
    assert running.name == "on"


def test_a_failing_call_gives_the_collector_back():
    def boom(size: int) -> Inner:
        raise ZeroDivisionError(size)

    with pytest.raises(Exception, match="ZeroDivisionError"):
        ToolSpec(boom, read_only=True, pause_gc=True).call({"size": 1})
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off():
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_calls_in_threads_share_one_pause():
    """The collector resumes when the last of several overlapping paused calls ends, never before."""
    inside = threading.Barrier(4)
    leave = [threading.Event() for _ in range(4)]
    seen: list[bool] = []

    def call(k: int) -> None:
        with collector.paused():
            inside.wait()
            leave[k].wait()
            seen.append(gc.isenabled())

    threads = [threading.Thread(target=call, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for k, t in enumerate(threads):
        leave[k].set()
        t.join()
        assert gc.isenabled() == (k == 3)
    assert seen == [False] * 4


def test_only_the_bounded_text_passes_pause_the_collector():
    """A bisect runs for hours: its garbage must be collected as it goes."""
    pausing = {s.name for s in all_tools() if s.pause_gc}
    assert pausing == {"render_pr", "lint_wording", "classify_changes"}
