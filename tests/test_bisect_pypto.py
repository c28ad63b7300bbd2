"""`perfkit bisect-run` over the real pypto and simpler histories (contents replaced by blob ids).

Each case plants a precision bug as a predicate on ancestry, evaluated inside the checkout under
test with `git merge-base --is-ancestor`, behind one of the fixture's documented commits: a
pointer-only bump, a mixed rollback, and a mixed forward bump (submodule part and source part).
The test checks the answer against the fixture's README and the planted commits, each step's
verdict against the predicate evaluated here, and the run counts per level against log2 of the
range sizes computed here with git.
"""

from __future__ import annotations

import json
import math
import subprocess

import pytest
from helpers.gitbuild import run_git, snapshot
from helpers.procs import perfkit
from perfkit.bisect.search.noisy import CONFIRM_RUNS

pytestmark = pytest.mark.fixture

ADD = "9ac2b906691bf082e8da34c6053a00f54df0a0a3"  # adds the runtime submodule (#1050)
BUMP = "3846b209a617ad68a1acc1bc973418196eb37cd4"  # changes only runtime: simpler #580 -> #610 (#1112)
BUMP_OLD, BUMP_NEW = "66e7c901882958c2c936c8aa1ef167706def8f2f", "0304adf6eba55ae6e088dded2f3e77b5c72fea96"
BUMP_1423 = "c1e42663b2945aec535402dff07e9b01dd8166c1"  # brings in the runtime commits #1379 later drops
ROLLBACK = "1bba14e5f91aadc9c324aa76dbedece1ecc4b305"  # moves runtime backwards, 34 commits, with source
MIXED = "f80ca3ec2890047c6104626d32b674a584a44097"  # bumps runtime to 324df3d6 along with code changes

# runs a deterministic check pays per search for the default's confirmation: about CONFIRM_RUNS, at most two more
CONFIRM = CONFIRM_RUNS + 2


def nth_first_parent(repo, frm: str, to: str, n: int) -> str:
    return run_git(repo, "rev-list", "--first-parent", "--reverse", f"{frm}..{to}").split()[n - 1]


def count(repo, frm: str, to: str) -> int:
    return int(run_git(repo, "rev-list", "--first-parent", "--count", f"{frm}..{to}"))


def contains(repo, older: str, newer: str | None) -> bool:
    return (
        bool(newer)
        and subprocess.run(
            ["git", "-C", str(repo), "merge-base", "--is-ancestor", older, newer], capture_output=True
        ).returncode
        == 0
    )


def pointer(repo, commit: str) -> str:
    return run_git(repo, "rev-parse", f"{commit}:runtime")


def case(name: str, repo):
    """(good, bad, predicate as shell, predicate in Python over (super, sub), expected outcome).

    The bump case spans the whole history since the submodule exists (852 commits); the others a
    narrower window around their commit, to keep checkouts short."""
    sub = repo / "runtime"
    after_mixed = nth_first_parent(repo, MIXED, "HEAD", 40)
    if name == "bump":
        x = nth_first_parent(sub, BUMP_OLD, BUMP_NEW, 10)
        return (
            ADD,
            "HEAD",
            f"in_sub {x}",
            lambda s, m: contains(sub, x, m),
            dict(commit=BUMP, kind="submodule_bump", sub=x, role="regression", sub_range=(BUMP_OLD, BUMP_NEW)),
        )
    if name == "rollback":
        old, new = pointer(repo, f"{ROLLBACK}^"), pointer(repo, ROLLBACK)
        fix = nth_first_parent(sub, new, old, 30)
        return (
            f"{BUMP_1423}~10",
            f"{MIXED}^",
            f"in_sup {BUMP_1423} && ! in_sub {fix}",
            lambda s, m: contains(repo, BUMP_1423, s) and not contains(sub, fix, m),
            dict(commit=ROLLBACK, kind="mixed", sub=fix, role="dropped_fix", sub_range=(new, old)),
        )
    if name == "mixed_submodule":
        old, new = pointer(repo, f"{MIXED}^"), pointer(repo, MIXED)
        y = nth_first_parent(sub, pointer(repo, f"{ROLLBACK}^"), new, 5)  # not in any earlier pointer
        return (
            f"{ROLLBACK}~30",
            after_mixed,
            f"in_sub {y}",
            lambda s, m: contains(sub, y, m),
            dict(commit=MIXED, kind="mixed", sub=y, role="regression", sub_range=(old, new)),
        )
    if name == "mixed_source":
        return (
            f"{MIXED}~30",
            after_mixed,
            f"in_sup {MIXED}",
            lambda s, m: contains(repo, MIXED, s),
            dict(commit=MIXED, kind="mixed", outcome="source_part"),
        )
    raise ValueError(name)


PRELUDE = (
    'in_sup() { git -C "$PERFKIT_CHECKOUT" merge-base --is-ancestor "$1" HEAD; }; '
    'in_sub() { git -C "$PERFKIT_SUBMODULE" merge-base --is-ancestor "$1" HEAD; }; '
)


@pytest.mark.parametrize("name", ["bump", "rollback", "mixed_submodule", "mixed_source"])
def test_pypto_history(pypto_history, tmp_path, name):
    repo = pypto_history
    good, bad, predicate, truth, want = case(name, repo)
    env = tmp_path / "env"
    env.mkdir()
    run = PRELUDE + f"if {predicate}; then echo 'max_abs_err=0.2 FAIL'; else echo 'max_abs_err=0.0 PASS'; fi"
    before = snapshot(repo)
    start = perfkit(
        "bisect-start",
        str(repo),
        good,
        "--bad",
        bad,
        "--run",
        run,
        "--metric-pattern",
        r"max_abs_err=(\S+)",
        "--install",
        f'echo "$PWD" > {env}/super.path; echo x >> {env}/installs',
        "--install-submodule",
        f'echo "$PWD" > {env}/sub.path; echo x >> {env}/installs',
        "--json",
    )
    assert start.returncode == 0, start.stderr
    try:
        n1 = count(repo, good, bad)
        assert json.loads(start.stdout)["level1_commits"] == n1
        out = perfkit("bisect-run", str(repo), "--quiet", "--json")
        assert out.returncode == 0, out.stderr
        res = json.loads(out.stdout)
        assert res["done"] and res["culprit"]["commit"] == want["commit"], res["message"]
        assert res["culprit"]["kind"] == want["kind"]
        steps = res["steps"]
        for s in steps:  # every verdict is the planted predicate at that point
            assert s["verdict"] == ("bad" if truth(s["superproject"], s["submodule"]) else "good"), s
        l1 = sum(1 for s in steps if s["phase"] == "level1")
        # halving, plus the default's confirmation: the culprit and its parent run once more
        assert math.floor(math.log2(n1)) - 1 <= l1 <= math.ceil(math.log2(n1)) + CONFIRM, (l1, n1)
        if "sub" in want:
            sc = res["submodule_culprit"]
            assert sc["commit"] == want["sub"] and sc["role"] == want["role"] and sc["path"] == "runtime"
            n2 = count(repo / "runtime", *want["sub_range"])
            assert res["level2_commits"] == n2
            l2 = sum(1 for s in steps if s["phase"] in ("level2", "find_fix"))
            assert l2 <= math.ceil(math.log2(n2)) + CONFIRM, (l2, n2)
            if want["kind"] == "mixed":
                # the split point is confirmed (two agreeing runs) before level 2 starts
                assert [s["phase"] for s in steps if s["phase"].startswith("split")] == ["split_pointer"] * 2
        else:
            assert res["submodule_culprit"] is None
            assert res["outcome"] == want.get("outcome", "found")
        installs = len((env / "installs").read_text().splitlines())
        assert res["installs"] == installs - 2  # the last two put the environment back on the user's checkout
        assert res["installs_saved"] == 2 * len(steps) - res["installs"] > 0
        assert (env / "super.path").read_text().strip() == str(repo)
        assert (env / "sub.path").read_text().strip() == str(repo / "runtime")
        assert snapshot(repo) == before
    finally:
        perfkit("bisect-reset", str(repo))
    assert snapshot(repo) == before
