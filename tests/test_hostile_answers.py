"""Every list in a tool's answer is capped with a count of what was left out, and one request line
over stdio is bounded: a client's 40 MiB line is dropped unread and answered with an error saying
why, and the server answers the next call.

Caps are applied where a result leaves the core (ToolSpec.call), so these go through the spec,
once through the real MCP client and once through a real `perfkit serve` subprocess.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time

import anyio
import psutil
import pytest
from helpers.gitbuild import Repo, run_git
from helpers.load import slack
from helpers.procs import perfkit
from mcp import Client
from perfkit.guards.list_caps import MAX_LIST_ITEMS, ListsCapped, cap_lists
from perfkit.mcp_server.request_lines import MAX_REQUEST_LINE_BYTES, TOO_LARGE_METHOD, BoundedLines
from perfkit.mcp_server.server import build_server
from perfkit.registry import all_tools
from pydantic import BaseModel


def _spec(name: str):
    return next(s for s in all_tools() if s.name == name)


def _mentions(n: int) -> str:
    return "# Title\n\n" + "".join(f"ping @user{i} about it\n\n" for i in range(n))


def test_every_tool_result_carries_the_count_of_what_was_left_out():
    for spec in all_tools():
        assert issubclass(spec.return_type(), ListsCapped), spec.name


def test_lint_findings_over_the_cap_are_cut_and_counted():
    extra = 37
    result = _spec("lint_wording").call({"text": _mentions(MAX_LIST_ITEMS + extra)})
    assert len(result.findings) == MAX_LIST_ITEMS
    assert result.omitted["findings"] >= extra  # every mention is one finding; other rules may add more
    small = _spec("lint_wording").call({"text": _mentions(10)})
    assert small.omitted == {}


def test_the_cli_text_says_what_was_left_out(tmp_path):
    draft = tmp_path / "draft.md"
    draft.write_text(_mentions(MAX_LIST_ITEMS + 37))
    done = perfkit("lint-wording", "--path", str(draft), timeout=120)
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("left out") and "of findings" in last, done.stdout[-500:]


class _Run(BaseModel):
    steps: list[float]


class _Nested(ListsCapped):
    runs: list[_Run]
    by_name: dict[str, int]
    pair: tuple[int, ...] = ()


def test_nested_lists_and_mappings_are_cut_and_summed_by_field_path():
    n = MAX_LIST_ITEMS + 3
    model = _Nested(
        runs=[_Run(steps=[1.0] * n) for _ in range(3)] + [_Run(steps=[]) for _ in range(n - 3)],
        by_name={str(i): i for i in range(n + 5)},
        pair=tuple(range(n + 1)),
    )
    capped = cap_lists(model)
    assert len(capped.runs) == MAX_LIST_ITEMS
    assert [len(r.steps) for r in capped.runs[:4]] == [MAX_LIST_ITEMS] * 3 + [0]
    assert capped.omitted == {"runs": 3, "runs[].steps": 9, "by_name": 8, "pair": 4}
    assert list(capped.by_name)[-1] == str(MAX_LIST_ITEMS - 1)  # the first entries kept, in order
    assert len(model.runs) == n  # the core's own object is left as it was


def test_a_result_under_the_cap_is_returned_as_it_is():
    model = _Nested(runs=[_Run(steps=[1.0, 2.0])], by_name={"a": 1})
    assert cap_lists(model) is model


def test_read_benchmark_per_run_lists_are_capped(tmp_path):
    rows = ["arm,run,step,step_time_s"]
    for arm, runs in (("baseline", MAX_LIST_ITEMS + 3), ("pr", 3)):
        for run in range(1, runs + 1):
            rows += [f"{arm},{run},{step},{1.0 + 0.001 * (run % 7)}" for step in (1, 2, 3)]
    (tmp_path / "benchmark.csv").write_text("\n".join(rows) + "\n")
    result = _spec("read_benchmark").call({"campaign_dir": str(tmp_path)})
    assert [len(a.per_run) for a in result.arms] == [MAX_LIST_ITEMS, 3]
    assert result.omitted["arms[].per_run"] == 3
    assert result.omitted["arms[].run_ids"] == 3


@pytest.fixture(scope="module")
def wide_commit(tmp_path_factory):
    """A commit adding more files than the cap, and removing every other line of a long file."""
    repo = Repo(tmp_path_factory.mktemp("wide"))
    lines = [f"value_{i} = {i}\n" for i in range(2 * MAX_LIST_ITEMS + 10)]
    base = repo.commit("base", {"api_table.py": "".join(lines)})
    files = {f"pkg/m{i}.py": f"x = {i}\n" for i in range(MAX_LIST_ITEMS + 10)}
    files["api_table.py"] = "".join(line for i, line in enumerate(lines) if i % 2)
    head = repo.commit("add many modules", files)
    return repo, base, head


def test_evaluate_culprit_files_are_capped(wide_commit):
    repo, _, head = wide_commit
    result = _spec("evaluate_culprit").call({"repo": str(repo.path), "commit": head})
    assert len(result.files) == MAX_LIST_ITEMS
    assert result.omitted["files"] == 11  # 5,010 modules and api_table.py


def test_classify_changes_files_and_hunks_are_capped(wide_commit):
    repo, base, head = wide_commit
    result = _spec("classify_changes").call({"repo": str(repo.path), "base": base, "head": head})
    assert len(result.commits[0].files) == MAX_LIST_ITEMS
    assert result.omitted["commits[].files"] == 11
    assert result.omitted["commits[].files[].hunks"] == 5  # api_table.py lost 5,005 separate lines


def test_git_blame_removal_removals_are_capped(wide_commit):
    repo, base, head = wide_commit
    args = {"repo": str(repo.path), "base": base, "head": head, "paths": ["api_table.py"]}
    result = _spec("git_blame_removal").call(args)
    assert len(result.removals) == MAX_LIST_ITEMS
    assert result.omitted["removals"] == 5


def test_classify_changes_commits_are_capped(tmp_path):
    """A range of more commits than the cap, built with fast-import (about 40 s to classify)."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
    stream = []
    for i in range(MAX_LIST_ITEMS + 3):
        data, msg = f"x = {i}\n".encode(), f"step {i}\n".encode()
        stream += [
            b"commit refs/heads/main\n",
            f"committer T <t@example.com> {1_700_000_000 + i} +0000\n".encode(),
            b"data %d\n%s" % (len(msg), msg),
            b"M 100644 inline f.py\n",
            b"data %d\n%s" % (len(data), data),
        ]
    subprocess.run(["git", "fast-import", "--quiet"], input=b"".join(stream), cwd=tmp_path, check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=tmp_path, check=True)
    root = run_git(tmp_path, "rev-list", "--max-parents=0", "main").strip()
    result = _spec("classify_changes").call({"repo": str(tmp_path), "base": root, "head": "main"})
    assert len(result.commits) == MAX_LIST_ITEMS
    assert result.omitted == {"commits": 2}  # 5,002 commits after the base


def test_the_cut_and_its_count_reach_an_mcp_client():
    async def go():
        async with Client(build_server(), mode="legacy") as client:
            return await client.call_tool("lint_wording", {"text": _mentions(MAX_LIST_ITEMS + 20)})

    r = anyio.run(go)
    assert not r.is_error
    assert len(r.structured_content["findings"]) == MAX_LIST_ITEMS
    assert r.structured_content["omitted"]["findings"] >= 20


INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
}


def _read_answer(proc: subprocess.Popen) -> dict:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        assert line, "the server closed its stdout"
        message = json.loads(line)
        if "id" in message:
            return message


def test_a_request_line_over_the_cap_is_dropped_unread_and_the_server_answers_on(tmp_path):
    err = tmp_path / "stderr"
    with open(err, "wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "perfkit.cli", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=os.environ.copy(),
        )
    try:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        proc.stdin.flush()
        assert _read_answer(proc)["id"] == 0
        before = psutil.Process(proc.pid).memory_info().rss
        size = MAX_REQUEST_LINE_BYTES + 40 * 1024**2  # without the cap the server grows ~2.7 times a line
        head = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "lint_wording", '
        piece = b"x" * 1024**2
        opening, closing = head + b'"arguments": {"text": "', b'"}}}\n'
        proc.stdin.write(opening)
        peak = before
        for _ in range(size // len(piece)):
            proc.stdin.write(piece)
            peak = max(peak, psutil.Process(proc.pid).memory_info().rss)
        proc.stdin.write(closing)
        proc.stdin.flush()
        request = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "lint_wording", "arguments": {"text": "# A title\n\nplain words.\n"}},
        }
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        proc.stdin.flush()
        refused = _read_answer(proc)
        assert refused["id"] == 1 and "dropped unread" in refused["error"]["message"], refused
        answer = _read_answer(proc)
        assert answer["id"] == 2 and "result" in answer, answer
        grew = max(peak, psutil.Process(proc.pid).memory_info().rss) - before
        # one piece of at most the cap is held (35 MiB measured), never the line
        assert grew < 2 * MAX_REQUEST_LINE_BYTES, f"the server grew {grew:,} bytes reading a {size:,}-byte line"
        deadline = time.monotonic() + slack(5)
        while b"dropped unread" not in err.read_bytes() and time.monotonic() < deadline:
            time.sleep(0.1)
        said = err.read_bytes().decode()
        line_bytes = len(opening) + size + len(closing)
        assert f"request line of {line_bytes:,} bytes was dropped unread" in said, said[-500:]
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def test_lines_over_the_cap_are_skipped_and_stand_ins_carry_their_id():
    lines = [
        b'{"jsonrpc": "2.0", "id": "a-1", "method": "tools/call", "params": {"t": "' + b"x" * 500 + b'"}}\n',
        b'{"method": "tools/call", "params": {"id": 9, "t": "' + b"y" * 500 + b'"}, "id": 3}\n',  # id unsure
        b'{"jsonrpc": "2.0", "id": 4, "method": "ping"}\n',
        b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"t": "' + b"z" * 500,  # no end of line
    ]
    reader = BoundedLines(io.BytesIO(b"".join(lines)), limit=200)
    first = json.loads(reader.readline())
    assert first["id"] == "a-1" and first["method"] == TOO_LARGE_METHOD and first["params"]["bytes"] == len(lines[0])
    assert json.loads(reader.readline())["id"] == 4  # the second is dropped: its id cannot be told
    assert json.loads(reader.readline())["id"] == 5
    assert reader.readline() == ""
    assert reader.skipped == 3
