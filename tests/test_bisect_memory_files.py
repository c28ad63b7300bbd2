"""Verdict memory keys on the content of the files the commands name, not only on their text.

A user fixes the check script in place (`bash ~/checks/precision.sh` reads the same before and
after) and bisects again: the old verdicts belong to the old script and must not answer. Each case
edits one file a command names, in one of the ways commands name files (an absolute path, a
`VAR=/path` assignment, an `--opt=/path` option, a path relative to an absolute run_cwd), and
checks that the next bisect runs its points again; with nothing changed it reuses them and says so,
with how to forget them, even when the commands also write files by redirection (outputs, which
change at every run, are not inputs). A memory file planted or edited by hand is ignored.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.bisect_project import Project, build
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start

PLAN = [("src", "")] * 3 + [("src", "BUG", "bug")] + [("src", "BUG")] * 2


def runs(p: Project) -> int:
    return len(p.lines("runs.log"))


def shapes(p: Project) -> dict[str, tuple[dict[str, object], Path]]:
    """How a command names the check script: start arguments, and the file to edit."""
    script = p.env / "check.sh"
    conf = p.env / "tolerance.conf"
    conf.write_text("atol=1e-3\n")
    reader = f'grep -q atol "$TOL" && BISECT_ENV={p.env} bash {script}'
    return {
        "absolute": ({"run": p.run_cmd()}, script),
        "assignment": ({"run": f"TOL={conf} sh -c '{reader}'"}, conf),
        "option": ({"run": f"{p.run_cmd()} --config={conf}"}, conf),
        "relative-to-run-cwd": ({"run": f"BISECT_ENV={p.env} bash check.sh", "run_cwd": str(p.env)}, script),
        "install": ({"run": p.run_cmd(), "install": [f"cat {conf} > /dev/null"]}, conf),
        "beside-outputs": (
            {"run": p.run_cmd() + f" 2>> {p.env}/out.log", "install": [f"echo $PWD > {p.env}/built.txt"]},
            script,
        ),
    }


@pytest.mark.parametrize(
    "shape", ["absolute", "assignment", "option", "relative-to-run-cwd", "install", "beside-outputs"]
)
def test_an_edited_file_a_command_names_reuses_no_verdict(tmp_path, shape):
    p = build(tmp_path, [""] * 2, PLAN)
    args, named = shapes(p)[shape]
    bisect_start(p.path, p.c["add"], **args)  # type: ignore[arg-type]
    first = bisect_run(p.path)
    assert first.culprit is not None and first.culprit.commit == p.c["bug"]
    assert not any(s.remembered for s in first.steps)
    ran = runs(p)

    bisect_start(p.path, p.c["add"], **args)  # type: ignore[arg-type]
    again = bisect_run(p.path)
    first_asks: dict[tuple[str, str | None], object] = {}
    for s in again.steps:
        first_asks.setdefault((s.superproject, s.submodule), s)
    # every point is answered from memory the first time; only deliberate repeats (the confirmation) run
    assert all(s.remembered for s in first_asks.values()), again.steps  # type: ignore[attr-defined]
    assert runs(p) - ran == sum(s.ran for s in again.steps) < len(again.steps)
    reused = sum(s.remembered for s in again.steps)
    note = next(n for n in again.notes if "verdict memory" in n)
    assert "bisect_reset forgets" in note and f"{reused} verdict(s)" in note, note
    if shape != "install":
        assert str(named) in note, note
    if shape == "beside-outputs":  # files the commands write (redirections) are outputs, not inputs
        assert "out.log" not in note and "built.txt" not in note, note

    named.write_text(named.read_text() + "\n# tightened after review\n")  # same text of the command
    bisect_start(p.path, p.c["add"], **args)  # type: ignore[arg-type]
    edited = bisect_run(p.path)
    assert not any(s.remembered for s in edited.steps), edited.steps
    assert runs(p) == ran + sum(s.ran for s in again.steps) + len(edited.steps)
    assert not any("verdict memory" in n for n in edited.notes)
    bisect_reset(p.path)


def test_a_memory_file_edited_by_hand_is_ignored(tmp_path):
    """Verdicts flipped in the memory file would name a wrong culprit: the file is not sealed any more,
    so it is not read and every point runs."""
    p = build(tmp_path, [""] * 2, PLAN)
    bisect_start(p.path, p.c["add"], run=p.run_cmd())
    bisect_run(p.path)
    ran = runs(p)
    memory = next((statefile.state_dir(p.sup.path) / "memory").iterdir())
    sealed = json.loads(memory.read_text())
    known = json.loads(sealed["known"])
    for v in known.values():
        v["verdict"] = {"good": "bad", "bad": "good"}.get(v["verdict"], v["verdict"])
    sealed["known"] = json.dumps(known)
    memory.write_text(json.dumps(sealed))
    bisect_start(p.path, p.c["add"], run=p.run_cmd())
    out = bisect_run(p.path)
    assert out.culprit is not None and out.culprit.commit == p.c["bug"]
    assert not any(s.remembered for s in out.steps) and runs(p) > ran
    bisect_reset(p.path)
