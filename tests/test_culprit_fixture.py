"""evaluate_culprit on the real pypto history: the bump, mismatch, rollback, mixed and add commits
the fixture's README lists, and the count of pointer-moving commits, each checked against git."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import pypto_fixture
from helpers.gitbuild import run_git
from perfkit.culprit.evaluate import evaluate_culprit
from perfkit.errors import InputError

pytestmark = pytest.mark.fixture

BUMP, MISMATCH = "3846b209a617ad68a1acc1bc973418196eb37cd4", "c1e42663b2945aec535402dff07e9b01dd8166c1"
ROLLBACK, MIXED = "1bba14e5f91aadc9c324aa76dbedece1ecc4b305", "f80ca3ec2890047c6104626d32b674a584a44097"
ADDS = "9ac2b906691bf082e8da34c6053a00f54df0a0a3"


@pytest.fixture(scope="module")
def shamap() -> dict[tuple[str, str], str]:
    """(repo, original sha) -> skeleton sha, from the fixture's map.tsv."""
    rows = (pypto_fixture() / "map.tsv").read_text().splitlines()[1:]
    return {(r, o): s for r, o, s in (row.split("\t") for row in rows)}


def skeleton(shamap, repo: str, prefix: str) -> str:
    hits = [s for (r, o), s in shamap.items() if r == repo and o.startswith(prefix)]
    assert len(hits) == 1, (repo, prefix, hits)
    return hits[0]


@pytest.fixture(scope="module")
def pypto(pypto_history: Path, tmp_path_factory) -> Path:
    """A private copy (objects shared, nothing copied) so tests may add commits without touching the shared one."""
    base = tmp_path_factory.mktemp("pypto-copy")
    run_git(base, "clone", "-q", "--shared", "--no-checkout", str(pypto_history), "pypto")
    run_git(
        base,
        "clone",
        "-q",
        "--bare",
        "--shared",
        str(pypto_history.parent / "simpler.git"),
        str(base / "pypto" / ".git" / "modules" / "simpler"),
    )
    return base / "pypto"


def simpler(pypto: Path) -> Path:
    return pypto / ".git" / "modules" / "simpler"


def pointer(repo: Path, commit: str) -> str | None:
    out = run_git(repo, "ls-tree", commit, "runtime").split()
    return out[2] if out else None


def test_forward_bump(pypto, shamap):
    res = evaluate_culprit(str(pypto), BUMP)
    old, new = skeleton(shamap, "simpler", "a9f3ea951b"), skeleton(shamap, "simpler", "bb7965fb67")
    assert res.kind == "submodule_bump" and not res.source_changed and res.pr_number == 1112
    assert (res.submodule.old, res.submodule.new, res.submodule.direction) == (old, new, "forward")
    assert res.submodule.commits_between == int(run_git(simpler(pypto), "rev-list", "--count", f"{old}..{new}"))
    assert res.next_action.kind == "bisect_submodule" and res.next_action.range == f"{old}..{new}"
    assert [f.path for f in res.files] == ["runtime"] and res.stat.startswith("1 file changed")


def test_rollback_drops_34_commits(pypto, shamap):
    """A feature PR built on a stale branch: 32 files of source, and the runtime pointer 34 commits back."""
    res = evaluate_culprit(str(pypto), ROLLBACK, submodule="runtime")
    assert res.submodule.direction == "backward"
    old, new = res.submodule.old, res.submodule.new
    assert old == pointer(pypto, f"{ROLLBACK}^") and new == pointer(pypto, ROLLBACK)
    assert res.submodule.commits_between == 34 == int(run_git(simpler(pypto), "rev-list", "--count", f"{new}..{old}"))
    assert res.kind == "mixed" and res.source_changed and len(res.files) == 32
    act = res.next_action
    assert act.kind == "split_test" and act.range == f"{new}..{old}" and act.commits == 34
    assert act.superproject_commit == run_git(pypto, "rev-parse", f"{ROLLBACK}^")
    assert "find-fix search" in act.sentence and "dropping 34 commits" in act.sentence


def test_mixed(pypto, shamap):
    res = evaluate_culprit(str(pypto), MIXED)
    assert res.kind == "mixed" and res.submodule.new == skeleton(shamap, "simpler", "324df3d6")
    assert {f.path for f in res.files} == {
        "runtime",
        "python/pypto/runtime/distributed_runner.py",
        "src/codegen/tensor_op_codegen.cpp",
        "tests/ut/codegen/test_orchestration_codegen.py",
    }
    act = res.next_action
    parent = run_git(pypto, "rev-parse", f"{MIXED}^")
    assert act.kind == "split_test" and act.superproject_commit == parent
    assert act.commits == int(run_git(simpler(pypto), "rev-list", "--count", f"{act.old}..{act.new}"))


def test_commit_adding_the_submodule(pypto, shamap):
    res = evaluate_culprit(str(pypto), ADDS, submodule="runtime")
    assert res.kind == "submodule_added" and res.submodule.old is None
    assert res.submodule.new == pointer(pypto, ADDS)
    with pytest.raises(InputError, match="^submodule: 'runtime' is not a submodule at"):
        evaluate_culprit(str(pypto), f"{ADDS}^", submodule="runtime")


def test_mismatch_as_stored(pypto, shamap):
    """The skeleton keeps the original message, whose f20a8393 exists nowhere locally."""
    res = evaluate_culprit(str(pypto), MISMATCH)
    assert res.kind == "submodule_bump" and res.submodule.new == skeleton(shamap, "simpler", "1bd071216f")
    assert any("f20a8393" in w for w in res.warnings), res.warnings


def _translate(message: str, shamap) -> str:
    """Replace every original sha the message names by the skeleton sha map.tsv gives for it."""
    import re

    originals = {}
    for (_, o), s in shamap.items():
        originals.setdefault(o[:7], []).append((o, s))

    def sub(m: re.Match) -> str:
        h = m.group()
        hits = [(o, s) for o, s in originals.get(h[:7], []) if o.startswith(h)]
        return hits[0][1][: max(len(h), 8)] if len(hits) == 1 else h

    return re.sub(r"(?<![0-9A-Za-z])[0-9a-f]{7,40}(?![0-9A-Za-z])", sub, message)


def _recommit(pypto: Path, commit: str, message: str) -> str:
    parent = run_git(pypto, "rev-parse", f"{commit}^")
    tree = run_git(pypto, "rev-parse", f"{commit}^{{tree}}")
    msg = pypto.parent / "msg.txt"
    msg.write_text(message)
    return run_git(pypto, "commit-tree", tree, "-p", parent, "-F", str(msg))


def test_mismatch_translated(pypto, shamap):
    """With the message's shas translated, the mismatch is a real submodule commit the pointer does not hold."""
    message = run_git(pypto, "log", "-1", "--format=%B", MISMATCH)
    sha = _recommit(pypto, MISMATCH, _translate(message, shamap))
    res = evaluate_culprit(str(pypto), sha)
    said, old = skeleton(shamap, "simpler", "f20a8393"), skeleton(shamap, "simpler", "e03faff5")
    rel = {m.id: m for m in res.submodule.mentions}
    assert rel[said[:8]].relation == "outside_range" and rel[said[:8]].warns
    assert rel[old[:8]].relation == "old_pointer" and not rel[old[:8]].warns
    assert res.warnings == [f"the message names {said[:8]} but the pointer holds {res.submodule.new[:12]}"]


def test_pointer_moving_commits(pypto, shamap):
    """34 commits move runtime: 5 pointer only, 29 with source, 2 backwards; only one message contradicts."""
    log = run_git(pypto, "log", "--format=@%H", "--raw", "--no-abbrev", "--no-renames", "HEAD")
    commits: dict[str, list[tuple[str, str, str, str]]] = {}
    for line in log.splitlines():
        if line.startswith("@"):
            cur = commits.setdefault(line[1:], [])
        elif line.startswith(":"):
            meta, path = line[1:].split("\t", 1)
            om, nm, oo, no, _ = meta.split()
            cur.append((path, om, oo, no))
    moving = {c: ch for c, ch in commits.items() if any(p == "runtime" for p, *_ in ch)}
    only = [c for c, ch in moving.items() if len(ch) == 1]
    backwards = []
    for c, ch in moving.items():
        _, om, oo, no = next(x for x in ch if x[0] == "runtime")
        if om == "160000" and _is_ancestor(simpler(pypto), no, oo):
            backwards.append(c)
    assert (len(moving), len(only), len(moving) - len(only), len(backwards)) == (34, 5, 29, 2)
    assert ROLLBACK in backwards and BUMP in only and MISMATCH in only and MIXED in moving and ADDS in moving

    kinds, warned = {}, []
    for c in moving:  # each evaluated as a copy whose message names skeleton shas (same tree, same parent)
        message = run_git(pypto, "log", "-1", "--format=%B", c)
        res = evaluate_culprit(str(pypto), _recommit(pypto, c, _translate(message, shamap)), submodule="runtime")
        kinds[c] = (res.kind, res.submodule.direction)
        if any("the message names" in w for w in res.warnings):
            warned.append(c)
    assert sorted(c for c, (k, _) in kinds.items() if k == "submodule_bump") == sorted(only)
    assert sorted(c for c, (_, d) in kinds.items() if d == "backward") == sorted(backwards)
    assert [c for c, (k, _) in kinds.items() if k == "submodule_added"] == [ADDS]
    assert sum(k == "mixed" for k, _ in kinds.values()) == 34 - 5 - 1  # both rollbacks also change source
    assert warned == [MISMATCH]  # the old pointer, range commits, pto-isa pins and e-mails never warn


def _is_ancestor(repo: Path, a: str, b: str) -> bool:
    import subprocess

    return subprocess.run(["git", "-C", str(repo), "merge-base", "--is-ancestor", a, b]).returncode == 0


def test_shallow_runtime_never_counts(pypto, shamap, tmp_path):
    """A shallow submodule clone holding both pointers of the bump but not the commits between."""
    src = tmp_path / "simpler-src.git"
    run_git(tmp_path, "clone", "-q", "--bare", "--shared", str(simpler(pypto)), str(src))
    run_git(src, "config", "uploadpack.allowAnySHA1InWant", "true")
    copy = tmp_path / "pypto"
    run_git(tmp_path, "clone", "-q", "--shared", "--no-checkout", str(pypto), str(copy))
    mod = copy / ".git" / "modules" / "simpler"
    run_git(tmp_path, "init", "-q", "--bare", str(mod))
    old, new = pointer(pypto, f"{BUMP}^"), pointer(pypto, BUMP)
    run_git(mod, "fetch", "-q", "--depth", "1", f"file://{src}", old, new)
    res = evaluate_culprit(str(copy), BUMP)
    assert res.kind == "submodule_unresolved" and res.submodule.commits_between is None
    assert not res.submodule.history_complete and "--unshallow" in res.submodule.fetch_hint


def test_level_two_culprit_in_the_runtime_checkout(pypto_history, shamap):
    """The bisect engine evaluates a runtime culprit on the submodule checkout: a plain source commit."""
    sha = skeleton(shamap, "simpler", "bb7965fb67")
    res = evaluate_culprit(str(pypto_history / "runtime"), sha)
    assert res.kind == "source" and res.pr_number == 610 and res.submodule is None
    assert res.next_action.kind == "read_highlights"
    assert {f.path for f in res.files} == set(
        run_git(pypto_history / "runtime", "diff-tree", "--no-commit-id", "--name-only", "-r", sha).split("\n")
    )
