"""A step whose commands change the user's checkout stops the bisect with the evidence.

perfkit never writes the user's checkout, but the install and run commands are the user's and run
with the user's rights: a check script that commits, drops a stash, stages a file or moves the
submodule is real (a script written for the user's own checkout, run as is). Each case runs a real
bisect whose run command does one such thing once, at step 2, in the user's checkout; the bisect
must stop there naming what changed, keep the steps, restore the environment, remove the worktree,
and resume to the right culprit once the command behaves. Commands that only read the checkout
(`git status`, `git log`) and the user's own ordinary edits never stop it.
"""

from __future__ import annotations

import anyio
import pytest
from helpers.bisect_project import Project, build, covers
from helpers.gitbuild import run_git
from helpers.procs import perfkit
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_status
from perfkit.errors import ToolFailure

PLAN = [("src", "")] * 3 + [("src", "BUG", "bug")] + [("src", "BUG")] * 2
GIT = "git -c user.name=Script -c user.email=script@example.com"


def once(p: Project, action: str) -> str:
    """The run command: `action` in the user's checkout at step 2, the first time only, then the check."""
    flag = p.env / "acted"
    return (
        f'if [ "$PERFKIT_STEP" = 2 ] && [ ! -e {flag} ]; then touch {flag}; ( cd {p.path} && {action} ) '
        f">/dev/null 2>&1; fi; {p.run_cmd()}"
    )


def second_stash(p: Project) -> None:
    p.sup.write("later.txt", "second stash\n")
    run_git(p.sup.path, "add", "later.txt")
    run_git(p.sup.path, "-c", "user.name=U", "-c", "user.email=u@example.com", "stash", "push", "-q", "--", "later.txt")


CASES = {
    "commit": (f"{GIT} commit -q --allow-empty -m 'wip from the check'", "HEAD moved"),
    "commit-staged": (f"{GIT} commit -q -m 'commits the staged edit'", "HEAD moved"),
    "detach": ("git checkout -q --detach", "HEAD moved"),
    "new-branch": ("git branch scratch-from-check", "refs/heads/scratch-from-check"),
    "new-tag": ("git tag v-check", "refs/tags/v-check"),
    "stash-drop": ("git stash drop -q", "the stash changed"),
    "stash-drop-deeper": ("git stash drop -q stash@{1}", "the stash changed"),
    "stash-push": (f"{GIT} stash push -q", "the stash changed"),
    "stage-untracked": ("git add scratch.txt", "the index changed: scratch.txt"),
    "restage-staged": ("echo more >> README.md && git add README.md", "the index changed: README.md"),
    "unstage": ("git reset -q README.md", "the index changed: README.md"),
    "submodule-head": ("git -C runtime checkout -q --detach HEAD~1", "the HEAD of submodule runtime moved"),
    "submodule-stash": (
        f"echo more >> runtime/kernel.cpp && {GIT} -C runtime stash push -q",
        "the stash of submodule runtime changed",
    ),
    "submodule-stash-drop": ("git -C runtime stash drop -q", "the stash of submodule runtime changed"),
    "submodule-branch": ("git -C runtime branch from-the-check", "refs/heads/from-the-check of submodule runtime"),
    "submodule-tag-moved": ("git -C runtime tag -f mine HEAD", "refs/tags/mine of submodule runtime"),
}
# what a change in the submodule must never be reported as: the superproject's index did not change
NOT_SAID = {"submodule-stash": "the index changed", "submodule-stash-drop": "the index changed"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_step_that_changes_the_users_checkout_stops_the_bisect_with_the_evidence(tmp_path, case):
    action, evidence = CASES[case]
    p = build(tmp_path, ["", ""], PLAN)
    if case == "stash-drop-deeper":
        second_stash(p)
    if case == "submodule-head":
        run_git(p.sup.path / "runtime", "checkout", "-q", "--detach", p.r[1])
        run_git(p.sup.path / "runtime", "fetch", "-q", "origin")
    if case == "submodule-stash-drop":  # the user's submodule holds a stash of their own
        (p.sup.path / "runtime" / "kernel.cpp").write_text("// my work\n")
        run_git(p.sup.path / "runtime", "stash", "push", "-q")
    if case == "submodule-tag-moved":
        run_git(p.sup.path / "runtime", "fetch", "-q", "origin")
        run_git(p.sup.path / "runtime", "tag", "mine", p.r[1])
    bisect_start(p.path, p.c["add"], run=once(p, action), install=p.installs(), install_submodule=p.installs_sub())
    with pytest.raises(ToolFailure) as stop:
        bisect_run(p.path)
    message = str(stop.value)
    assert "changed while step 2 ran" in message and evidence in message, message
    assert case not in NOT_SAID or NOT_SAID[case] not in message, message
    status = bisect_status(p.path)
    assert [s.n for s in status.steps] == [1, 2] and not status.done, status.message
    assert evidence in " ".join(status.steps[1].checkout_changed), status.steps[1]
    assert status.steps[0].checkout_changed == []
    assert any(evidence in n for n in status.notes), status.notes
    assert status.worktree is None and status.environment == "user"
    assert (p.env / "super.path").read_text().strip() == p.path  # the environment points back at the checkout
    out = bisect_run(p.path)  # the command acts only once: the resume goes to the end
    assert out.culprit is not None and out.culprit.commit == p.c["bug"], out.message
    bisect_reset(p.path)


def test_the_stop_is_one_line_on_the_cli_and_an_error_over_mcp(tmp_path):
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    p = build(tmp_path, ["", ""], PLAN)
    bisect_start(p.path, p.c["add"], run=once(p, f"{GIT} commit -q --allow-empty -m x"))
    cli = perfkit("bisect-run", p.path, "--quiet")
    assert cli.returncode == 1 and "HEAD moved" in cli.stderr, cli.stderr
    assert len(cli.stderr.strip().splitlines()) == 1 and "Traceback" not in cli.stderr
    bisect_reset(p.path)
    (p.env / "acted").unlink()
    run_git(p.sup.path, "reset", "-q", "--soft", "HEAD~1")
    bisect_start(p.path, p.c["add"], run=once(p, "git stash drop -q"))

    async def go() -> tuple[bool, str]:
        async with Client(build_server(), mode="legacy") as c:
            r = await c.call_tool("bisect_run", {"repo": p.path})
            return r.is_error, r.content[0].text

    err, text = anyio.run(go)
    assert err and "the stash changed" in text, text
    bisect_reset(p.path)


@pytest.mark.parametrize(
    "action",
    [
        "git status >/dev/null && git log -1 >/dev/null && git diff --stat >/dev/null",
        "git -C runtime status >/dev/null && git stash list >/dev/null",
        "echo edited >> scratch.txt && echo new > another-untracked.txt",
        "echo edited >> runtime/kernel.cpp && echo edited >> .gitmodules",
    ],
    ids=["reads", "reads-submodule-and-stash", "edits-files", "edits-clean-tracked-files"],
)
def test_commands_that_read_the_checkout_or_edit_files_do_not_stop_it(tmp_path, action):
    """Reading refreshes the index's stat data, editing files changes the working tree only: no stop (an
    edit is noted, since the user may make it too). A clean tracked file edited, or the submodule's, shows
    in `git status` with nothing staged: that is not a change of the index."""
    p = build(tmp_path, ["", ""], PLAN)
    bisect_start(p.path, p.c["add"], run=once(p, action), install=p.installs())
    out = bisect_run(p.path)
    assert out.culprit is not None and out.culprit.commit == p.c["bug"]
    assert all(s.checkout_changed == [] for s in out.steps)
    if action.startswith("echo"):
        edited = action.split(">> ")[-1].split()[0] if "another" not in action else "another-untracked.txt"
        assert any(covers(n, 2) and edited in n for n in out.notes), out.notes
    bisect_reset(p.path)


def test_a_round_on_several_devices_is_watched_too(tmp_path):
    """With two devices a round's points run at once on worker threads; a commit made by one of them
    stops the bisect after the round, with the evidence, and the resume finishes."""
    p = build(tmp_path, ["", ""], PLAN)
    bisect_start(p.path, p.c["add"], run=once(p, f"{GIT} commit -q --allow-empty -m x"), devices=["0", "1"])
    with pytest.raises(ToolFailure, match="HEAD moved"):
        bisect_run(p.path)
    status = bisect_status(p.path)
    assert any("HEAD moved" in " ".join(s.checkout_changed) for s in status.steps), status.steps
    assert status.worktree is None and any("HEAD moved" in n for n in status.notes)
    out = bisect_run(p.path)
    assert out.culprit is not None and out.culprit.commit == p.c["bug"]
    bisect_reset(p.path)


@pytest.mark.parametrize(
    "action",
    [
        ["update-ref", "refs/heads/main", "HEAD~1"],  # a loose ref rewritten, same size
        ["tag", "t1"],
        ["pack-refs", "--all"],
        ["-c", "user.name=U", "-c", "user.email=u@example.com", "stash", "push", "-q", "--include-untracked"],
        ["update-index", "--chmod=+x", "README.md"],
        ["checkout", "-q", "--detach"],
        ["-C", "runtime", "tag", "sub-tag"],
        [
            "-C",
            "runtime",
            "-c",
            "user.name=U",
            "-c",
            "user.email=u@example.com",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
    ],
    ids=["ref-rewritten", "tag", "pack-refs", "stash", "index-mode", "detach", "submodule-tag", "submodule-head"],
)
def test_the_probe_lets_a_quiet_checkout_go_without_git_and_moves_on_every_write(tmp_path, action):
    """The cheap probe stands in for the full snapshot only while nothing git writes for HEAD, refs,
    stash or index moved: reading the checkout keeps the snapshot, each kind of write ends it."""
    from perfkit.bisect.command import watch

    p = build(tmp_path, ["", ""], PLAN)
    repo = p.sup.path
    snap = watch.take(repo, "runtime")
    assert snap is not None and snap.probe
    run_git(repo, "log", "-1")
    run_git(repo, "--no-optional-locks", "status")
    (repo / "scratch.txt").write_text("edited, not staged\n")
    assert watch.take(repo, "runtime", unless=snap) is snap
    run_git(repo, *action)
    after = watch.take(repo, "runtime", unless=snap)
    assert after is not snap and after is not None
    assert after.probe != snap.probe
