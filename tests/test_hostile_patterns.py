"""Every regular expression in perfkit runs in time linear in the text it reads.

The audit (tests/helpers/regex_audit.py) finds every pattern in server/perfkit, from the source and
from the imported modules, and feeds each one texts built from its own items (a prefix it matches,
then a long run of a character one of its repeats takes, with and without a character nothing
expects at the end) plus the classic runs. A pattern fails when its time grows faster than about
n^1.5 between 8,000 and 16,000 characters, or when it needs more than 50 ms below 16,000.
The tools are then run end to end on the lines that used to take minutes.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from pathlib import Path

import pytest
from helpers import regex_audit as audit
from helpers.gitbuild import Repo
from helpers.load import slack
from perfkit.changes.classify import classify_changes

TOP = 16000

# Patterns built at run time inside a function: the audit cannot time what it cannot see, so each
# one is reviewed here, with why it is linear. A new one fails test_dynamic_patterns_are_reviewed.
_USERS_PATTERN = "the user's own verdict pattern, run in a child process stopped at the step's timeout"
REVIEWED_DYNAMIC = {
    "perfkit.bisect.command.scan:_child": _USERS_PATTERN,
    "perfkit.bisect.command.scan:_search": _USERS_PATTERN,
    "perfkit.bisect.command.linear_pattern:search": "the user's own verdict pattern, searched in the empty string only",
    "perfkit.bisect.command.linear_pattern:word": "Python's own \\w, matched against one character at a time",
    "perfkit.bisect.settings:merge": "the user's own verdict patterns, compiled to check them; never run here",
    "perfkit.bisect.command.verdict:scanner": "the user's own verdict pattern, run under the step's timeout (scan.py)",
    "perfkit.bisect.workers.ray_worker:_submodule_url": "an escaped literal URL: a plain substring search",
    "perfkit.changes.lookup:_word_re": "an alternation of escaped literal words between fixed lookarounds",
    "perfkit.changes.lookup:import_uses": "an alternation of escaped module names after fixed anchored prefixes",
    "perfkit.changes.removal:judge": r"one escaped name between \b: a substring search",
    "perfkit.cli.terms:argument_words": "escaped argument names between fixed lookarounds: a substring search",
    "perfkit.cli.terms:other_arguments": "escaped argument names between fixed lookarounds: a substring search",
    "perfkit.cli.terms:tool_words": "escaped tool names between fixed lookarounds: a substring search",
    "perfkit.culprit.numeric_rules:<module>": "module-level patterns: timed through the imported module",
    "perfkit.culprit.numeric_rules:gate": "escaped literal pieces joined by |: a substring search; every gate is "
    "also held in numeric_rules.PATTERNS and timed through the imported module",
    "perfkit.guards.limits:_repeat_line": "an escaped JSON key (it starts with a quote), then \\s*+ and a colon",
    "perfkit.lint.claims.extract:__init__": "the campaign's metric and arm names, escaped, between fixed lookarounds: "
    "a substring search",
    "perfkit.lint.claims.vocab:<module>": "module-level patterns: timed through the imported module",
    "perfkit.lint.numbers:<module>": "module-level patterns: timed through the imported module",
    "perfkit.lint.markdown:<module>": "module-level patterns: timed through the imported module",
    "perfkit.lint.rules:_job_spans": "module-level job patterns handed in: timed through the imported module",
    "perfkit.lint.rules:_w": "word lists joined between lookarounds: timed through the imported module",
    "perfkit.markdown.html:<module>": "module-level patterns: timed through the imported module",
    "perfkit.publish.forms.common:_one_field": "an escaped answer key between word lookarounds: a substring search",
    "perfkit.publish.forms.common:box_for": "an escaped box answer between word lookarounds: a substring search",
    "perfkit.publish.forms.facts:_version": "an escaped name then a bounded version shape",
    "perfkit.publish.forms.rank:<module>": "module-level patterns: timed through the imported module",
    "perfkit.publish.forms.roles:<module>": "module-level patterns: timed through the imported module",
    "perfkit.publish.meanings:<module>": "module-level vocabularies joined between fixed lookarounds, held in _RX "
    "and _BOX_RX: timed through the imported module",
    "perfkit.publish.repo_template:_fit": "an escaped heading word between \\b: a substring search",
    "perfkit.publish.rule_params:title": "an escaped slot name between fixed markers, searched in a line's first "
    "80 characters: a substring search",
    "perfkit.publish.template_lines:<module>": "module-level patterns: timed through the imported module",
    "perfkit.publish.template_parts.enforced:heading_pattern": "escaped heading words joined by a separator "
    "whose alternatives each start with a different character; timed in test_template_parts.py",
    "perfkit.publish.template_parts.links:<module>": "module-level patterns: timed through the imported module",
    "perfkit.triage.normalise:<module>": "module-level patterns: timed through the imported module",
    "perfkit.triage.normalise:__init__": "the user's own normalisation patterns for build outputs, run once per line",
}


def _module(found: audit.Found) -> str:
    """The module a pattern lives in: 'perfkit.x:12' from the source, 'perfkit.x.NAME' from an import."""
    where = sorted(found.where)[0]
    return where.split(":")[0] if ":" in where else where.rsplit(".", 1)[0]


PATTERNS = audit.all_patterns()
BY_MODULE: dict[str, list[audit.Found]] = defaultdict(list)
for _found in PATTERNS:
    BY_MODULE[_module(_found)].append(_found)


def slow(compiled: re.Pattern[str], mode: str, bait: tuple[str, str, str]) -> audit.Growth | None:
    """The growth that breaks the promise, or None. A quick look first; a careful one only if it looks slow."""
    run = audit.runner(compiled, mode)
    first = audit.growth(run, *bait, top=TOP)
    if first.sizes[-1] == TOP and (first.exponent <= 1.5 or first.seconds[-1] < 0.02):
        return None
    for _ in range(2):  # a slow look twice in a row, measured with care, before it counts
        second = audit.growth(run, *bait, factor=2, repeat=5, top=TOP)
        too_slow_early = second.sizes[-1] < TOP and second.seconds[-1] > 0.05
        if not (too_slow_early or (second.exponent > 1.5 and second.seconds[-1] > 0.02)):
            return None
    return second


def offenders(found: audit.Found) -> list[str]:
    compiled = re.compile(found.pattern, found.flags)
    out = []
    for mode in sorted(found.modes):
        for bait in audit.baits(found.pattern, found.flags):
            g = slow(compiled, mode, bait)
            if g is not None:
                times = ", ".join(f"{n}: {t * 1000:.1f} ms" for n, t in zip(g.sizes, g.seconds, strict=True))
                out.append(f"{found.pattern!r} ({mode}) on {bait!r}: exponent {g.exponent:.2f}; {times}")
                break
    return out


def test_the_audit_finds_the_patterns_it_must():
    """Both finders work: literal calls, names, lists of patterns and patterns built at import."""
    found = {(f.pattern, f.flags): f for f in PATTERNS}
    assert len(found) > 200
    from perfkit.changes import recipes
    from perfkit.culprit import numeric_rules

    for compiled in (recipes._JSON_RE, recipes._ENV_SET[2], numeric_rules.PASS_RE, *numeric_rules.PATTERNS):
        assert (compiled.pattern, compiled.flags & ~re.UNICODE) in found, compiled.pattern
    assert any("perfkit.changes.lookup:" in w for f in PATTERNS for w in f.where)  # a re.match(literal) in a function
    json_re = found[(recipes._JSON_RE.pattern, 0)]
    assert "search" in json_re.modes


def test_dynamic_patterns_are_reviewed():
    _, dynamic = audit.source_patterns()
    unreviewed = sorted(set(dynamic) - set(REVIEWED_DYNAMIC))
    assert not unreviewed, f"patterns built at run time that no one reviewed: {unreviewed}"
    gone = sorted(set(REVIEWED_DYNAMIC) - set(dynamic))
    assert not gone, f"reviewed entries with no pattern left: {gone}"


@pytest.mark.parametrize(
    "pattern",
    [
        r"\"([A-Za-z_][\w.\-]*)\"\s*:\s*([^,{\[]+?|\{|\[)\s*,?\s*$",  # classify_changes' old JSON line: cubic
        r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$",  # the old heading: quadratic on a run of #s
        r"(?<![A-Za-z0-9])(?:\w*Pass)(?![A-Za-z0-9])",  # quadratic on a run of underscores
    ],
)
def test_the_audit_catches_a_pattern_that_backtracks(pattern):
    """The check can fail: patterns perfkit used to ship are caught, with the input that shows it."""
    found = audit.Found(pattern, 0, {"example"}, {"search"})
    assert offenders(found)


@pytest.mark.parametrize("module", sorted(BY_MODULE))
def test_every_pattern_grows_linearly(module):
    bad = [line for found in BY_MODULE[module] for line in offenders(found)]
    assert not bad, "\n".join(bad)


# ---- the tools, end to end, on the lines that took minutes ---------------------------------------


def _classify(tmp_path: Path, files: dict[str, str]) -> tuple[float, object]:
    r = Repo(tmp_path / "repo")
    r.commit("base", {"README.md": "base\n"})
    base = r.head()
    r.commit("delivery", files)
    start = time.monotonic()
    result = classify_changes(repo=str(r.path), base=base)
    return time.monotonic() - start, result


@pytest.mark.parametrize(
    "files",
    [
        {"configs/train.json": '{\n  "lr": x' + " " * 3000 + "\x01\n}\n"},
        {"configs/train.json": '{\n  "lr": x' + " " * 20000 + "\n}\n"},
        {"train.py": "def f(a: " + " " * 4000 + "\n    return a\n"},
        {"train.py": "def f(a: int" + " " * 20000 + "= 1):\n    return a\n"},
        {"configs/train.yaml": "lr: x" + " " * 20000 + "#\n"},
        {"configs/train.toml": "lr = x" + " " * 20000 + "#\n"},
        {"requirements.txt": "torch" + " " * 20000 + "\x01\n"},
        {"scripts/run.sh": "torchrun train.py --lr " + "1" * 20000 + "x\n"},
        {"model.py": "try:\n    import x\nexcept" + " " * 20000 + "\x01\n    pass\n"},
        {"model.py": "    cfg.get('lr', " + " " * 20000 + "\n"},
    ],
    ids=[
        *("json-3000", "json-20000", "def-4000", "def-annotation", "yaml", "toml"),
        *("requirements", "flag", "except", "get"),
    ],
)
def test_classify_changes_reads_long_lines_in_linear_time(tmp_path, files):
    """The named cases (132 s and 86 s before) and their kin, answered in seconds, not minutes."""
    seconds, result = _classify(tmp_path, files)
    (commit,) = result.commits  # type: ignore[attr-defined]
    (changed,) = commit.files
    assert changed.path == next(iter(files)) and changed.status == "added" and changed.hunks, changed
    assert seconds < slack(10), f"{seconds:.1f} s"


def test_render_pr_reads_a_template_line_of_20000_spaces_in_linear_time(tmp_path):
    """`- ` plus 20,000 spaces in the PR template (97 s before) and a heading full of #s."""
    from perfkit.publish.render import render_pr
    from test_render_pr import DRAFT, make_campaign

    campaign = make_campaign(tmp_path / "campaign")
    r = Repo(tmp_path / "repo")
    template = (
        "## Summary\n\n- " + " " * 20000 + "\n\n## Tests\n\n- [ ] " + " " * 20000 + "\x01\n"
        "# Notes " + "#" * 20000 + "\x01\n**Label" + " " * 20000 + "\n"
        "Fixes #" + " " * 20000 + "\x01\n"
    )
    r.commit("template", {".github/PULL_REQUEST_TEMPLATE.md": template})
    start = time.monotonic()
    res = render_pr(str(campaign), str(r.path), draft=DRAFT, out_dir=str(tmp_path / "out"))
    seconds = time.monotonic() - start
    assert Path(res.pr_path).is_file()
    assert seconds < slack(15), f"{seconds:.1f} s"
