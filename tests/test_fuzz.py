"""Property tests over the readers and parsers that take text from users and repositories.

Whatever the bytes, the CSV and JSONL readers, the draft loader, the YAML reader, the PR
template splitter and merger, the lint and the bisect's output scanner either answer or raise
InputError (or, for the YAML reader, its own documented error): never any other exception, which
the adapters would turn into an internal error. Where an answer comes back, it keeps its promises:
finite numbers, template lines copied verbatim and in order, findings inside the text, the same
verdict however the output was chunked.
"""

from __future__ import annotations

import json
import math
import os
import re
import string
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from perfkit.errors import InputError

N = int(os.environ.get("PERFKIT_FUZZ_EXAMPLES", "120"))  # raise it for a longer hunt
SETTINGS = settings(max_examples=N, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=max(N // 2, 10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROOT = Path(__file__).resolve().parents[1]

# ---- text that looks like what the parsers expect, mutated -----------------------------------------

NASTY = [
    "",
    " ",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "1e400",
    "-0",
    "0",
    "1",
    "2.5",
    "-3",
    "1,5",
    "1.5e-3",
    "abc",
    '"quoted, with comma"',
    '"unclosed',
    "{{ 7*7 }}",
    "{% for %}",
    "$(touch pwned)",
    "`id`",
    "<script>",
    "\x00",
    "\ufeff",
    "é",
    "\u202e",
    "9" * 400,
    "x" * 2000,
    "\t",
    "\r",
    "#",
]


def cell() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(NASTY),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.integers(-(10**20), 10**20).map(str),
        st.text(max_size=12),
    )


HEADERS = [
    ["arm", "run", "step", "step_time_s"],
    ["arm", "run", "step", "step_time_s", "peak_mem_gb"],
    ["arm", "run", "step", "step_time_s", "loss"],
    ["arm", "run", "step"],
    ["arm", "arm", "run", "step_time_s"],
    ["Arm ", " run", "step", "step_time_s"],
    ["arm", "run", "step", "step_time_s", ""],
]


@st.composite
def csv_text(draw) -> bytes:
    if draw(st.booleans()):  # a clean campaign with a few cells replaced: most of these must summarise
        header = ["arm", "run", "step", "step_time_s", "peak_mem_gb"]
        grid = [
            [arm, str(run), str(step), f"{draw(st.floats(0.01, 5)):.4f}", f"{draw(st.floats(0, 80)):.2f}"]
            for run in (1, 2, 3)
            for arm in ("baseline", "pr")
            for step in range(1, 6)
        ]
        for _ in range(draw(st.integers(0, 2))):
            r, c = draw(st.integers(0, len(grid) - 1)), draw(st.integers(0, 4))
            grid[r][c] = draw(cell())
        return (",".join(header) + "\n" + "\n".join(",".join(r) for r in grid) + "\n").encode("utf-8", "surrogatepass")
    header = draw(st.sampled_from(HEADERS))
    rows = []
    for _ in range(draw(st.integers(0, 30))):
        if draw(st.integers(0, 4)) == 0:  # a row of anything
            rows.append(",".join(draw(st.lists(cell(), max_size=len(header) + 2))))
            continue
        arm = draw(st.sampled_from(["baseline", "pr", "other", "", " pr", "baseline"]))
        row = [
            arm,
            str(draw(st.integers(0, 3))),
            str(draw(st.integers(0, 6))),
            draw(st.one_of(st.floats(0.01, 5).map(lambda f: f"{f:.3f}"), cell())),
        ]
        row += [draw(cell()) for _ in header[4:]]
        rows.append(",".join(row[: len(header)]))
    text = ",".join(header) + "\n" + "\n".join(rows) + draw(st.sampled_from(["", "\n", "\n\n", "\r\n"]))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()) and data:  # a stray byte somewhere
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at:]
    return data


def _campaign(tmp: Path, csv: bytes, jsonl: bytes | None = None) -> Path:
    camp = tmp / "camp"
    camp.mkdir(exist_ok=True)
    (camp / "benchmark.csv").write_bytes(csv)
    if jsonl is not None:
        (camp / "records").mkdir(exist_ok=True)
        (camp / "records" / "candidates.jsonl").write_bytes(jsonl)
    return camp


def _finite_numbers(obj) -> bool:
    if isinstance(obj, float):
        return math.isfinite(obj)
    if isinstance(obj, dict):
        return all(_finite_numbers(v) for v in obj.values())
    if isinstance(obj, list):
        return all(_finite_numbers(v) for v in obj)
    return True


GOOD_CSV = (
    "arm,run,step,step_time_s\n"
    + "\n".join(
        f"{arm},{run},{step},{t + 0.01 * ((step + run) % 3):.3f}"
        for run in (1, 2, 3)
        for arm, t in (("baseline", 1.0), ("pr", 0.8))
        for step in range(1, 6)
    )
    + "\n"
).encode()


# ---- the readers ---------------------------------------------------------------------------------


@SETTINGS
@given(csv_text())
def test_benchmark_csv_reader_answers_or_says_what_is_wrong(data):
    from perfkit.benchmark.read import read_benchmark

    with tempfile.TemporaryDirectory() as d:
        camp = _campaign(Path(d), data)
        try:
            summary = read_benchmark(str(camp))
        except InputError as exc:
            assert exc.field and exc.problem
            event("refused")
            return
    event("summarised")
    # a summary only from clean rows: every figure finite, every arm's steps counted
    dumped = summary.model_dump(mode="python")
    assert _finite_numbers(dumped)
    assert {a.name for a in summary.arms} >= {"baseline", summary.candidate}


@FEW
@given(st.binary(max_size=3000))
def test_benchmark_csv_reader_on_any_bytes(data):
    from perfkit.benchmark.read import read_benchmark

    with tempfile.TemporaryDirectory() as d:
        try:
            summary = read_benchmark(str(_campaign(Path(d), data)))
        except InputError as exc:
            assert exc.field and exc.problem and exc.fix  # a message that says what and how to fix it
            event("refused")
            return
    event("summarised")
    assert _finite_numbers(summary.model_dump(mode="python"))
    assert summary.baseline in {a.name for a in summary.arms} and summary.candidate in {a.name for a in summary.arms}


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
RECORD_KEYS = [
    "sha",
    "title",
    "shipped",
    "baseline",
    "metric",
    "before",
    "after",
    "effect_pct",
    "arm",
    "report",
    "note",
    "reason",
    "extra",
]
SHAS = ["a1" * 20, "a1a1a1a", "--output=x", "../../etc", "", "ABCDEF0123", "zz", "a1a1a1a1/../..", "a" * 65]
PATHS = ["report.md", "../outside.md", "/etc/passwd", "commits/x/report.md", "", "a/../../b", "\x00", "~/x"]


@st.composite
def jsonl_text(draw) -> bytes:
    lines = []
    hostile = draw(st.integers(0, 3)) == 0  # 3 examples in 4 are readable files: they reach the paths and numbers
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 9) if hostile else st.integers(5, 8))
        if kind >= 5:  # a valid record, perhaps with one field replaced
            rec = {
                "sha": draw(st.sampled_from(["a1" * 20, "a1a1a1a", "b2b2b2b2"])),
                "title": draw(st.text(max_size=30)) or "t",
                "shipped": draw(st.booleans()),
                "baseline": "base1234",
                "before": draw(st.floats(0.1, 10)),
                "after": draw(st.floats(0.1, 10)),
            }
            if kind == 9:
                rec[draw(st.sampled_from(RECORD_KEYS))] = draw(st.one_of(JSON_VALUES, st.sampled_from(SHAS + PATHS)))
            lines.append(json.dumps(rec))
            continue
        if kind == 0:
            lines.append(
                draw(
                    st.sampled_from(
                        [
                            "{",
                            "[1, 2]",
                            "null",
                            '"text"',
                            '{"sha": NaN}',
                            "",
                            "  ",
                            '{"a": Infinity}',
                            "\ufeff{}",
                            "{}}",
                        ]
                    )
                )
            )
            continue
        rec = {}
        for key in draw(st.lists(st.sampled_from(RECORD_KEYS), unique=True, max_size=len(RECORD_KEYS))):
            if key == "sha":
                rec[key] = draw(st.one_of(st.sampled_from(SHAS), JSON_VALUES))
            elif key == "report":
                rec[key] = draw(st.one_of(st.sampled_from(PATHS), JSON_VALUES))
            elif key in ("before", "after", "effect_pct"):
                rec[key] = draw(st.one_of(st.floats(), st.integers(-5, 5), JSON_VALUES))
            elif key == "shipped":
                rec[key] = draw(st.one_of(st.booleans(), JSON_VALUES))
            else:
                rec[key] = draw(JSON_VALUES)
        lines.append(json.dumps(rec))  # json.dumps writes NaN and Infinity as Python's json reads them
    data = "\n".join(lines).encode()
    if hostile and draw(st.integers(0, 1)) == 0 and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at:]
    return data


@SETTINGS
@given(jsonl_text())
def test_candidates_reader_answers_or_says_which_line_is_wrong(data):
    from perfkit.benchmark import campaign
    from perfkit.benchmark.candidates import read_candidates

    with tempfile.TemporaryDirectory() as d:
        camp = _campaign(Path(d), GOOD_CSV, data)
        (camp / "commits" / ("a1" * 20)).mkdir(parents=True)
        (camp / "commits" / ("a1" * 20) / "report.md").write_text("# r\n")
        try:
            cands, warnings = read_candidates(camp.resolve(), camp / campaign.CANDIDATES, campaign.CANDIDATES)
        except InputError as exc:
            assert exc.field.startswith("records/candidates.jsonl"), exc.field
            event("refused")
            return
        event("read" if cands else "read, empty")
        for c in cands:
            assert all(v is None or math.isfinite(v) for v in (c.before, c.after, c.effect_pct))
            for rel in (c.report, c.trace):  # every path it returns is inside the campaign folder
                if rel is not None:
                    assert (camp / rel).resolve().is_relative_to(camp.resolve())


@FEW
@given(
    st.one_of(
        JSON_VALUES,
        st.dictionaries(
            st.sampled_from(
                [
                    "job",
                    "gpu",
                    "gpu_count",
                    "summary",
                    "changes",
                    "correctness",
                    "details",
                    "issue",
                    "benchmark",
                    "template_answers",
                    "checkboxes",
                    "unknown",
                ]
            ),
            JSON_VALUES,
            max_size=5,
        ),
    )
)
def test_draft_loader_answers_or_names_the_field(value):
    from perfkit.draft.load import load_draft

    for given_as in (value, json.dumps(value)):
        try:
            load_draft(given_as)
        except InputError as exc:
            assert exc.field.startswith("draft")


# ---- YAML (issue forms, drafts) --------------------------------------------------------------

YAML_BITS = [
    "name: Bug",
    "body:",
    "  - type: textarea",
    "    attributes:",
    "      label: What happened?",
    "      options: [a, b]",
    "      options:",
    "        - label: x",
    'labels: [perf, "x"]',
    'title: "[perf] "',
    "description: |",
    "  block text",
    "  more",
    "- item",
    "key: 'it''s'",
    'key: "esc \\" q"',
    "# comment",
    "---",
    "...",
    "  bad indent",
    "{a: 1}",
    "[1, [2, {b: c}]]",
    "&anchor x",
    "*alias",
    "!!python/object x",
    "key: value # trailing",
    "\t- tab",
    ": no key",
    "'open",
    '"open',
    "{{ 7*7 }}",
    "? complex",
    "- - nested",
]


@SETTINGS
@given(st.lists(st.one_of(st.sampled_from(YAML_BITS), st.text(max_size=15)), max_size=14))
def test_yaml_reader_and_issue_forms_never_crash(lines):
    from perfkit.guards import safe_yaml
    from perfkit.publish.forms import parse

    text = "\n".join(lines)
    for read in (
        safe_yaml.load,
        lambda t: parse.yaml_form("f.yml", t),
        lambda t: parse.markdown_template("t.md", "---\n" + t + "\n---\nbody\n"),
    ):
        try:
            read(text)
        except safe_yaml.YamlRefused as exc:
            assert exc.line is None or exc.line >= 1
        except parse.NotAForm as exc:
            assert "issue form" in str(exc)


# ---- the PR template merger --------------------------------------------------------------------------

MD_BITS = [
    "## Summary",
    "## Test Result",
    "## Reviewer notes",
    "# Title",
    "### Checklist",
    "Summary",
    "=======",
    "-------",
    "---",
    "```",
    "~~~",
    "```python",
    "<!--",
    "-->",
    "<!-- one line -->",
    "- [ ] Tests pass",
    "- [x] Docs updated",
    "* [X] I did not use AI",
    "- [ ] {{ box }}",
    "{{ 7*7 }}",
    "{% for x in y %}",
    "{% endfor %}",
    "{# note #}",
    "<details>",
    "</details>",
    "| a | b |",
    "|---|---|",
    "> quote",
    "1. item",
    "",
    "  ",
    "plain text",
    "$(touch pwned)",
    "#",
    "#no space",
    "    ## indented code",
    "\\## escaped",
]


@st.composite
def markdown(draw, bits=MD_BITS) -> str:
    lines = draw(st.lists(st.one_of(st.sampled_from(bits), st.text(max_size=20)), max_size=25))
    return "\n".join(lines)


def _is_subsequence(needle: list[str], hay: list[str]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)


@SETTINGS
@given(markdown(), st.data())
def test_template_merger_copies_the_template_verbatim(text, data):
    from perfkit.draft.model import Checkbox
    from perfkit.publish.merge_template import merge
    from perfkit.publish.repo_template import RepoTemplate, split
    from perfkit.publish.template_parts import parse, roles

    parts = parse.parse(text)
    roles.assign(parts)
    # parsing loses no line: the non-blank lines come back in order, each in one part
    assert [ln for p in parts for ln in p.lines if ln.strip()] == [ln for ln in text.split("\n") if ln.strip()]
    headings = [p.title for p in parts if p.kind == "heading" and p.title]
    answers = data.draw(
        st.dictionaries(
            st.sampled_from(headings + ["preamble", "nope"] + [p.id for p in parts]),
            st.sampled_from(["answer", "{{ 7*7 }}", "multi\nline", ""]),
            max_size=3,
        )
    )
    boxes = data.draw(
        st.lists(
            st.builds(
                Checkbox,
                text=st.sampled_from(["Tests pass", "Docs", "AI", "", "x"]),
                tick=st.booleans(),
                reason=st.none() | st.just("not run"),
            ),
            max_size=3,
        )
    )
    tpl = RepoTemplate(path="t.md", candidates=["t.md"], why="test", sections=split(text), text=text, parts=parts)
    try:
        merged = merge(tpl, answers, boxes, "<{what}>")
    except InputError as exc:  # an ambiguous key or option is named back to the agent
        assert exc.field.startswith(("draft.template_answers", "draft.checkboxes"))
        return
    # process notes, markup and the template's collapsed notes are kept as written unless the draft answers
    # them by id; the template's other words are instruction or an open question's prompt, never posted
    # (closed world, docs/publish.md "The account"); what the account keeps comes out verbatim, in order
    fate = {t.id: t.fate for t in merged.parts}
    for p in parts:
        if (p.kind in ("process", "details") or (p.kind == "text" and p.in_details)) and p.id not in answers:
            assert fate[p.id] == "structure", (p, merged.parts)
    kept = [p for p in parts if p.kind in ("text", "process", "details") and fate[p.id] == "structure"]
    verbatim = [ln for p in kept for ln in p.lines if ln.strip()]
    assert _is_subsequence(verbatim, merged.lines), (parts, merged.lines)
    # visible prompt text never stays (unless the same words are also the template's own or an answer)
    other = {ln for p in parts if p.kind != "prompt" for ln in p.lines}
    said = "\n".join(v if isinstance(v, str) else "\n".join(v) for v in answers.values())
    for p in parts:
        if p.kind == "prompt" and not p.hidden:
            for ln in p.lines:
                if ln.strip() and ln not in other and ln.strip() not in said:
                    assert ln not in merged.lines, (ln, merged.lines)
    assert [t.id for t in merged.parts] == [p.id for p in parts]
    assert {k.strip() for k in merged.unused_answers} <= {k.strip() for k in answers}


# ---- the lint ------------------------------------------------------------------------------------------

LINT_BITS = MD_BITS + [
    "# [perf] job on 8 H100: 1.2 s to 0.9 s per step",
    "It is 1.45x faster.",
    "3.2% less time",
    "a — b – c",
    "**bold** text",
    "__bold__",
    "blazing fast and seamless",
    "test_foo_bar()",
    "| baseline | 1.2 s | 1.45x |",
    "step time 1.5 s on 8 B200",
    "e.g. 1,234.5 ms",
    "10 GB",
    "Speedup Result",
    "## Correctness Verification",
    "## Details",
    "1.5 s",
    "0.0004",
    "<details><summary>x</summary>",
    "We ran 3 runs.",
    "x" * 300,
]


@pytest.fixture(scope="module")
def figures():
    from perfkit.lint.lint import campaign_figures

    return campaign_figures(str(ROOT / "examples" / "campaign"))


@SETTINGS
@given(markdown(LINT_BITS), st.sampled_from(["pr", "issue"]), st.booleans())
def test_lint_findings_point_into_the_text(figures, text, kind, with_figures):
    from perfkit.lint.lint import lint_text
    from perfkit.markdown import split_lines

    findings, run, skipped = lint_text(text, kind, figures if with_figures else None)
    lines = split_lines(text)  # lines as GitHub counts them: LF, CRLF or a lone CR ends one
    assert findings == sorted(findings, key=lambda f: (f.line, f.column, f.rule))
    for f in findings:
        assert 1 <= f.line <= len(lines), f
        assert 1 <= f.column <= len(lines[f.line - 1]) + 1, f
        assert f.rule in run and f.fix


# ---- the bisect's output scanner -------------------------------------------------------------------

OUT_BITS = [
    b"check PASS",
    b"check max_abs_err=0.25 FAIL",
    b"FAILED to warm up",
    b"PASSWORD",
    b"max_abs_err=1e-3",
    b"max_abs_err=nan",
    b"\xff\xfe",
    "é ✓".encode(),
    b"x" * 5000,
    b"",
    b"\r",
    b"progress 50%\r",
    b"\x00",
]


@SETTINGS
@given(st.lists(st.one_of(st.sampled_from(OUT_BITS), st.binary(max_size=40)), max_size=30), st.data())
def test_verdict_scan_does_not_depend_on_how_output_arrives(lines, data):
    from perfkit.bisect.command.runner import Scan

    out = b"\n".join(lines)

    def scan(chunks: list[bytes]) -> tuple:
        s = Scan(
            fail=re.compile(r"\bFAIL\b", re.M),
            passed=re.compile(r"\bPASS\b", re.M),
            metric=re.compile(r"max_abs_err=(\S+)", re.M),
        )
        for c in chunks:
            s.feed(c)
        s.feed(b"", final=True)
        return s.fail_line, s.pass_line, s.metric_text

    cuts = sorted(data.draw(st.lists(st.integers(0, len(out)), max_size=12)))
    pieces = [out[a:b] for a, b in zip([0, *cuts], [*cuts, len(out)], strict=True)]
    whole = scan([out])
    assert scan(pieces) == whole
    text = out.decode("utf-8", "replace")
    assert (whole[0] is not None) == bool(re.search(r"\bFAIL\b", text))
    assert (whole[1] is not None) == bool(re.search(r"\bPASS\b", text))


def test_the_alphabets_are_hostile_enough():
    """The generators above include every family the bad-input table names."""
    joined = "\n".join(NASTY + MD_BITS + YAML_BITS)
    for needle in ("{{", "{%", "<script>", "$(", "`", "\x00", "nan", "inf", "\ufeff"):
        assert needle in joined, needle
    assert any(len(x) >= 400 for x in NASTY) and set(string.ascii_letters) & set(joined)


PATTERNS = [
    r"\bFAIL\b",
    r"\bPASS\b",
    r"^FAIL",
    r"(?m)^\bPASS\b",
    r"\b(PASS|OK)\b",
    r"max_abs_err=(\S+)",
    r"\bmax_abs_err=(\d+)",
    r"(?m)^max_abs_err=(\S*)$",
    r"^$",
    r"\bFAIL|PASS",
]
LINE_BITS = [
    "FAIL",
    "PASS",
    "OK",
    "max_abs_err=1",
    "max_abs_err=22 max_abs_err=3",
    "xFAILx",
    "FAILED",
    "",
    " ",
    "x" * 3000,
    "é",
    "max_abs_err=",
]


@SETTINGS
@given(
    st.sampled_from(PATTERNS),
    st.lists(st.one_of(st.sampled_from(LINE_BITS), st.text(max_size=8)), max_size=120),
    st.integers(0, 50),
)
def test_fast_scan_finds_exactly_what_the_pattern_finds(pattern, lines, pos):
    """The flood-speed search (a wider pattern first) and the last-match search agree with re itself."""
    from perfkit.bisect.command.runner import _last, _search

    rx = re.compile(pattern, re.MULTILINE)
    text = "\n".join(lines)
    pos = min(pos, len(text))
    expected = rx.search(text, pos)
    got = _search(rx, text, pos)
    assert (got and (got.start(), got.group(0))) == (expected and (expected.start(), expected.group(0)))
    every = list(rx.finditer(text))
    if every:
        last = _last(rx, text)
        assert (last.start(), last.group(0)) == (every[-1].start(), every[-1].group(0))


# ---- size and depth limits of every text input: an answer or an InputError that names the limit ----


def _nested(depth: int, inner: str, kinds: str) -> str:
    opens = "".join("[" if kinds[i % len(kinds)] == "a" else '{"k": ' for i in range(depth))
    closes = "".join("]" if kinds[i % len(kinds)] == "a" else "}" for i in reversed(range(depth)))
    return opens + inner + closes


@SETTINGS
@given(
    depth=st.integers(0, 3000),
    kinds=st.text(alphabet="ao", min_size=1, max_size=5),
    digits=st.integers(1, 6000),
    inner=st.sampled_from(['"x"', "1.5", "1e999", "-1e999", "NaN", '"\\ud800"', '"\\udfff x"', "true", "null"]),
)
def test_json_records_within_limits_parse_and_beyond_them_are_named(depth, kinds, digits, inner):
    from perfkit.guards import limits

    number = "7" * digits
    text = _nested(depth, f"[{inner}, {number}]", kinds)
    too_deep = depth + 1 > limits.MAX_JSON_DEPTH
    too_long = digits > limits.MAX_INT_DIGITS
    bad_inner = inner in ("1e999", "-1e999", "NaN") or "\\ud" in inner
    assert limits.json_depth(text) == depth + 1  # independent of the parser: brackets counted in the test
    try:
        value = limits.load_json(text, "f", "fix it")
    except InputError as exc:
        event("refused")
        assert str(exc).startswith(("f: ", "f field '"))
        if too_deep:
            assert "levels deep" in str(exc)
        assert too_deep or too_long or bad_inner, str(exc)
        return
    event("parsed")
    assert not (too_deep or too_long or bad_inner)
    for _ in range(depth):
        value = value[0] if isinstance(value, list) else value["k"]
    assert value[1] == int(number)


@FEW
@given(size=st.integers(0, 2048), limit=st.integers(1, 2048), nul=st.booleans(), bad_utf8=st.booleans())
def test_file_reader_keeps_its_size_limit_exactly(size, limit, nul, bad_utf8):
    from perfkit.guards import limits

    data = bytearray(b"a" * size)
    if size and nul:
        data[size // 2] = 0
    if size > 2 and bad_utf8:
        data[-1] = 0xFF
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.txt"
        path.write_bytes(bytes(data))
        try:
            text = limits.read_regular_text(path, "f.txt", limit, "fix it")
        except InputError as exc:
            assert str(exc).startswith("f.txt: ")
            assert size > limit or (size and nul) or (size > 2 and bad_utf8), str(exc)
            return
    assert size <= limit and text == data.decode()


@SETTINGS
@given(value=st.one_of(st.text(max_size=50), st.text(alphabet="ab\ud800\x00", max_size=10)), extra=st.integers(0, 3))
def test_inline_text_limit_and_validity(value, extra):
    from perfkit.guards import limits

    text = value * (extra + 1)
    limit = 40
    try:
        limits.check_text(text, "text", limit, "shorten it")
    except InputError as exc:
        assert len(text) > limit or "\ud800" in text, str(exc)
        return
    assert len(text) <= limit and "\ud800" not in text


@FEW
@given(rev=st.one_of(st.text(max_size=40), st.integers(1020, 1030).map(lambda n: "a" * n)))
def test_revisions_of_any_text_or_length_are_a_commit_or_an_input_error(rev, tmp_path_factory):
    from helpers.gitbuild import Repo
    from perfkit.repo import gitrepo

    global _FUZZ_REPO
    if "_FUZZ_REPO" not in globals():
        repo = Repo(tmp_path_factory.mktemp("fuzz-rev"))
        repo.commit("one", {"a": "a\n"})
        _FUZZ_REPO = repo.path
    try:
        sha = gitrepo.resolve_commit(_FUZZ_REPO, rev, "base")
    except InputError as exc:
        assert str(exc).startswith("base: ")
        return
    assert len(rev.strip()) <= 1024 and len(sha) == 40
