"""History shapes end to end through the CLI: a sideways bump, a merge culprit, a mixed commit's split test.

A sideways bump moves the runtime pointer from a release branch to main (neither contains the
other): level 2 searches the commits new on main from the merge base and the answer lists the
commits the move dropped; when the merge base fails too, the release branch carried a fix main lacks,
and a find-fix search over the release side names it. A merge whose branch brings the bug is named
as the first-parent culprit. Each shape also runs under a check that swaps PASS and FAIL on 10% of
its runs (seeded per step, so a run of the test is reproducible): the answer is the right one, at the
confidence it states, and the check did lie during it.
"""

from __future__ import annotations

import json
import random
import sys
import textwrap
from pathlib import Path

from helpers.bisect_project import Project, build
from helpers.gitbuild import Repo, run_git, snapshot
from helpers.procs import perfkit
from perfkit.bisect.models import BisectStatus

FLIP = textwrap.dedent(
    """
    import os, random, subprocess, sys
    seed, rate, command = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    res = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    out = res.stdout
    if random.Random(f"{seed}:{os.environ['PERFKIT_STEP']}").random() < rate:
        out = out.replace("PASS", "@@").replace("FAIL", "PASS").replace("@@", "FAIL")
    sys.stdout.write(out)
    sys.exit(1 if "FAIL" in out else 0 if "PASS" in out else res.returncode)
    """
)


def lying_at(step: int, after: int = 0) -> int:
    """The first seed (from `after`) whose coin flips the verdict of that step: the check lies at least there."""
    return next(s for s in range(after, after + 10_000) if random.Random(f"{s}:{step}").random() < 0.10)


def flipping(folder: Path, command: str, seed: int, rate: float = 0.10) -> str:
    (folder / "flip.py").write_text(FLIP)
    quoted = command.replace("'", "'\\''")
    return f"{sys.executable} {folder / 'flip.py'} {seed} {rate} '{quoted}'"


def bisect(repo: str, good: str, run: str, *extra: str) -> BisectStatus:
    started = perfkit("bisect-start", repo, good, "--run", run, *extra, "--json")
    assert started.returncode == 0, started.stderr
    done = perfkit("bisect-run", repo, "--quiet", "--json", timeout=900)
    assert done.returncode == 0, done.stderr or done.stdout
    res = BisectStatus.model_validate_json(done.stdout)
    assert perfkit("bisect-reset", repo).returncode == 0
    return res


def lies(p: Project, res: BisectStatus) -> int:
    """Runs whose verdict is not the truth at their point (computed from git objects, not from perfkit)."""
    return sum(s.verdict != p.expected(s.superproject, s.submodule) for s in res.steps if s.verdict != "skip")


# the runtime's main breaks at commit 6; a release branch forks at commit 3 with two commits of its own
KERNEL = [""] * 6 + ["BROKEN"] * 4
SIDEWAYS = [("src", "")] * 3 + [("ptr", ("side", 1), "on_release")] + [("src", "")] * 5 + [("ptr", 9, "bump")]


def test_a_sideways_bump_searches_the_new_side_and_lists_what_it_dropped(tmp_path):
    p = build(tmp_path, KERNEL, SIDEWAYS + [("src", "")] * 3, side=(3, ["", ""]))
    before = snapshot(p.sup.path)
    res = bisect(p.path, p.c["add"], p.run_cmd())
    assert res.outcome == "found" and res.culprit and res.culprit.commit == p.c["bump"], res.message
    sub = res.submodule_culprit
    assert sub and sub.commit == p.r[6] and sub.role == "regression"
    assert res.sideways_base == p.r[3]
    assert [d.commit for d in res.dropped] == p.side and res.dropped_count == 2
    assert "sideways" in res.message and "2 commits only the old side has" in res.message
    assert res.confidence["level1"] >= 0.99 and res.confidence["level2"] >= 0.99
    level2 = [s for s in res.steps if s.phase == "level2"]
    assert level2 and {s.submodule for s in level2} <= set(p.r[3:10])  # the merge base and the new side only
    for s in res.steps:
        assert s.verdict == p.expected(s.superproject, s.submodule), s
    assert snapshot(p.sup.path) == before


def test_a_sideways_bump_that_drops_a_fix_names_the_fix(tmp_path):
    """The compiler needs a runtime fix that only the release branch has: pinned to the release it passes,
    moved to main it fails, and the merge base fails too. The find-fix search over the release side names
    the fix the move dropped."""
    plan = [("src", ""), ("ptr", ("side", 1)), ("src", "NEEDS_FIX")] + [("src", "NEEDS_FIX")] * 3
    plan += [("ptr", 9, "bump")] + [("src", "NEEDS_FIX")] * 2
    p = build(tmp_path, [""] * 10, plan, side=(3, ["", "FIX"]))
    res = bisect(p.path, p.c["add"], p.run_cmd())
    assert res.outcome == "found" and res.culprit.commit == p.c["bump"], res.message
    assert res.submodule_culprit and res.submodule_culprit.commit == p.side[1]
    assert res.submodule_culprit.role == "dropped_fix" and "dropped that fix" in res.message
    base = [s.verdict for s in res.steps if s.phase == "level2" and s.submodule == p.r[3]]
    assert len(base) >= 2 and set(base) == {"bad"}  # the merge base fails, confirmed: the answer is not on main
    assert {s.submodule for s in res.steps if s.phase == "find_fix"} <= {p.side[0], p.side[1]}
    for s in res.steps:
        assert s.verdict == p.expected(s.superproject, s.submodule), s


def test_a_sideways_bump_under_ten_percent_flips(tmp_path):
    p = build(tmp_path, KERNEL, SIDEWAYS + [("src", "")] * 3, side=(3, ["", ""]))
    res = bisect(p.path, p.c["add"], flipping(p.env, p.run_cmd(), seed=lying_at(4)))
    assert res.culprit and res.culprit.commit == p.c["bump"], res.message
    assert res.submodule_culprit and res.submodule_culprit.commit == p.r[6], res.message
    assert res.confidence["level1"] >= 0.99 and res.confidence["level2"] >= 0.99
    assert lies(p, res) >= 1  # the check did lie


def merge_history(root: Path) -> tuple[Repo, dict[str, str]]:
    """main: 12 commits, then the merge of a branch (forked at commit 5) whose second commit brings BUG,
    then 8 more. First-parent history sees the merge as the one commit that turns the check bad."""
    repo = Repo(root / "merged")
    c: dict[str, str] = {}
    for i in range(12):
        sha = repo.commit(f"main change {i}", {"src.txt": "ok\n", "main.txt": f"{i}\n"})
        c.setdefault("good", sha)
        if i == 5:
            c["fork"] = sha
    repo.git("checkout", "-q", "-b", "feature", c["fork"])
    repo.commit("feature: step one", {"feature.txt": "1\n"})
    c["bug"] = repo.commit("feature: sum the simple way", {"src.txt": "BUG\n"})
    repo.git("checkout", "-q", "main")
    run_git(repo.path, "merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature", date=1_800_000_000)
    c["merge"] = repo.head()
    for i in range(8):
        repo.commit(f"main after {i}", {"main.txt": f"after {i}\n"})
    return repo, c


CHECK = "grep -q BUG src.txt && echo 'max_abs_err=0.2 FAIL' || echo 'max_abs_err=0.0 PASS'"


def test_a_merge_culprit_under_ten_percent_flips(tmp_path):
    repo, c = merge_history(tmp_path)
    res = bisect(str(repo.path), c["good"], flipping(tmp_path, CHECK, seed=lying_at(3)), "--submodule", "")
    assert res.outcome == "found" and res.culprit and res.culprit.commit == c["merge"], res.message
    assert res.confidence["level1"] >= 0.99 and "Confidence: level 1" in res.message
    truth = {s.superproject: "bad" if "BUG" in run_git(repo.path, "show", f"{s.superproject}:src.txt") else "good"
             for s in res.steps}  # fmt: skip
    assert sum(s.verdict != truth[s.superproject] for s in res.steps) >= 1  # the check did lie
    # the merge's second parent is never on the first-parent line the search walks
    assert c["bug"] not in {s.superproject for s in res.steps}


def test_a_split_test_under_ten_percent_flips(tmp_path):
    """A mixed commit moves the runtime and changes source; the source part is responsible. Each split
    point decides from confirmed runs, re-run while the flips leave it unsure."""
    plan = [("src", "")] * 6 + [("ptr", 2)] + [("mixed", 8, "BUG", "mixed")] + [("src", "BUG")] * 6
    p = build(tmp_path, [""] * 12, plan)
    res = bisect(p.path, p.c["add"], flipping(p.env, p.run_cmd(), seed=lying_at(3, after=100)))
    assert res.culprit and res.culprit.commit == p.c["mixed"], res.message
    assert res.outcome == "source_part", res.message
    pointer = [s for s in res.steps if s.phase == "split_pointer"]
    source = [s for s in res.steps if s.phase == "split_source"]
    assert len(pointer) >= 2 and len(source) >= 2  # each split point confirmed
    assert res.confidence["split_pointer"] >= 0.99 and res.confidence["split_source"] >= 0.99
    assert lies(p, res) >= 1
    json.dumps(res.model_dump())  # the answer is plain JSON
