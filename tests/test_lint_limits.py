"""lint_wording on hostile sizes: linear on repeated figures, a clear cap, findings still exact on long lines."""

from __future__ import annotations

import time

import pytest
from perfkit.errors import InputError
from perfkit.lint.lint import MAX_BYTES, lint_text, lint_wording

TITLE = "# [perf] job on 8 H100: 1.23 s to 0.98 s per step at world size 8, mostly from x\n\n## Summary\n\n"


def _one_line(n: int) -> str:
    return "".join(f"Step {k} took 1.23 s. " for k in range(n))


def test_a_long_paragraph_of_figures_lints_in_bounded_time():
    text = TITLE + _one_line(4000)  # about 90 KB on one line: the old rules took hours on this
    t = time.perf_counter()
    findings, _, _ = lint_text(text, "pr")
    assert time.perf_counter() - t < 30  # a bound against hangs, not a speed claim (bench_lint_scaling.py)
    assert not [f for f in findings if f.rule == "speedup-hardware"]


def test_a_speedup_deep_in_a_long_line_is_found_at_its_column():
    prefix = "Step 1 took 1.23 s. " * 2000
    text = TITLE + prefix + "This PR is 1.25x faster."
    findings, _, _ = lint_text(text, "pr")
    hits = [f for f in findings if f.rule == "speedup-hardware"]
    assert [(h.line, h.column, h.excerpt) for h in hits] == [(5, len(prefix) + len("This PR is ") + 1, "1.25x")]


def test_the_hardware_in_the_same_sentence_still_clears_it():
    text = TITLE + "Step 1 took 1.23 s. " * 500 + "On 8 H100 this PR is 1.25x faster. Next 2.5x here."
    hits = [f for f in lint_text(text, "pr")[0] if f.rule == "speedup-hardware"]
    assert [h.excerpt for h in hits] == ["2.5x"]


def test_many_links_and_comments_on_one_line_are_masked():
    text = TITLE + " ".join(f"<!-- c{k} --> [a](https://x.y/{k}) `code {k}` robust" for k in range(3000))
    findings, _, _ = lint_text(text, "pr")
    sales = [f for f in findings if f.rule == "sales-word"]
    assert len(sales) == 3000 and all(f.excerpt == "robust" for f in sales)


@pytest.mark.parametrize("extra", [1, 100_000])
def test_text_over_the_cap_is_refused_naming_github_limit(extra):
    text = "# t\n\n" + "a" * (MAX_BYTES + extra)
    with pytest.raises(InputError) as e:
        lint_wording(text=text)
    assert e.value.field == "text" and "65,536" in e.value.fix and "KB" in e.value.problem


def test_a_file_over_the_cap_is_refused(tmp_path):
    p = tmp_path / "big.md"
    p.write_text("# t\n\n" + "é" * (MAX_BYTES // 2 + 10))  # two bytes each: over the cap in bytes
    with pytest.raises(InputError) as e:
        lint_wording(path=str(p))
    assert e.value.field == "path"


def test_text_just_under_the_cap_is_linted():
    text = "# t\n\n" + ("word " * (MAX_BYTES // 5 - 10))
    assert lint_wording(text=text).kind in ("pr", "issue")
