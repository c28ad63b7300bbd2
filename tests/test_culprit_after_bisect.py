"""evaluate_culprit after perfkit's bisect: the next step it gives is never one the bisect already took."""

from __future__ import annotations

from helpers.bisect_project import build
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start
from perfkit.culprit import after_bisect
from perfkit.culprit.evaluate import evaluate_culprit


def test_a_bump_whose_second_level_the_bisect_ran_points_at_its_answer(tmp_path):
    kernel = [""] * 6 + ["BROKEN"] * 5
    plan = [("src", "")] * 4 + [("ptr", 2)] + [("src", "")] * 3 + [("ptr", 9, "bump")] + [("src", "")] * 3
    p = build(tmp_path, kernel, plan)
    before = evaluate_culprit(p.path, p.c["bump"]).next_action
    assert before.kind == "bisect_submodule"  # no bisect yet: the second level is what to do
    bisect_start(p.path, p.c["add"], run=p.run_cmd(), install=p.installs(), install_submodule=p.installs_sub())
    res = bisect_run(p.path)
    assert res.culprit.commit == p.c["bump"] and res.submodule_culprit.commit == p.r[6]
    after = evaluate_culprit(p.path, p.c["bump"]).next_action
    assert after.kind == "read_highlights" and not after.sentence.startswith("Run a second-level bisect")
    assert "already ran the second-level bisect inside 'runtime'" in after.sentence
    assert p.r[6] in after.sentence and after.submodule == "runtime"
    # another commit of the same repository is not the bisect's culprit: the usual advice
    assert evaluate_culprit(p.path, p.c["add"]).next_action.sentence != after.sentence
    bisect_reset(p.path)
    assert evaluate_culprit(p.path, p.c["bump"]).next_action.kind == "bisect_submodule"


def test_a_mixed_commit_whose_split_test_the_bisect_ran(tmp_path):
    kernel = [""] * 8
    plan = [("src", "")] * 4 + [("mixed", 5, "BUG", "mixed")] + [("src", "BUG")] * 3
    p = build(tmp_path, kernel, plan)
    assert evaluate_culprit(p.path, p.c["mixed"]).next_action.kind == "split_test"
    bisect_start(p.path, p.c["add"], run=p.run_cmd())
    res = bisect_run(p.path)
    assert res.culprit.commit == p.c["mixed"] and res.outcome == "source_part", res.message
    nxt = evaluate_culprit(p.path, p.c["mixed"]).next_action
    assert nxt.kind == "read_highlights" and "already ran the split test" in nxt.sentence
    assert "source change is responsible" in nxt.sentence
    bisect_reset(p.path)


def test_the_record_is_read_where_the_bisect_keeps_it():
    assert (
        after_bisect.STATE[0] == statefile.DIRNAME
        and after_bisect.STATE[1] == statefile.state_file(statefile.Path(".")).name
    )
