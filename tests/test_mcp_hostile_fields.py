"""Every field of every message a client sends is checked before perfkit uses it.

`perfkit serve` as a real stdio subprocess. A cancel whose requestId was an object or a list raised
`TypeError: unhashable type` in the flow control and the server stopped answering; during bisect_run
the bisect stopped cleanly but its call was never answered. Here cancels and progress notifications
carry every kind of id (object, list, float, a float equal to the call's id, bool, null, a 1 MB
string, missing, params that are not an object) while a real bisect runs: the bisect's call is
answered with its culprit, and the server answers the next request. Malformed requests (ids, methods,
params and arguments of every wrong type, lines that are not JSON) are answered or ignored, never
fatal; and for any JSON value as a cancel's requestId (a hypothesis property) the server answers on.
"""

from __future__ import annotations

import json
import time

import pytest
from helpers.bisect_project import build
from helpers.mcp_wire import Wire
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.bisect.tool import bisect_reset, bisect_start

CALL_ID = 7
WRONG_IDS = {
    "object": {"id": CALL_ID},
    "list": [CALL_ID],
    "float-equal-to-the-call": float(CALL_ID),
    "float": 7.5,
    "bool": True,
    "null": None,
    "huge-string": "x" * (1 << 20),
    "negative": -CALL_ID,
    "nested": [[[[{"requestId": CALL_ID}]]]],
    "another-request": 12345,
}


@pytest.fixture
def wire():
    w = Wire()
    yield w
    w.stop()


def cancels_and_progress() -> list[object]:
    """A cancel and a progress notification for every wrong id, and notifications whose params are wrong."""
    out: list[object] = []
    for value in WRONG_IDS.values():
        out.append({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": value}})
        out.append(
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": value, "progress": 1}}
        )
    out += [
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"reason": "no id at all"}},
        {"jsonrpc": "2.0", "method": "notifications/cancelled"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [CALL_ID]},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "requestId"},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": CALL_ID, "progress": "x"}},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": CALL_ID}},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": None},
        {"jsonrpc": "2.0", "method": "notifications/initialized", "params": [1, 2]},
        {"jsonrpc": "2.0", "method": 42},
        {"method": "notifications/cancelled", "params": {"requestId": CALL_ID + 1}},
    ]
    return out


def test_wrong_cancels_and_progress_during_bisect_run_leave_the_call_answered(tmp_path, wire):
    p = build(tmp_path, ["", ""], [("src", "")] * 6 + [("src", "BUG", "bug")] + [("src", "BUG")] * 5)
    bisect_start(p.path, p.c["add"], run=f"sleep 0.3; {p.run_cmd()}", install=p.installs())
    wire.send(
        {
            "jsonrpc": "2.0",
            "id": CALL_ID,
            "method": "tools/call",
            "params": {"name": "bisect_run", "arguments": {"repo": p.path}, "_meta": {"progressToken": "run"}},
        }
    )
    time.sleep(1.0)  # the bisect is under way
    for n, message in enumerate(cancels_and_progress()):
        wire.send(message)
        if n % 5 == 0:
            wire.ping(1000 + n)  # answered while the bisect runs and the wrong messages arrive
    answer = wire.answer(CALL_ID)
    assert "error" not in answer and not answer["result"].get("isError"), answer
    assert p.c["bug"][:12] in json.dumps(answer["result"]), answer
    wire.ping(2000)
    bisect_reset(p.path)


MALFORMED = [
    b"this is not json",
    b"{",
    b"[]",
    b"[1, 2, 3]",
    b"null",
    b'"a string"',
    b"{}",
    json.dumps({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": [1], "method": "ping"}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": None, "method": "ping"}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": True, "method": "ping"}).encode(),
    json.dumps({"jsonrpc": "1.0", "id": 31, "method": "ping"}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": 32, "method": 5}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": 33, "method": "tools/call", "params": {"name": 5}}).encode(),
    json.dumps(
        {"jsonrpc": "2.0", "id": 34, "method": "tools/call", "params": {"name": "lint_wording", "arguments": [1]}}
    ).encode(),
    json.dumps({"jsonrpc": "2.0", "id": 35, "method": "tools/call", "params": [1, 2]}).encode(),
    json.dumps(
        {"jsonrpc": "2.0", "id": 36, "method": "tools/call", "params": {"name": "nope", "arguments": {}}}
    ).encode(),
    json.dumps(
        {"jsonrpc": "2.0", "id": 37, "method": "perfkit/request_too_large", "params": {"bytes": "many"}}
    ).encode(),
    json.dumps({"jsonrpc": "2.0", "id": 38, "method": "tools/list", "params": {"cursor": {"x": 1}}}).encode(),
    json.dumps({"jsonrpc": "2.0", "id": "39", "method": "ping", "params": {"_meta": {"progressToken": [1]}}}).encode(),
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 42,
            "method": "tools/call",
            "params": {"name": "lint_wording", "arguments": {"text": "x"}, "_meta": {"progressToken": {"a": 1}}},
        }
    ).encode(),
    json.dumps({"jsonrpc": "2.0", "id": 40, "result": {}}).encode(),  # a response to nothing
    json.dumps({"jsonrpc": "2.0", "id": 41, "error": {"code": "x", "message": 5}}).encode(),
]


def test_malformed_requests_are_answered_or_ignored_and_the_server_serves_on(wire):
    for n, line in enumerate(MALFORMED):
        wire.raw(line)
        wire.ping(500 + n)
    answered = {}
    for request_id in (31, 32, 33, 34, 35, 36, 37, 38, "39", 42):
        answered[request_id] = wire.answer(request_id, within=120)
    for request_id in (31, 32, 33, 34, 35, 36, 37, "39", 42):  # a request with a usable id: an error answer
        message = answered[request_id]
        assert "error" in message or message["result"].get("isError"), message
    wire.send(
        {
            "jsonrpc": "2.0",
            "id": 99,
            "method": "tools/call",
            "params": {"name": "lint_wording", "arguments": {"text": "The change is 5% faster."}},
        }
    )
    final = wire.answer(99, within=300)
    assert "result" in final and not final["result"].get("isError"), final


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def test_any_json_value_as_a_cancel_or_progress_id_leaves_the_server_answering(wire):
    count = iter(range(10_000, 20_000))

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(value=JSON, field=st.sampled_from(["requestId", "progressToken"]))
    def check(value: object, field: str) -> None:
        method = "notifications/cancelled" if field == "requestId" else "notifications/progress"
        wire.send({"jsonrpc": "2.0", "method": method, "params": {field: value, "progress": value}})
        wire.ping(next(count))

    check()
