"""evaluate_culprit on real repositories with a real submodule."""

from __future__ import annotations

import pytest

from perfkit.culprit.evaluate import evaluate_culprit
from perfkit.errors import InputError


def test_kinds(superproject):
    sup, runtime, s = superproject
    src = evaluate_culprit(str(sup.path), s["src"])
    assert src.kind == "source" and src.submodule is None and src.pr_number == 11
    assert [f.path for f in src.files] == ["src/codegen.py"]

    bump = evaluate_culprit(str(sup.path), s["bump"], submodule="runtime")
    assert bump.kind == "submodule_bump"
    assert (bump.submodule.old, bump.submodule.new) == (s["r1"], s["r4"])
    assert bump.submodule.direction == "forward" and bump.submodule.commits_between == 3
    assert bump.submodule.name == "simpler"
    assert bump.warnings == []  # the message names the pointer it holds

    rb = evaluate_culprit(str(sup.path), s["rollback"])
    assert rb.kind == "submodule_rollback"
    assert rb.submodule.direction == "backward" and rb.submodule.commits_between == 2

    mixed = evaluate_culprit(str(sup.path), s["mixed"])
    assert mixed.kind == "mixed" and mixed.submodule.commits_between == 3
    assert {f.path for f in mixed.files} == {"runtime", "src/codegen.py"}

    added = evaluate_culprit(str(sup.path), s["add"])
    assert added.submodule.direction == "added" and added.submodule.old is None


def test_message_names_another_submodule_commit(superproject):
    sup, runtime, s = superproject
    sup.set_submodule("runtime", s["r3"])
    sha = sup.commit(f"chore(runtime): bump simpler to {s['r4'][:10]}")
    res = evaluate_culprit(str(sup.path), sha)
    assert any(s["r4"][:10] in w and s["r3"][:12] in w for w in res.warnings), res.warnings


def test_bad_input(superproject, tmp_path):
    sup, _, s = superproject
    with pytest.raises(InputError, match="^repo: .* does not exist"):
        evaluate_culprit(str(tmp_path / "nope"), "HEAD")
    (tmp_path / "plain").mkdir()
    with pytest.raises(InputError, match="^repo: .* not a git repository"):
        evaluate_culprit(str(tmp_path / "plain"), "HEAD")
    with pytest.raises(InputError, match="^commit: 'deadbeef1234' is not a commit"):
        evaluate_culprit(str(sup.path), "deadbeef1234")
    with pytest.raises(InputError, match="^commit: .* not a single revision"):
        evaluate_culprit(str(sup.path), "--output=/tmp/x")
    with pytest.raises(InputError, match="^submodule: 'lib' is not a submodule"):
        evaluate_culprit(str(sup.path), s["bump"], submodule="lib")
