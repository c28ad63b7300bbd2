"""checkout_paths: perfkit's worktree holds only the folders a check reads (git's cone-mode sparse checkout).

Real repositories with a real submodule at a nested path. The check itself looks at what its
checkout holds at every step (the named folders, the top-level files and the submodule; nothing
else), so a worktree written whole, or missing a part it must have, turns the step into a skip and the
test fails on the answer. The patterns perfkit writes are compared with git's own, and the files a
worktree holds with the definition of a cone, on random trees.
"""

from __future__ import annotations

import posixpath
import subprocess
from pathlib import Path

import pytest
from helpers.gitbuild import Repo, run_git, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.bisect.command import sparse
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start

CHECK = r"""
test -f setup.cfg || { echo "MISSING setup.cfg"; exit 3; }
test -f third_party/rt/kernel.cpp || { echo "MISSING runtime"; exit 3; }
test -f src/sub/deep.txt || { echo "MISSING src/sub"; exit 3; }
test -f third_party/NOTICE || { echo "MISSING a parent's own file"; exit 3; }
for leak in docs/a0.txt tools/t.txt third_party/other/x.txt; do
  test -e "$leak" && { echo "LEAK $leak"; exit 3; }
done
# a command that plants a link where perfkit keeps its patterns: perfkit must replace it, never write through it
ln -sf "$VICTIM" "$(git rev-parse --path-format=absolute --git-path info/sparse-checkout)"
if grep -q BUG src/value.txt; then echo "max_abs_err=0.3 FAIL"; else echo "max_abs_err=0.001 PASS"; fi
"""


def project(tmp_path: Path, bug_at: int = 9, commits: int = 14) -> tuple[Repo, list[str]]:
    runtime = Repo(tmp_path / "rt-origin")
    runtime.commit("runtime", {"kernel.cpp": "// k\n"})
    sup = Repo(tmp_path / "compiler")
    files = {f"docs/a{i}.txt": f"doc {i}\n" for i in range(30)}
    files |= {"setup.cfg": "[metadata]\n", "src/value.txt": "0\n", "src/sub/deep.txt": "d\n"}
    files |= {"tools/t.txt": "t\n", "third_party/NOTICE": "n\n", "third_party/other/x.txt": "x\n"}
    shas = [sup.commit("initial", files)]
    sup.add_submodule(runtime, "third_party/rt")
    shas.append(sup.commit("add the runtime"))
    for i in range(2, commits):
        text = f"{i}{' BUG' if i >= bug_at else ''}\n"
        shas.append(sup.commit(f"change {i}", {"src/value.txt": text, f"docs/a{i}.txt": f"doc {i} v2\n"}))
    return sup, shas


@pytest.mark.parametrize("devices", [None, ["0", "1"]], ids=["one-worktree", "two-devices"])
def test_a_bisect_in_the_named_folders_finds_the_culprit_and_the_worktree_holds_only_them(tmp_path, devices):
    sup, shas = project(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's file\n")
    before = snapshot(sup.path)
    script = tmp_path / "check.sh"
    script.write_text(CHECK)
    run = f"VICTIM={victim} bash {script}"
    paths = ["./src/", "src/sub", "setup.cfg"]
    start = bisect_start(str(sup.path), shas[1], run=run, checkout_paths=paths, devices=devices, worker_env="none")
    # the file is the top's own (always there); src/sub is inside src; the submodule is added
    assert start.settings.checkout_paths == ["src", "third_party/rt"]
    assert any("holds only src, third_party/rt and the top-level files" in n for n in start.notes), start.notes
    res = bisect_run(str(sup.path))
    assert res.culprit is not None and res.culprit.commit == shas[9], res.message
    assert all(s.verdict != "skip" for s in res.steps), [s.reason for s in res.steps]
    assert victim.read_text() == "the user's file\n"
    bisect_reset(str(sup.path))
    assert snapshot(sup.path) == before
    assert run_git(sup.path, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_without_checkout_paths_the_worktree_follows_a_cone_sparse_checkout_of_yours(tmp_path):
    sup, shas = project(tmp_path, commits=6, bug_at=4)
    run_git(sup.path, "sparse-checkout", "set", "--cone", "src", "later/tool")  # a folder the range lacks
    before = snapshot(sup.path)
    check = "test -e docs/a0.txt && echo LEAK && exit 3; grep -q BUG src/value.txt && echo FAIL || echo PASS"
    start = bisect_start(str(sup.path), shas[1], run=check, submodule="")
    assert start.settings.checkout_paths == ["src"]
    assert start.settings.sources["checkout_paths"] == sparse.FROM_YOUR_CHECKOUT
    assert any("'later/tool' is not at good or at bad" in n for n in start.notes), start.notes
    res = bisect_run(str(sup.path))
    assert res.culprit is not None and res.culprit.commit == shas[4], res.message
    bisect_reset(str(sup.path))
    assert snapshot(sup.path) == before


def test_sparse_checkout_switched_on_in_your_config_without_patterns_of_ours_leaves_the_worktree_whole(tmp_path):
    sup, shas = project(tmp_path, commits=6, bug_at=4)
    run_git(sup.path, "config", "core.sparseCheckout", "true")  # non-cone: patterns perfkit does not read
    check = "test -e docs/a0.txt || { echo MISSING; exit 3; }; grep -q BUG src/value.txt && echo FAIL || echo PASS"
    start = bisect_start(str(sup.path), shas[1], run=check, submodule="")
    assert start.settings.checkout_paths is None
    assert any("non-cone patterns" in n for n in start.notes), start.notes
    res = bisect_run(str(sup.path))
    assert res.culprit is not None and res.culprit.commit == shas[4], res.message
    bisect_reset(str(sup.path))


# Random trees and random folder choices: perfkit's patterns are the ones git writes for the same
# folders, and a checkout with them holds exactly the cone: the top-level files, every file of a
# named folder, and the files directly inside each folder above one.
NAMES = st.sampled_from(["a", "b", "lib", "src", "x y", "deep", "a*b", "q[1]", "back\\slash?"])
TREE_PATHS = st.lists(st.lists(NAMES, min_size=1, max_size=4).map("/".join), min_size=1, max_size=12, unique=True)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("cones")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(dirs=TREE_PATHS, pick=st.data())
def test_the_patterns_are_gits_own_and_the_checkout_holds_exactly_the_cone(scratch, dirs, pick):
    files = sorted({f"{d}/f.txt" for d in dirs} | {"top.txt"})
    chosen = pick.draw(st.lists(st.sampled_from(dirs), min_size=1, max_size=3, unique=True))
    folders = [d for d in sorted(set(chosen)) if not any(d.startswith(o + "/") for o in chosen if o != d)]
    repo = scratch / f"r{abs(hash((tuple(dirs), tuple(chosen))))}"
    if repo.exists():
        return
    r = Repo(repo)
    r.commit("tree", {f: f"{f}\n" for f in files})
    ours = sparse.patterns(folders)

    theirs_repo = scratch / f"{repo.name}-git"
    run_git(scratch, "clone", "-q", "--no-checkout", str(repo), str(theirs_repo))
    run_git(theirs_repo, "sparse-checkout", "set", "--cone", "--skip-checks", *folders)  # names with *?[\\ too
    assert (theirs_repo / ".git" / "info" / "sparse-checkout").read_text() == ours

    wt = scratch / f"{repo.name}-wt"
    run_git(repo, "worktree", "add", "-q", "--detach", "--no-checkout", str(wt), "HEAD")
    admin = Path(run_git(wt, "rev-parse", "--absolute-git-dir"))
    (admin / "info").mkdir(exist_ok=True)
    (admin / "info" / "sparse-checkout").write_text(ours)
    subprocess.run(
        ["git", "-C", str(wt), *sparse.git_flags(folders), "checkout", "-q", "--force", "--detach", "HEAD"],
        check=True,
        capture_output=True,
    )
    held = sorted(str(p.relative_to(wt)) for p in wt.rglob("*") if p.is_file() and p.name != ".git")
    parents = {a for f in folders for a in _above(f)}
    expected = sorted(
        f
        for f in files
        if "/" not in f or any(f.startswith(d + "/") for d in folders) or posixpath.dirname(f) in parents
    )
    assert held == expected, (folders, ours)


def _above(path: str) -> list[str]:
    out = []
    while "/" in path:
        path = posixpath.dirname(path)
        out.append(path)
    return out
