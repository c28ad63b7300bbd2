"""The verdict search in perfkit's process (RE2) finds what Python's engine finds, in linear time.

Patterns are drawn from a grammar of what Python accepts (literals inside and outside ASCII, sets,
classes, anchors, word boundaries, groups, alternations, lazy and counted repeats, inline flags) and
texts from an alphabet chosen to disagree between engines (Unicode digits, spaces and letters, the
Kelvin sign and the long s that fold to ASCII, control characters Python calls spaces). Whatever the
translation accepts must find the same first match, the same line, the same group and the same last
match as Python; whatever it refuses says why, and the whole scan agrees either way.
"""

from __future__ import annotations

import os
import re
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.bisect.command import linear_pattern
from perfkit.bisect.command.linear_pattern import NotLinear
from perfkit.bisect.command.linear_scan import LinearScan, join, linear_scan
from perfkit.bisect.command.scan import Scan

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ODD = ["é", "É", "\u212a", "\u017f", "\u0131", "\u0663", "\u00a0", "\u2003", "\u2713", "\ufffd", "\x85", "ß"]
TEXT_CHARS = list("abcFAILPASSkKsSiI019_ =.:-\n\n\n\r\t\x0b\x0c\x1c\x1f\x00") + ODD

ATOMS = [
    *"aAkKsSiIFx019_ =.",
    r"\w",
    r"\W",
    r"\d",
    r"\D",
    r"\s",
    r"\S",
    ".",
    "[a-k]",
    "[^a-k]",
    r"[\d_]",
    r"[^\s\d]",
    "é",
    "\u212a",
    "[é-ÿ]",
    r"\.",
    "FAIL",
    "PASS",
]
ANCHORS = ["^", "$", r"\b", r"\B", r"\A", r"\Z"]
QUANT = ["*", "+", "?", "*?", "+?", "??", "{2}", "{1,3}", "{,2}", "{2,}?"]
FLAGS = ["", "(?i)", "(?s)", "(?a)", "(?x)", "(?-m)"]


@st.composite
def patterns(draw, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 9 if depth < 2 else 5))
        if kind <= 3:
            parts.append(draw(st.sampled_from(ATOMS)))
        elif kind == 4:
            parts.append(draw(st.sampled_from(ANCHORS)))
        elif kind == 5:
            parts.append(draw(st.sampled_from(ATOMS)) + draw(st.sampled_from(QUANT)))
        elif kind == 6:
            parts.append("(" + draw(patterns(depth + 1)) + ")")
        elif kind == 7:
            parts.append("(?:" + draw(patterns(depth + 1)) + ")" + draw(st.sampled_from(["", *QUANT])))
        elif kind == 8:
            parts.append("(?i:" + draw(patterns(depth + 1)) + ")")
        else:
            parts.append(draw(patterns(depth + 1)) + "|" + draw(patterns(depth + 1)))
    return "".join(parts)


def full_patterns() -> st.SearchStrategy[str]:
    return st.builds(lambda f, p: f + p, st.sampled_from(FLAGS), patterns())


texts = st.lists(st.sampled_from(TEXT_CHARS), max_size=60).map("".join)


def compiled(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern, re.MULTILINE)
    except re.error:
        return None


@SETTINGS
@given(full_patterns(), texts, st.integers(0, 60))
def test_a_translated_pattern_finds_the_match_python_finds(pattern, text, pos):
    rx = compiled(pattern)
    if rx is None:
        return
    try:
        lin = linear_pattern.translate(rx.pattern, rx.flags)
    except NotLinear as exc:
        assert str(exc)  # a reason, always
        return
    alpha = linear_pattern.alphabet([lin])
    data = alpha.ascii_text(text)
    if data is None:  # a character the pattern names itself: the scan hands over to Python (below)
        return
    assert len(data) == len(text)
    pos = min(pos, len(text))
    want = rx.search(text, pos)
    got = lin.search(data, pos)
    if want is None:
        assert got is None, (pattern, text, pos, got)
        return
    assert got is not None, (pattern, text, pos, want)
    assert got.start == want.start(), (pattern, text, pos)
    if rx.groups:
        assert (got.g_start, got.g_end) == want.span(1), (pattern, text, pos)
    assert got.end == want.end(), (pattern, text, pos)


def scan_both(fail: str, passed: str, metric: str | None, chunks: list[bytes]) -> tuple[tuple, tuple] | None:
    rxs = [compiled(p) if p is not None else None for p in (fail, passed, metric)]
    if any(r is None for r, p in zip(rxs, (fail, passed, metric), strict=True) if p is not None):
        return None
    try:
        ours = linear_scan(*rxs)
    except NotLinear:
        return None
    theirs = Scan(*rxs)
    rest: Scan | None = None
    for c in chunks:
        theirs.feed(c)
        if rest is not None:
            rest.feed(c)
            continue
        ours.feed(c)
        if ours.handover is not None:  # what the child searches from here: Python's engine, the rest
            rest = Scan(*rxs)
            rest.feed(ours.handover)
    theirs.feed(b"", final=True)
    if rest is None:
        ours.feed(b"", final=True)
        if ours.handover is not None:
            rest = Scan(*rxs)
            rest.feed(ours.handover)
    if rest is not None:
        rest.feed(b"", final=True)
        join(ours, rest)
    return (ours.fail_line, ours.pass_line, ours.metric_text), (theirs.fail_line, theirs.pass_line, theirs.metric_text)


@SETTINGS
@given(
    full_patterns(),
    full_patterns(),
    st.one_of(st.none(), st.sampled_from([r"max_abs_err=(\S+)", r"err=(\d+)", r"(?i)rate (\w+)", r"[0-9]+"])),
    st.lists(texts, max_size=8),
    st.data(),
)
def test_the_scan_in_process_gives_the_verdict_python_gives(fail, passed, metric, lines, data):
    out = "\n".join(lines).encode("utf-8") + data.draw(st.sampled_from([b"", b"\xff\xfe", b"\n"]))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(out)), max_size=6)))
    chunks = [out[a:b] for a, b in zip([0, *cuts], [*cuts, len(out)], strict=True)]
    both = scan_both(fail, passed, metric, chunks)
    if both is not None:
        assert both[0] == both[1], (fail, passed, metric, out)


def test_the_default_patterns_and_common_shapes_run_in_process():
    for fail, passed, metric in [
        (r"\bFAIL\b", r"\bPASS\b", None),
        (r"\bFAIL\b", r"\bPASS\b", r"max_abs_err=(\S+)"),
        (r"(?i)^error:", r"^ok\b", r"rel_err\s*=\s*([-+0-9.eE]+)"),
        (r"(a+)+$", r"PASS", None),  # backtracks for ever in Python, linear in RE2
    ]:
        scan = linear_scan(*(re.compile(p, re.M) if p else None for p in (fail, passed, metric)))
        assert isinstance(scan, LinearScan)


@pytest.mark.parametrize(
    "pattern,why",
    [
        (r"(a)\1", "backreference"),
        (r"FAIL(?!ED)", "lookahead"),
        (r"(?<=x)FAIL", "lookbehind"),
        (r"(?>a+)b", "atomic group"),
        (r"a++", "possessive"),
        (r"(?-m:FAIL$)", "$ outside multi-line mode"),
        (r"(a|)*b", "can match nothing"),
        (r"a{1001}", "over 1,000"),
    ],
)
def test_what_rE2_cannot_run_with_pythons_meaning_is_refused_with_the_reason(pattern, why):
    with pytest.raises(NotLinear) as exc:
        linear_scan(re.compile(pattern, re.M), re.compile("PASS", re.M), None)
    assert why in str(exc.value) and "fail_pattern" in str(exc.value)


def test_a_pattern_that_backtracks_in_python_is_linear_here():
    """`(a+)+$` on 4 MB of a's then b: Python's engine would take longer than the universe; RE2 a moment."""
    scan = linear_scan(re.compile(r"(a+)+$", re.M), re.compile(r"\bPASS\b", re.M), None)
    t0 = time.process_time()
    for _ in range(4):
        scan.feed(b"a" * (1 << 20) + b"b\n")
    scan.feed(b"PASS\n", final=True)
    assert scan.fail_line is None and scan.pass_line == "PASS"
    assert time.process_time() - t0 < 30  # a bound no backtracking engine meets, loose for a loaded machine


def test_a_character_the_pattern_names_hands_the_rest_to_python():
    """A block with a character outside ASCII that only the pattern itself names has no stand-in: the
    rest of the output, that block included, goes to Python's engine; what was found before stands."""
    scan = linear_scan(re.compile(r"[^\x00-\x7f]FAIL", re.M), re.compile(r"\bPASS\b", re.M), None)
    handed: list[bytes] = []
    scan.on_handover = handed.append
    scan.feed(b"PASS\n" * 3)
    assert scan.pass_line == "PASS" and not handed
    scan.feed("\u2713FAIL here\n".encode() + b"tail")
    assert handed == ["\u2713FAIL here\n".encode() + b"tail"]
    assert scan.handover is not None


def test_a_flood_of_characters_outside_ascii_goes_to_the_child_and_the_verdict_stands(tmp_path):
    """Each run of characters outside ASCII costs a call into Python, so a block with hundreds of them
    (a progress bar drawn in block characters) is handed to Python's engine in a child process, through
    a real pipe: the verdict of the whole output is the one Python's engine gives, lines before and after."""
    from perfkit.bisect.command import runner

    rxs = [re.compile(p, re.M) for p in (r"\bFAIL\b", r"\bPASS\b", r"err=(\S+)")]
    bar = "step \u2588\u2588\u2591\u2591 45% \u00e9 \u2713 err=0.5\n" * 4000
    script = tmp_path / "check.py"
    script.write_text(f"print('PASS err=0.25')\nprint({bar!r})\nprint('FAIL here')\n")
    scan = linear_scan(*rxs)
    log = runner.Log(tmp_path / "logs" / "step.log", 1 << 20)
    env = {"PATH": os.environ["PATH"], "PYTHONIOENCODING": "utf-8"}
    res = runner.run(f"{sys.executable} {script}", tmp_path, env, 60, log, scan)
    log.close()
    assert res.exit_code == 0 and scan.handover is not None and scan.unfinished is None
    assert (scan.fail_line, scan.pass_line, scan.metric_text) == ("FAIL here", "PASS err=0.25", "0.5")
    python = Scan(*rxs)
    python.feed(("PASS err=0.25\n" + bar + "\nFAIL here\n").encode(), final=True)
    assert (python.fail_line, python.pass_line, python.metric_text) == ("FAIL here", "PASS err=0.25", "0.5")


def test_a_pattern_slow_even_for_rE2_stops_at_the_steps_deadline(tmp_path):
    """Linear is not always fast: `[ab]*a[ab]{200}c` overflows RE2's DFA on random a's and b's and costs
    seconds per MiB. The search is cut into short calls and stops past the deadline (plus the grace for
    output in flight), like the child; the step says so instead of running on for minutes. The output is
    read only as fast as it is searched, so the command waits on the search and reaches its timeout: the
    step names the search, which took most of the time, not only the timeout."""
    from helpers.load import slack
    from perfkit.bisect.command import runner

    rxs = [re.compile(p, re.M) for p in (r"[ab]*a[ab]{200}c", r"\bPASS\b")]
    # written before the step: a loaded machine slows a generating script so much that the search kept up
    # with it and finished what little came before the deadline; `cat` hands over 64 MiB at once
    table = bytes(97 + (i & 1) for i in range(256))
    (tmp_path / "flood.txt").write_bytes(os.urandom(64 << 20).translate(table) + b"\nPASS\n")
    scan = linear_scan(*rxs, None)
    log = runner.Log(tmp_path / "logs" / "step.log", 1 << 20)
    t0 = time.monotonic()
    runner.run("cat flood.txt", tmp_path, {"PATH": os.environ["PATH"]}, 2, log, scan)
    log.close()
    assert time.monotonic() - t0 < 2 + slack(10)
    assert scan.unfinished is not None and "did not finish" in scan.unfinished
    assert scan.pass_line is None  # the search stopped before the end of the output


def test_a_command_that_outlives_its_timeout_is_not_blamed_on_a_fast_search(tmp_path):
    from perfkit.bisect.command import runner

    scan = linear_scan(re.compile(r"\bFAIL\b"), re.compile(r"\bPASS\b"), None)
    log = runner.Log(tmp_path / "logs" / "step.log", 1 << 20)
    res = runner.run("echo working; sleep 30", tmp_path, {"PATH": os.environ["PATH"]}, 1, log, scan)
    log.close()
    assert res.timed_out and scan.unfinished is None
