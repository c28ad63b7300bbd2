"""What evaluate_culprit says around the diff: a merge through the commits it brings in, counts that say
what they count, whose pull request a number is, and a submodule called by its own name."""

from __future__ import annotations

import json

import anyio
from helpers.bisect_project import build
from helpers.gitbuild import Repo, run_git
from helpers.procs import perfkit
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start
from perfkit.culprit.evaluate import evaluate_culprit
from test_culprit_numeric import HYPOT, PLANTED

HYPOT_AFTER = PLANTED[0][3]
DOCTEST = "Examples::\n\n    >>> mp.nprint(R, 3)\n    [2.0  0.417  -2.53]\n"


def _merge_history(tmp_path) -> tuple[Repo, dict[str, str]]:
    """main, and a branch of two commits (the precision change, then a doc update) merged with --no-ff."""
    r = Repo(tmp_path / "lib")
    c = {"base": r.commit("base", {"lib/hypot.py": HYPOT, "docs/matrices.rst": DOCTEST})}
    r.git("checkout", "-q", "-b", "fix")
    c["fix"] = r.commit("Add extra precision for summation in hypot()", {"lib/hypot.py": HYPOT_AFTER})
    c["docs"] = r.commit("Adapt doctests", {"docs/matrices.rst": DOCTEST.replace("-2.53", "2.53")})
    r.git("checkout", "-q", "main")
    c["other"] = r.commit("ci: cache pip", {".github/ci.yml": "cache: pip\n"})
    r.git("merge", "-q", "--no-ff", "-m", "Merge pull request #1088 from dev/fix-hypot", "fix")
    c["merge"] = r.head()
    return r, c


def test_a_merge_culprit_is_explained_through_the_commits_it_merges(tmp_path):
    r, c = _merge_history(tmp_path)
    res = evaluate_culprit(str(r.path), c["merge"])
    assert res.merged_total == 2 == int(run_git(r.path, "rev-list", "--count", f"{c['merge']}^2", f"^{c['merge']}^1"))
    assert [m.commit for m in res.merged] == [c["fix"], c["docs"]]  # oldest first
    fix, docs = res.merged
    assert [(h.file, h.kind) for h in fix.highlights] == [("lib/hypot.py", "working precision")]
    assert fix.highlights[0].line == next(i for i, ln in enumerate(HYPOT_AFTER.splitlines(), 1) if "prec+10" in ln)
    assert docs.highlights == [] and docs.highlights_total == 0  # the doctest output changed, not a number rule
    assert res.pr_number == 1088
    # the merge's own diff against its first parent holds the same line
    assert [h.file for h in res.highlights] == ["lib/hypot.py"]
    text = res.human()
    merges = text[text.index("merges  2 commits") :]
    assert c["fix"][:12] in merges and "Add extra precision" in merges and "working precision: prec+4" in merges
    assert c["docs"][:12] in merges and "Adapt doctests" in merges and "no hunk matched" in merges
    assert "is a merge of 2 commits" in res.next_action.sentence


def test_a_merge_culprit_through_the_cli_and_mcp(tmp_path):
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    r, c = _merge_history(tmp_path)
    core = evaluate_culprit(str(r.path), c["merge"])
    text = perfkit("evaluate-culprit", str(r.path), c["merge"])
    assert text.returncode == 0, text.stderr
    assert text.stdout.strip() == core.human().strip()
    assert "Add extra precision for summation" in text.stdout and "Adapt doctests" in text.stdout
    as_json = perfkit("evaluate-culprit", str(r.path), c["merge"], "--json")

    async def go():
        async with Client(build_server(), mode="legacy") as client:
            return await client.call_tool("evaluate_culprit", {"repo": str(r.path), "commit": c["merge"]})

    over_mcp = anyio.run(go)
    assert not over_mcp.is_error
    assert over_mcp.structured_content == json.loads(as_json.stdout) == core.model_dump(mode="json")
    assert over_mcp.structured_content["merged"][0]["highlights"][0]["kind"] == "working precision"


def _submodule_with_a_merge(tmp_path, path: str = "runtime", name: str = "simpler"):
    """A submodule whose bumped range holds a merged side branch: 4 commits in all, 2 first-parent."""
    sub = Repo(tmp_path / f"{name}-origin")
    s = {"r0": sub.commit("r0", {"k.c": "0\n"})}
    sub.git("checkout", "-q", "-b", "side")
    s["s1"] = sub.commit("side 1", {"a.c": "1\n"})
    s["s2"] = sub.commit("fix summation (#1098)", {"a.c": "2\n"})
    sub.git("checkout", "-q", "main")
    sub.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    s["m"] = sub.head()
    s["r3"] = sub.commit("r3", {"k.c": "3\n"})
    sup = Repo(tmp_path / "top")
    sup.commit("initial", {"src/main.py": "x = 1\n"})
    sup.add_submodule(sub, path, name=name)
    sup.set_submodule(path, s["r0"])
    s["add"] = sup.commit(f"add {name}")
    return sup, sub, s


def test_counts_say_all_commits_and_first_parent_commits(tmp_path):
    sup, sub, s = _submodule_with_a_merge(tmp_path)
    sup.set_submodule("runtime", s["r3"])
    bump = sup.commit("chore: bump simpler")
    res = evaluate_culprit(str(sup.path), bump)
    rng = f"{s['r0']}..{s['r3']}"
    everything = int(run_git(sub.path, "rev-list", "--count", rng))
    first_parent = int(run_git(sub.path, "rev-list", "--count", "--first-parent", rng))
    assert (everything, first_parent) == (4, 2)
    assert (res.submodule.commits_between, res.submodule.first_parent_commits) == (4, 2)
    act = res.next_action
    assert (act.commits, act.first_parent_commits) == (4, 2)
    assert "4 commits in all, 2 first-parent" in act.sentence and "about 2 steps" in act.sentence
    assert "(4 commits in all, 2 first-parent)" in res.human()


def test_the_bisect_labels_a_bump_in_first_parent_commits(tmp_path):
    kernel = [""] * 6 + ["BROKEN"] * 5
    plan = [("src", "")] * 2 + [("ptr", 2)] + [("src", "")] * 2 + [("ptr", 9, "bump")] + [("src", "")] * 2
    p = build(tmp_path, kernel, plan)
    bisect_start(p.path, p.c["add"], run=p.run_cmd(), install=p.installs(), install_submodule=p.installs_sub())
    res = bisect_run(p.path)
    bisect_reset(p.path)
    assert res.culprit.commit == p.c["bump"]
    moved = int(run_git(p.runtime.path, "rev-list", "--count", "--first-parent", f"{p.r[2]}..{p.r[9]}"))
    assert f"({moved} first-parent commits)" in res.message, res.message
    report = evaluate_culprit(p.path, p.c["bump"])
    assert report.submodule.first_parent_commits == moved  # the same count, under the same label


def test_a_pr_number_belongs_to_the_repository_whose_message_holds_it(tmp_path):
    sup, sub, s = _submodule_with_a_merge(tmp_path)
    sup.set_submodule("runtime", s["r3"])
    bump = sup.commit("chore(runtime): bump simpler (#12)\n\nBrings in:\n- fix summation (#1098)\n- r3\n")
    res = evaluate_culprit(str(sup.path), bump)
    assert res.pr_number == 12  # the superproject's own, from its subject
    assert [(m.number, m.repository, m.where) for m in res.pr_mentions] == [
        (12, ".", "subject"),
        (1098, "runtime", "message"),
    ]
    text = res.human()
    assert "PR      #12\n" in text and "PR      #1098 of 'runtime': named in the message" in text

    sup.set_submodule("runtime", s["r0"])
    back = sup.commit("revert runtime\n\nDrops fix summation (#1098).")
    res = evaluate_culprit(str(sup.path), back)  # a rollback: the dropped range holds it
    assert res.pr_number is None and [(m.number, m.repository) for m in res.pr_mentions] == [(1098, "runtime")]

    # a clone whose submodule is not initialised cannot tell: the number is not claimed
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(sup.path), str(clone))
    res = evaluate_culprit(str(clone), bump)
    assert res.pr_number == 12 and [(m.number, m.repository) for m in res.pr_mentions] == [
        (12, "."),
        (1098, "unknown"),
    ]
    # a plain commit's body PR is its own
    plain = sup.commit("tidy\n\nFollow-up to PR #40", {"src/main.py": "x = 2\n"})
    assert evaluate_culprit(str(sup.path), plain).pr_number == 40


def test_the_submodule_is_called_by_its_own_name(tmp_path):
    sup, sub, s = _submodule_with_a_merge(tmp_path, path="third_party/mathlib", name="mathlib")
    sup.set_submodule("third_party/mathlib", s["r3"])
    bump = sup.commit("bump mathlib")
    sup.set_submodule("third_party/mathlib", s["m"])
    back = sup.commit("roll mathlib back")
    sup.set_submodule("third_party/mathlib", s["r3"])
    mixed = sup.commit("bump mathlib and adapt", {"src/main.py": "x = 3\n"})
    for sha in (s["add"], bump, back, mixed):
        res = evaluate_culprit(str(sup.path), sha)
        words = res.human() + res.next_action.sentence
        assert "third_party/mathlib" in words and "runtime" not in words, words
