"""How the planner uses the noise-aware search: which strategy, what it sees, the ends, and the words.

With noise off a search is plain halving whose answer is confirmed (the culprit and its parent run
twice) and that turns noise-aware as soon as verdicts contradict each other; with noise on (or a
flake rate given) every verdict is weighed and a culprit is named at `confidence`. Either way the
strategy sees every run of a point (its repeats), read from the recorded steps, so a resumed
bisect sees exactly what the interrupted one saw. An end whose one run disagrees with what it
must be is run again before the bisect stops on it; once the check has shown noise, the ends are
evidence the search weighs like any other point, not a gate. Searches that only skip stop early
with the reason, or at the skip budget with the candidate set.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from perfkit.bisect.models import BisectSettings, StepRecord, Verdict
from perfkit.bisect.search import evidence
from perfkit.bisect.search.bisection import Decision, Mark, Strategy
from perfkit.bisect.search.noisy import Adaptive, NoisySearch, contradiction
from perfkit.bisect.search.rate_prior import DEFAULT_PRIOR, log_likelihood
from perfkit.bisect.state.store import PhaseData, State

if TYPE_CHECKING:
    from perfkit.bisect.search.levels import Levels

DEFAULT_CONFIDENCE = 0.99
_WHERE = {
    "level1": "level 1",
    "level2": "level 2",
    "find_fix": "the find-fix search",
    "split_pointer": "the split test (pointer moved alone)",
    "split_source": "the split test (source changes alone)",
}
SPLIT_RUNS = 8  # a split point whose runs reach no verdict at the confidence stops the bisect after these


def noise_on(s: BisectSettings) -> bool:
    """A flake rate or a confidence is only used by the noise-aware search, so giving one asks for it."""
    return s.noise or s.confidence is not None or s.flaky_fail is not None or s.flaky_pass is not None


def noise_shown(st: State) -> bool:
    """Level 1's verdicts contradicted each other: the check is noisy, and every later search knows it."""
    return contradiction(len(st.level1.items), repeated_marks(st, st.level1)) is not None


def strategy_for(st: State, ph: PhaseData) -> Strategy:
    """flaky_fail and flaky_pass are about verdicts; the strategy thinks in old and new, which a
    find-fix search (old = bad) swaps."""
    s = st.settings
    regression = ph.start_verdict == "good"
    to_new, to_old = (s.flaky_fail, s.flaky_pass) if regression else (s.flaky_pass, s.flaky_fail)
    noisy = NoisySearch(
        confidence=s.confidence or DEFAULT_CONFIDENCE, to_old=to_old, to_new=to_new, max_skips=s.max_skips
    )
    if noise_on(s) or (ph.name != "level1" and noise_shown(st)):
        return noisy
    return Adaptive(fallback=noisy, max_skips=s.max_skips)


def repeated_marks(st: State, ph: PhaseData) -> dict[int, list[Mark]]:
    """Every recorded run of the search's points, as old/new/skip lists; level 1 also sees its ends."""
    n = len(ph.items)
    index = {c: i for i, c in enumerate(ph.items)}
    marks: dict[int, list[Mark]] = {}
    for s in st.steps:
        if ph.name == "level1":
            i = {"level1": index.get(s.superproject), "verify_good": -1, "verify_bad": n - 1}.get(s.phase)
            if i is None and s.phase == "level1" and s.superproject == st.good:
                i = -1  # the good end run again as evidence
        elif s.phase == ph.name and s.superproject == ph.superproject and s.submodule is not None:
            i = index.get(s.submodule)
        else:
            i = None
        if i is None:
            continue
        mark: Mark = "skip" if s.verdict == "skip" else "old" if s.verdict == ph.start_verdict else "new"
        marks.setdefault(i, []).append(mark)
    for i, v in ph.marks.items():  # state written before repeats were recorded
        if i not in marks:
            marks[i] = ["skip" if v == "skip" else "old" if v == ph.start_verdict else "new"]
    return marks


def storm(levels: Levels, ph: PhaseData) -> bool:
    """Stop a search whose first runs all skipped for one reason: the command is wrong, not the commits."""
    index = {c: i for i, c in enumerate(ph.items)}
    reason = evidence.storm_reason(
        levels.st.steps,
        ph.name,
        lambda s: index.get(s.superproject if ph.name == "level1" else s.submodule or ""),
        len(ph.items),
    )
    if reason is None:
        return False
    where = None if ph.name == "level1" else levels.sub_path
    levels.candidates(list(ph.items), where)
    runs = sum(1 for s in levels.st.steps if s.phase == ph.name)
    levels.st.message = (
        f"Stopped {_WHERE[ph.name]} after {runs} runs that all skipped with the same reason: {reason}. "
        "The same failure at every point means the run or install command is wrong for this range, not that "
        "these commits are: fix the command and start again. Nothing was named."
    )
    return True


def record_end(st: State, ph: PhaseData, d: Decision) -> None:
    """Keep what a finished search knows about its own reliability."""
    if d.confidence is not None:
        st.confidence[ph.name] = round(d.confidence, 4)
    note_switch(st, ph, d)
    if d.noisy and d.flaky is not None:
        fail, passed = d.flaky if ph.start_verdict == "good" else d.flaky[::-1]
        st.notes.append(
            f"{_WHERE[ph.name]}: flake rates used: a pass read as FAIL {fail:.1%}, a failure read as PASS {passed:.1%}"
        )


def note_switch(st: State, ph: PhaseData, d: Decision) -> None:
    """Say once, as soon as it happens, that the verdicts contradicted each other and the search turned
    noise-aware (status shows it mid-run, not only at the end)."""
    if not d.note:
        return
    head = f"{_WHERE[ph.name]}: verdicts contradicted each other"
    if any(n.startswith(head) for n in st.notes):
        return
    st.notes.append(
        f"{head} ({_named(st, ph, d.note)}); the search switched to the noise-aware strategy instead of "
        "naming a commit on the last verdict"
    )


def _named(st: State, ph: PhaseData, note: str) -> str:
    """The strategy's "index i" as the commit (or end) it stands for."""
    n = len(ph.items)

    def name(m: re.Match[str]) -> str:
        i = int(m.group(1))
        if i < 0:
            return f"the good end {st.good[:12]}" if ph.name == "level1" else "the search's start"
        if ph.name == "level1" and i == n - 1:
            return f"the bad end {st.bad[:12]}"
        return ph.items[i][:12] if i < n else m.group(0)

    return re.sub(r"index (-?\d+)", name, note)


def word_confidence(st: State) -> None:
    if st.phase == "done" and st.confidence:
        said = ", ".join(f"{_WHERE[k]} {v:.1%}" for k, v in st.confidence.items())
        st.message += (
            f" Confidence: {said} (each culprit and its parent were run; the runs per point are in `evidence`)."
        )


def word_stop(st: State, ph: PhaseData, d: Decision) -> None:
    """The words of a search that ended on a candidate set for a reason other than untestable neighbours."""
    if d.stopped is None and (d.confidence is None or d.found is not None):
        return
    reasons = evidence.skip_reasons([s for s in st.steps if s.phase == ph.name])
    top = "; ".join(f"{r.count}x {r.reason}" for r in reasons[:3]) or "none"
    skips = sum(r.count for r in reasons)
    held = f" together they hold {d.confidence:.1%}" if d.confidence is not None else ""
    if d.stopped == "skip_budget":
        why = f"stopped after {skips} skips (the max_skips budget)"
    elif d.stopped == "no_information":
        why = "stopped: no point left to test could raise the confidence"
    else:
        why = "the culprit sits among points that could not be told apart"
    ends = word_end_evidence(st, d)
    if ends:
        doubt = f"P(good end fails) {d.end_doubt[0]:.1%}, P(bad end passes) {d.end_doubt[1]:.1%}"
        ends = f" The ends are in doubt too: {ends} ({doubt})."
    st.message = (
        f"{_WHERE[ph.name].capitalize()} {why}: the first bad commit is one of these {len(d.candidates)} "
        f"commits;{held}. Skip reasons: {top}.{ends} perfkit does not guess between them."
    )
    if d.confidence is not None:
        st.confidence[ph.name] = round(d.confidence, 4)


def _end_counts(st: State, phase: str) -> tuple[int, int]:
    expected = "good" if phase == "verify_good" else "bad"
    runs = [s.verdict for s in st.steps if s.phase == phase and s.verdict != "skip"]
    return sum(v == expected for v in runs), sum(v != expected for v in runs)


def _last_of(st: State, phase: str) -> Verdict | None:
    runs = [s for s in st.steps if s.phase == phase]
    return max(runs, key=lambda s: s.n).verdict if runs else None


END_RUNS = 3  # an end stops the bisect after this many runs that all disagree with what it must be


def end_needs_rerun(st: State, phase: str) -> bool:
    """An end whose runs all disagree with what it must be runs again, up to END_RUNS runs, before the
    bisect stops on it (noise off: under noise the search itself re-runs it when the evidence calls for
    it). Two runs are not enough: a check that flakes 10% of the time reads an end wrong twice in a row
    once in a hundred bisects, three times once in a thousand."""
    if phase not in ("verify_good", "verify_bad") or noise_on(st.settings) or _last_of(st, phase) in (None, "skip"):
        return False
    agree, disagree = _end_counts(st, phase)
    return agree == 0 and 0 < disagree < END_RUNS


def end_verdict(st: State, phase: str, last: Verdict) -> Verdict:
    """The verdict the end stands on. Noise off, its runs when they agree; once its runs disagree, or
    under noise, the one it was given as: its runs are then evidence the level-1 search weighs (and
    re-runs), which ends the bisect on that end only when the evidence says so."""
    if last == "skip":
        return last
    agree, disagree = _end_counts(st, phase)
    expected: Verdict = "good" if phase == "verify_good" else "bad"
    if noise_on(st.settings) or (agree and disagree):
        return expected
    return last


def _runs_of(st: State, end: str) -> str:
    commit = st.good if end == "verify_good" else st.bad
    runs = [s.verdict for s in st.steps if s.phase == end or (s.phase == "level1" and s.superproject == commit)]
    return f"{runs.count('good')} pass, {runs.count('bad')} fail in {len(runs)} runs"


def word_end_evidence(st: State, d: Decision) -> str:
    """What the runs of the two ends said, when the search doubts one of them."""
    parts = []
    if d.end_doubt[0] >= 0.001:
        parts.append(f"the good end {st.good[:10]} gave {_runs_of(st, 'verify_good')}")
    if d.end_doubt[1] >= 0.001:
        parts.append(f"the bad end {st.bad[:10]} gave {_runs_of(st, 'verify_bad')}")
    return "; ".join(parts)


def end_fails(levels: Levels, d: Decision) -> None:
    """The evidence, weighed with the flake rates, says an end is not what it was given as."""
    st = levels.st
    rates = ""
    if d.flaky is not None:
        rates = f" (flake rates seen: a pass read as FAIL {d.flaky[0]:.1%}, a failure read as PASS {d.flaky[1]:.1%})"
    which = "good" if d.end_fails == "start" else "bad"
    said = word_end_evidence(st, d)
    outcome: Literal["good_end_not_good", "bad_end_not_bad"] = (
        "good_end_not_good" if d.end_fails == "start" else "bad_end_not_bad"
    )
    what = "does not pass" if which == "good" else "does not fail"
    levels.finish(
        outcome,
        f"The {which} end {what}: {said}; weighed with every other run{rates}, the {which} end "
        f"{what} with probability {d.confidence or 0:.1%}. Nothing was named: check `{which}` and the "
        "pass/fail patterns.",
    )


def rate_evidence(st: State) -> tuple[tuple[int, int], tuple[int, int]]:
    """(flips, agreements) of passing points read as FAIL, and of failing points read as PASS: level 1's runs
    read against its answer, so a later test weighs its runs with what the check has shown so far."""
    culprit = st.culprit.commit if st.culprit else None
    items = st.level1.items
    if culprit not in items:
        return (0, 0), (0, 0)
    k = items.index(culprit)
    fail = [0, 0]
    passed = [0, 0]
    for i, runs in repeated_marks(st, st.level1).items():
        for m in runs:
            if m == "skip":
                continue
            if i < k:
                fail[0 if m == "new" else 1] += 1
            else:
                passed[0 if m == "old" else 1] += 1
    return (fail[0], fail[1]), (passed[0], passed[1])


def point_verdict(st: State, runs: Sequence[StepRecord]) -> tuple[Verdict | None, float]:
    """What one point's runs say, and how sure: P(the point truly fails) from its passes and fails, each
    direction's flake rate told or integrated over the prior updated with level 1's evidence. The verdict
    is None until it holds the bisect's confidence."""
    bads = sum(s.verdict == "bad" for s in runs)
    goods = sum(s.verdict == "good" for s in runs)
    if not bads and not goods:
        return None, 0.0
    s = st.settings
    (ff, fa), (pf, pa) = rate_evidence(st)
    truly_bad = log_likelihood(goods, bads, s.flaky_pass, DEFAULT_PRIOR.updated(pf, pa))
    truly_good = log_likelihood(bads, goods, s.flaky_fail, DEFAULT_PRIOR.updated(ff, fa))
    p_bad = 1 / (1 + math.exp(min(700.0, truly_good - truly_bad)))
    verdict: Verdict = "bad" if p_bad >= 0.5 else "good"
    sure = max(p_bad, 1 - p_bad)
    return (verdict if sure >= (s.confidence or DEFAULT_CONFIDENCE) else None), sure
