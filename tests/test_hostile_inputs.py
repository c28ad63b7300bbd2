"""Inputs built to hang or crash a tool end as clear errors (or right answers) in bounded time,
through MCP and the CLI: a FIFO where a file belongs, a folder, a link loop, 515 runs per arm,
extreme numbers, deep nesting, huge integers, lone surrogates, 200,000-character arguments,
a repeated header column, a truncated .git/config, and any exception a tool did not expect."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import anyio
import numpy as np
import pytest
from helpers.gitbuild import Repo
from helpers.load import slack
from helpers.procs import perfkit
from mcp import Client

ROOT = Path(__file__).resolve().parents[1]


def _campaign(root: Path, rows: list[str], header: str = "arm,run,step,step_time_s") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "benchmark.csv").write_text(header + "\n" + "\n".join(rows) + "\n")
    return root


def _rows(runs: int, steps: int, base: float, pr: float, jitter: float = 0.0) -> list[str]:
    out = []
    for arm, t in (("baseline", base), ("pr", pr)):
        for r in range(1, runs + 1):
            for s in range(1, steps + 1):
                out.append(f"{arm},{r},{s},{t * (1 + jitter * ((r * 7 + s) % 5))!r}")
    return out


def _mcp(calls: list[tuple[str, dict]]) -> list:
    from perfkit.mcp_server.server import build_server

    async def go():
        out = []
        async with Client(build_server(), mode="legacy") as client:
            for name, args in calls:
                with anyio.fail_after(slack(60)):
                    out.append(await client.call_tool(name, args))
        return out

    return anyio.run(go)


def _cli(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return perfkit(*argv, timeout=timeout)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile-inputs")
    w = {}
    good = _rows(3, 4, 1.0, 0.9, 0.01)
    w["fifo"] = _campaign(tmp / "fifo", good)
    (w["fifo"] / "records").mkdir()
    os.mkfifo(w["fifo"] / "records" / "candidates.jsonl")
    w["fifo_csv"] = tmp / "fifo_csv"
    w["fifo_csv"].mkdir()
    os.mkfifo(w["fifo_csv"] / "benchmark.csv")
    w["folder"] = tmp / "folder"
    (w["folder"] / "benchmark.csv").mkdir(parents=True)
    w["loop"] = tmp / "loop"
    w["loop"].mkdir()
    os.symlink("benchmark.csv", w["loop"] / "benchmark.csv")
    w["tiny"] = _campaign(tmp / "tiny", _rows(3, 4, 5e-324, 5e-324))
    w["huge"] = _campaign(
        tmp / "huge",
        [f"{row},1e308,1e308" for row in _rows(3, 4, 1e308, 1e308)],
        "arm,run,step,step_time_s,peak_mem_gb,tokens",
    )
    w["huge_metric"] = _campaign(
        tmp / "huge_metric", [f"{row},1e308" for row in _rows(3, 4, 1.0, 0.9, 0.01)], "arm,run,step,step_time_s,tokens"
    )
    w["dup"] = _campaign(
        tmp / "dup", [f"{row},1.0" for row in _rows(3, 4, 1.0, 0.9, 0.01)], "arm,run,step,step_time_s,step_time_s"
    )
    cr = _campaign(tmp / "dup_cr", [])  # old Mac line ends: a lone carriage return ends each line
    (cr / "benchmark.csv").write_bytes(
        "\r".join(["arm,run,step,step_time_s,step_time_s"] + [f"{r},1.0" for r in _rows(3, 4, 1.0, 0.9, 0.01)]).encode()
    )
    w["dup_cr"] = cr
    w["many"] = _campaign(tmp / "many", _rows(515, 2, 1.0, 0.998, 0.002))
    for name, line in (
        ("deep", "[" * 20_000 + "]" * 20_000),
        ("deep_field", '{"sha": "ab12cd34", "title": "t", "shipped": true, "x": ' + "[" * 5000 + "]" * 5000 + "}"),
        ("bigint", '{"sha": "ab12cd34", "title": "t", "shipped": true, "before": ' + "9" * 5000 + "}"),
        ("surrogate", '{"sha": "ab12cd34", "title": "t \\ud800", "shipped": true}'),
        ("inf", '{"sha": "ab12cd34", "title": "t", "shipped": true, "before": 1e999, "after": 1, "baseline": "b"}'),
    ):
        w[name] = _campaign(tmp / name, good)
        (w[name] / "records").mkdir()
        (w[name] / "records" / "candidates.jsonl").write_text(line + "\n")
    repo = Repo(tmp / "repo")
    first = repo.commit("one", {"a.txt": "a\n"})
    repo.commit("two", {"a.txt": "b\n"})
    w["repo"], w["first"] = repo.path, first
    broken = tmp / "broken"
    shutil.copytree(repo.path, broken)
    cfg = broken / ".git" / "config"
    text = cfg.read_text()
    cfg.write_text(text[: text.index("[user]") + 3])  # cut inside a section header
    w["broken"] = broken
    return w


def _msg(res) -> str:
    """The error text without the MCP library's 'Error executing tool X: ' lead."""
    text = res.content[0].text
    return text.split(": ", 1)[1] if text.startswith("Error executing tool ") else text


def _started(seconds: float) -> None:
    assert seconds < slack(20), f"took {seconds:.1f} s"


CAMPAIGN_CASES = [
    ("fifo", "records/candidates.jsonl", "named pipe"),
    ("fifo_csv", "benchmark.csv", "named pipe"),
    ("folder", "benchmark.csv", "is a folder"),
    ("loop", "benchmark.csv", "loops"),
    ("tiny", "benchmark.csv column 'step_time_s'", "between 1e-09 and 1e+09 seconds"),
    ("huge", "benchmark.csv column 'step_time_s'", "between 1e-09 and 1e+09 seconds"),
    ("huge_metric", "benchmark.csv column 'tokens'", "beyond the magnitudes"),
    ("dup", "benchmark.csv", "names column 'step_time_s' twice"),
    ("dup_cr", "benchmark.csv", "names column 'step_time_s' twice"),
    ("deep", "records/candidates.jsonl line 1", "nests 20,000 levels deep"),
    ("deep_field", "records/candidates.jsonl line 1", "levels deep"),
    ("bigint", "records/candidates.jsonl line 1", "5,000 digits"),
    ("surrogate", "records/candidates.jsonl line 1", "lone surrogate"),
    ("inf", "records/candidates.jsonl line 1 field 'before'", "finite number"),
]


@pytest.fixture(scope="module")
def campaign_answers(world):
    """Every hostile campaign through one MCP session and one CLI batch (one process per command line)."""
    started = time.monotonic()
    mcp = _mcp([("read_benchmark", {"campaign_dir": str(world[case])}) for case, _, _ in CAMPAIGN_CASES])
    mcp_seconds = time.monotonic() - started
    job = {
        "root": str(world["fifo"].parent),
        "cases": [
            {"id": case, "argv": ["read-benchmark", str(world[case]), "--json"], "cwd": str(world["fifo"].parent)}
            for case, _, _ in CAMPAIGN_CASES
        ],
    }
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "helpers" / "cli_batch.py")],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    cli = {r["id"]: r for r in json.loads(proc.stdout)}
    return dict(zip([c for c, _, _ in CAMPAIGN_CASES], mcp, strict=True)), cli, mcp_seconds


@pytest.mark.parametrize("case, field, words", CAMPAIGN_CASES, ids=[c for c, _, _ in CAMPAIGN_CASES])
def test_a_hostile_campaign_is_a_clear_error_on_both_surfaces(campaign_answers, case, field, words):
    mcp, cli, mcp_seconds = campaign_answers
    _started(mcp_seconds / len(CAMPAIGN_CASES))
    res = mcp[case]
    text = _msg(res)
    assert res.is_error and text.startswith(field) and words in text, text
    assert "please report" not in text
    r = cli[case]
    assert r["rc"] == 2 and r["seconds"] < slack(20), r
    # with --json the error is one JSON object on stderr, stdout empty (perfkit.cli.commands._Errors)
    said = json.loads(r["stderr"])
    assert r["stdout"] == "" and said["error"] == "bad_input" and said["exit_code"] == 2, r["stderr"]
    assert said["message"].startswith(field) and words in said["message"], r["stderr"]


def _u_p_independent(a: list[float], b: list[float]) -> float:
    """Two-sided normal-approximation p of Mann-Whitney U, from pair counts (no ranks), tie-corrected."""
    u = sum((x > y) + 0.5 * (x == y) for x in a for y in b)
    n1, n2 = len(a), len(b)
    n = n1 + n2
    _, counts = np.unique(np.concatenate([a, b]), return_counts=True)
    var = n1 * n2 / 12 * ((n + 1) - float((counts**3 - counts).sum()) / (n * (n - 1)))
    z = (abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(var)
    return math.erfc(z / math.sqrt(2))


def test_515_runs_per_arm_give_the_normal_approximation_p(world):
    (res,) = _mcp([("read_benchmark", {"campaign_dir": str(world["many"])})])
    assert not res.is_error, res.content[0].text
    sig = res.structured_content["comparison"]["significance"]
    per_run = {}
    for line in (world["many"] / "benchmark.csv").read_text().splitlines()[1:]:
        arm, run, step, t = line.split(",")
        if int(step) > 1:  # warm-up step 1 left out, as read_benchmark does by default
            per_run.setdefault((arm, run), []).append(float(t))
    means = {arm: [sum(v) / len(v) for (a, _), v in per_run.items() if a == arm] for arm in ("baseline", "pr")}
    assert len(means["pr"]) == 515 and sig["exact"] is False
    assert sig["p_value"] == pytest.approx(_u_p_independent(means["pr"], means["baseline"]), rel=1e-9)
    assert sig["min_p_value"] == 0.0


def test_the_smallest_p_value_never_overflows():
    from perfkit.benchmark import stats

    assert stats.u_min_p(3, 3) == pytest.approx(2 / 20)
    assert stats.u_min_p(515, 515) == 0.0
    assert 0 < stats.u_min_p(400, 400) < 1e-200  # comb(800, 400) ~ 1e239: still exact


def test_a_200000_character_revision_or_path_is_a_bad_field(world):
    long = "a" * 200_000
    calls = [
        ("classify_changes", {"repo": str(world["repo"]), "base": long}),
        ("evaluate_culprit", {"repo": str(world["repo"]), "commit": long}),
        ("git_blame_removal", {"repo": str(world["repo"]), "base": world["first"], "paths": [long]}),
        ("classify_changes", {"repo": "/" + long, "base": "HEAD"}),
        ("read_benchmark", {"campaign_dir": "/" + long}),
        ("triage_builds", {"good_dir": "/" + long, "bad_dir": str(world["repo"])}),
    ]
    results = _mcp(calls)
    for (tool, args), res in zip(calls, results, strict=True):
        field = next(k for k, v in args.items() if long in json.dumps(v))
        text = _msg(res)
        assert res.is_error and text.startswith(field), (tool, text[:300])
        assert "please report" not in text, text[:300]
    # a command line cannot carry 200,000 characters in one argument (the kernel refuses): 120,000 can
    proc = _cli("evaluate-culprit", str(world["repo"]), long[:120_000], timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith("perfkit: error: COMMIT"), proc.stderr[:300]


def test_a_truncated_git_config_is_named_as_such(world):
    calls = [
        ("evaluate_culprit", {"repo": str(world["broken"]), "commit": world["first"]}),
        ("classify_changes", {"repo": str(world["broken"]), "base": world["first"]}),
    ]
    for res in _mcp(calls):
        text = _msg(res)
        assert res.is_error and text.startswith("repo:") and "broken the git config" in text, text
        assert "bad config line" in text and "not a commit" not in text, text
    proc = _cli("evaluate-culprit", str(world["broken"]), world["first"], timeout=60)
    assert proc.returncode == 2 and "bad config line" in proc.stderr, proc.stderr


def test_an_unexpected_exception_is_one_line_naming_the_tool_and_the_kind(capfd):
    """The last net: a bug says which tool and which exception, asks for a report, logs the traceback."""
    import logging

    from helpers.broken_tools import broken_tool
    from perfkit.mcp_server.server import build_server
    from perfkit.tools.spec import ToolSpec

    spec = ToolSpec(broken_tool, read_only=True)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, force=True)

    async def go():
        async with Client(build_server([spec]), mode="legacy") as client:
            return await client.call_tool("broken_tool", {"size": 3})

    res = anyio.run(go)
    text = _msg(res)
    assert res.is_error and "\n" not in text
    assert text.startswith("broken_tool failed: an unexpected ZeroDivisionError") and "please report" in text, text
    assert "Traceback" in capfd.readouterr().err


def test_no_non_finite_number_leaves_a_tool():
    from helpers.broken_tools import infinite_tool
    from perfkit.errors import ToolFailure
    from perfkit.tools.spec import ToolSpec

    with pytest.raises(ToolFailure, match=r"not finite \(values\.1\)"):
        ToolSpec(infinite_tool, read_only=True).call({"size": 2})


def test_blame_with_100000_copies_of_one_path_answers_at_once(world):
    started = time.monotonic()
    ok, many = _mcp(
        [
            ("git_blame_removal", {"repo": str(world["repo"]), "base": world["first"], "paths": ["a.txt"] * 100_000}),
            (
                "git_blame_removal",
                {"repo": str(world["repo"]), "base": world["first"], "paths": [f"f{i}" for i in range(1001)]},
            ),
        ]
    )
    _started(time.monotonic() - started)
    assert not ok.is_error, _msg(ok)
    assert ok.structured_content["empty_range"] is False
    assert many.is_error and _msg(many).startswith("paths: names 1,001 different paths, more than the 1,000"), _msg(
        many
    )


def test_a_report_that_is_not_a_regular_file_is_named_or_left_out(tmp_path):
    from perfkit.benchmark.read import read_benchmark
    from perfkit.errors import InputError

    sha = "c3" * 20
    named = _campaign(tmp_path / "named", _rows(3, 4, 1.0, 0.9, 0.01))
    (named / "records").mkdir()
    (named / "notes").mkdir()
    line = {"sha": sha, "title": "t", "shipped": True, "report": "notes"}
    (named / "records" / "candidates.jsonl").write_text(json.dumps(line) + "\n")
    with pytest.raises(InputError, match=r"^records/candidates.jsonl line 1 field 'report': 'notes' is not a regular"):
        read_benchmark(str(named))
    implicit = _campaign(tmp_path / "implicit", _rows(3, 4, 1.0, 0.9, 0.01))
    (implicit / "records").mkdir()
    (implicit / "commits" / sha).mkdir(parents=True)
    os.mkfifo(implicit / "commits" / sha / "report.md")
    (implicit / "records" / "candidates.jsonl").write_text(
        json.dumps({"sha": sha, "title": "t", "shipped": True}) + "\n"
    )
    res = read_benchmark(str(implicit))
    assert res.candidates[0].report is None
    assert any("report.md is not a regular file" in w for w in res.warnings), res.warnings


# --- issue forms, issue templates and contributing guides (render_pr's readers) ------------------


def _options_form(n: int) -> str:
    boxes = "\n".join(f"        - label: box {k}\n          required: true" for k in range(n))
    return (
        "name: Perf\nbody:\n  - type: checkboxes\n    id: c\n    attributes:\n      label: Checks\n"
        f"      options:\n{boxes}\n  - type: dropdown\n    attributes:\n      label: Which\n"
        f"      options: [{', '.join(f'o{k}' for k in range(n))}]\n"
    )


def _deep_form(n: int) -> str:
    nest = "[" * 55 + "1" + "]" * 55  # within the loader's 64 levels: parsed, then ignored as no field
    items = "".join(f"  - type: textarea\n    attributes:\n      label: F{k}\n      extra: {nest}\n" for k in range(n))
    return f"name: Deep\nbody:\n{items}"


def _form_cost(kind: str, n: int) -> tuple[float, object]:
    from perfkit.publish.forms import fill_form, fill_markdown, parse, rank
    from perfkit.publish.forms.common import Material
    from perfkit.publish.forms.facts import Facts
    from perfkit.publish.repo_notes import sentences

    started = time.perf_counter()
    if kind == "contributing":
        got: object = sentences("\n".join(f"Rule {k}: AI agents must not open PRs. Tip {k}." for k in range(n)))
        return time.perf_counter() - started, got
    if kind == "odd-guide":  # a heading of spaces, brackets and links that never close, a word that never ends
        from perfkit.publish.repo_notes import kind_of

        text = "# " + " " * n + "x #\n\n" + "title [" * n + "\n\n" + "AI](" * n + "\n\n" + "a" * n + "(\n"
        got = [kind_of(x, False) for x in sentences(text)]
        return time.perf_counter() - started, got
    if kind == "pr-words":  # one sentence, no full stop: every pattern over it must stay linear
        from perfkit.publish.repo_notes import Sentence, kind_of

        got = kind_of(Sentence(1, "pull request title " * n + "| task " * n, False, ""), False)
        return time.perf_counter() - started, got
    text = {
        "options": lambda: _options_form(n),
        "deep": lambda: _deep_form(n // 20),
        "open-comment": lambda: "## A\n\n<!--\n" + "- [ ] hidden\n" * n + "## B\n\n- [ ] seen\n",
        "open-details": lambda: "## A\n\n<details>\n" + "- [ ] inside\n" * n + "## B\n\ntext\n",
        # a blank line ends the HTML block: without it "## B" would be the block's text, as GitHub shows it
        "nested-details": lambda: "## A\n\n" + "<details>\n" * n + "- [ ] deep\n" + "</details>\n" * n + "\n## B\n",
        "long-text": lambda: (
            "name: Bug\ndescription: " + "not performance issues, " * n + "\nbody:\n  - type: input\n    attributes:\n"
            "      label: Library version\n      placeholder: " + "x" * (20 * n) + " | task " * n + "\n"
        ),
    }[kind]()
    md = kind.startswith(("open", "nested"))
    form = parse.markdown_template("t.md", text) if md else parse.yaml_form("t.yml", text)
    rank.score(form)
    m = Material({"observed": "o", "logs_said": "l", "pr_note": "p"}, {}, Facts(gpu="H100"), "<{what}>")
    got = (fill_markdown if md else fill_form).fill(form, m)
    return time.perf_counter() - started, got


@pytest.mark.parametrize(
    "kind, n",
    [
        ("options", 1500),
        ("deep", 2000),
        ("open-comment", 20000),
        ("open-details", 20000),
        ("nested-details", 5000),
        ("contributing", 20000),
        ("pr-words", 20000),
        ("odd-guide", 20000),
        ("long-text", 5000),
    ],
)
def test_form_and_guide_readers_take_linear_time_on_hostile_shapes(kind, n):
    """Four times the input costs about four times the time (best of three runs, on a shared machine;
    quadratic would be sixteen)."""
    small = min(_form_cost(kind, n)[0] for _ in range(3))
    big, got = min((_form_cost(kind, 4 * n) for _ in range(3)), key=lambda r: r[0])
    assert big < 10 * small + 0.5 and big < 30, (kind, small, big)
    if kind == "options":
        assert [len(f.options) for f in got.fields] == [4 * n, 4 * n] and "box 5999" in got.body
    elif kind == "deep":
        assert len(got.fields) == 4 * n // 20
    elif kind == "open-comment":  # everything after an unclosed comment is the comment's: no heading B, no box
        assert [f.label for f in got.fields] == ["A"] and "- [ ] seen" in got.body
    elif kind == "open-details":  # an unclosed block runs to the end: kept verbatim, nothing lost
        assert got.body.count("- [ ] inside") == 4 * n and "## B" in got.body
    elif kind == "odd-guide":
        assert got == [None, None, None]
    elif kind == "pr-words":
        assert got is None  # a title word and no shape: nothing to report
    elif kind == "long-text":  # the description negates every phrase: a bug form, and no guessed version
        assert got.fields[0].filled_with == ["empty"]
    elif kind == "nested-details":  # closed again: the heading after the blocks is a field of its own
        assert [f.label for f in got.fields] == ["A", "B"] and got.body.count("<details>") == 4 * n
    else:
        assert len(got) == 8 * n and got[-1].line == 4 * n


def test_a_form_with_a_huge_option_list_renders_over_mcp(tmp_path):
    draft = json.loads((ROOT / "examples" / "publish" / "draft.json").read_text())
    repo = Repo(tmp_path / "repo")
    repo.commit(
        "forms",
        {
            "README.md": "x\n",
            ".github/ISSUE_TEMPLATE/perf.yml": _options_form(3000).replace("name: Perf", "name: Performance"),
            ".github/ISSUE_TEMPLATE/deep.yml": _deep_form(200),
        },
    )
    camp = tmp_path / "campaign"
    shutil.copytree(ROOT / "examples" / "campaign", camp)
    started = time.monotonic()
    (res,) = _mcp(
        [("render_pr", {"campaign_dir": str(camp), "repo": str(repo.path), "draft": draft, "out_dir": str(tmp_path)})]
    )
    assert not res.is_error, res.content
    assert time.monotonic() - started < 60
    use = res.structured_content["issue_form"]
    assert use["path"] == ".github/ISSUE_TEMPLATE/perf.yml" and len(use["fields"][0]["options"]) == 3000


def test_arguments_the_schema_refuses_read_like_every_bad_input():
    """Over MCP the SDK checks arguments against each tool's input schema before the tool runs; whatever it
    refuses (a missing field, a value of the wrong type) is answered in perfkit's form, `field: problem; what
    to do`, for every tool, never in pydantic's words."""
    from perfkit.registry import all_tools

    calls: list[tuple[str, dict]] = []
    expect: list[str] = []
    for spec in all_tools():
        params = spec.parameters()
        required = [p.name for p in params if p.default is p.empty]
        if required:  # nothing given: the first required field is named
            calls.append((spec.name, {}))
            more = f" (and {len(required) - 1} more)" if len(required) > 1 else ""
            expect.append(f"{required[0]}: field required{more}; pass it; see the input schema of {spec.name}")
        first = params[0].name
        calls.append((spec.name, {first: {"not": ["a", "value", "of", "this", "type"]}}))
        expect.append(f"{first}: ")
    for (tool, args), res, want in zip(calls, _mcp(calls), expect, strict=True):
        text = _msg(res)
        assert res.is_error and text.startswith(want), (tool, args, text[:300])
        assert "validation error" not in text and "pydantic" not in text and "; " in text, (tool, text[:300])
        assert f"see the input schema of {tool}" in text, (tool, text[:300])
