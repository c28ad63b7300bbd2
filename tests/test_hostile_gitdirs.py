"""perfkit's own git folders are proved before every git command it runs in them.

The bisect's install and run commands run in perfkit's worktree with the user's rights. A command that
rewrites the worktree's `.git` file (once, at step 1) used to send perfkit's next `git checkout --force
--detach` into the user's own repository: their branch detached, their staged work gone from the index.
Every door to that is tried here, each by a real command in a real bisect of a real repository with a
real submodule: the gitfile naming the user's git folder or another worktree of the user's, the
submodule clone's `.git` turned into a gitfile naming the user's submodule, the submodule folder
turned into a link to the user's submodule, the install step (not the run) rewriting the gitfile,
`core.worktree` set in the clone's config or in the worktree's own config, and GIT_DIR/GIT_WORK_TREE
in the environment perfkit itself inherits. Each case checks that the user's checkout and submodule
(HEAD, branch, index, stash, refs, files) are exactly as before, that the bisect names the right
culprit, and that the status says what perfkit saw and did.

Below them, the proof itself in gitrepo's door, without a bisect: for any text written into the
worktree's `.git` file (a hypothesis property), git either runs in perfkit's own git folder or does not
run at all; and the same door with the proof switched off damages the user's repository, so the tests
can see the break they guard against.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers.bisect_project import Project, build
from helpers.gitbuild import run_git, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.bisect.command.worktree import Checkout
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_status
from perfkit.repo import gitdir_proof, gitrepo

PLAN = [("src", "")] * 3 + [("src", "BUG", "bug")] + [("src", "BUG")] * 2


def user_state(p: Project) -> dict[str, str]:
    """Everything of the user's a wrong checkout could change, the submodule's refs, index and stash included."""
    state = snapshot(p.sup.path)
    blocks = state["worktrees"].split("\n\n")  # perfkit's own worktree moves from point to point: left out
    state["worktrees"] = "\n\n".join(b for b in blocks if "perfkit" not in b.split("\n", 1)[0])
    sub = p.sup.path / "runtime"
    state |= {
        "sub:head": run_git(sub, "rev-parse", "HEAD"),
        "sub:symbolic": run_git(sub, "rev-parse", "--abbrev-ref", "HEAD"),
        "sub:status": run_git(sub, "status", "--porcelain=v2", "--untracked-files=all"),
        "sub:refs": run_git(sub, "for-each-ref"),
        "sub:stash": run_git(sub, "stash", "list"),
        "sub:config": run_git(sub, "config", "--local", "--list"),
    }
    return state


def once(p: Project, action: str) -> str:
    """A command that does `action` the first time it runs (step 1), then runs the check."""
    flag = p.env / "acted"
    return f"if [ ! -e {flag} ]; then touch {flag}; {action}; fi; {p.run_cmd()}"


def with_user_work(p: Project) -> None:
    """The user's submodule has a branch checked out, a staged edit and a stash: what a wrong checkout loses."""
    sub = p.sup.path / "runtime"
    run_git(sub, "checkout", "-q", "-B", "mine")
    (sub / "kernel.cpp").write_text("// my staged work\n")
    run_git(sub, "add", "kernel.cpp")
    (sub / "notes.txt").write_text("stashed\n")
    run_git(sub, "add", "notes.txt")
    run_git(sub, "-c", "user.name=U", "-c", "user.email=u@example.com", "stash", "push", "-q", "--", "notes.txt")


# Each door: (what a command of the user's does in perfkit's worktree, where it runs, what the note must say).
# {user} is the user's checkout, {admin} its git folder. The run command runs in the worktree, with
# PERFKIT_CHECKOUT and PERFKIT_SUBMODULE naming perfkit's two work trees.
DOORS = {
    "gitfile-names-the-users-git-folder": (
        'echo "gitdir: {user}/.git" > "$PERFKIT_CHECKOUT/.git"',
        "run",
        "its .git file names {user}/.git, not the git folder perfkit made for it",
    ),
    "gitfile-names-another-worktree-of-the-users": (
        'echo "gitdir: {user}/.git/worktrees/theirs" > "$PERFKIT_CHECKOUT/.git"',
        "run",
        "the git folder of another worktree",
    ),
    "gitfile-rewritten-by-the-install-step": (
        'printf "gitdir: %s\\n" "{user}/.git" > "$PERFKIT_CHECKOUT/.git"',
        "install",
        "its .git file names {user}/.git",
    ),
    "relative-gitfile-to-the-users-git-folder": (
        'echo "gitdir: ../../../../.git" > "$PERFKIT_CHECKOUT/.git"',
        "run",
        "its .git file names ../../../../.git",
    ),
    "submodule-git-folder-becomes-a-gitfile": (
        'rm -rf "$PERFKIT_SUBMODULE/.git" && echo "gitdir: {user}/.git/modules/simpler" > "$PERFKIT_SUBMODULE/.git"',
        "run",
        "its .git is a file naming {user}/.git/modules/simpler, not the folder perfkit's clone has",
    ),
    "submodule-folder-becomes-a-link": (
        'cd "$PERFKIT_CHECKOUT" && rm -rf runtime && ln -s "{user}/runtime" runtime',
        "run",
        "through a link",
    ),
    "core-worktree-in-the-clone-config": (
        'git -C "$PERFKIT_SUBMODULE" config core.worktree "{user}/runtime"',
        "run",
        "core.worktree is set in",
    ),
    "core-worktree-in-the-worktree-config": (
        'git -C "$PERFKIT_CHECKOUT" config --worktree core.worktree "{user}"',
        "run",
        "core.worktree is set in",
    ),
}


@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_command_that_points_perfkits_git_elsewhere_never_moves_the_users_checkout(tmp_path, door):
    action, where, saw = DOORS[door]
    p = build(tmp_path, ["", ""], PLAN)
    user = p.path
    with_user_work(p)
    theirs = tmp_path / "theirs"
    if "another-worktree" in door:  # a worktree of the user's with uncommitted work, its admin folder named
        run_git(p.sup.path, "worktree", "add", "-q", "--detach", str(theirs), p.c["head"])
        (theirs / "src" / "codegen.py").write_text("my uncommitted work\n")
    if "worktree-config" in door:  # the user keeps per-worktree config: config.worktree is read
        run_git(p.sup.path, "config", "extensions.worktreeConfig", "true")
    before = user_state(p)
    theirs_before = None
    if theirs.exists():
        theirs_before = (run_git(theirs, "status", "--porcelain=v2"), run_git(theirs, "rev-parse", "HEAD"))
    act = action.format(user=user)
    run, install = p.run_cmd(), p.installs()
    if where == "run":
        run = once(p, act)
    else:
        install = [once(p, act).replace(p.run_cmd(), "true"), *install]
    bisect_start(user, p.c["add"], run=run, install=install, install_submodule=p.installs_sub())
    out = bisect_run(user)
    assert out.culprit is not None and out.culprit.commit == p.c["bug"], out.message
    status = bisect_status(user)
    expected = saw.format(user=user)
    rebuilt = [s for s in status.steps if s.worktree_rebuilt]
    assert len(rebuilt) == 1 and rebuilt[0].n == 2, [(s.n, s.worktree_rebuilt) for s in status.steps]
    said = rebuilt[0].worktree_rebuilt[0]
    assert expected in said and "perfkit ran no git command there" in said, said
    assert any(expected in n and n.startswith("before step 2:") for n in status.notes), status.notes
    bisect_reset(user)
    assert user_state(p) == before
    if theirs_before is not None:
        assert (run_git(theirs, "status", "--porcelain=v2"), run_git(theirs, "rev-parse", "HEAD")) == theirs_before


def test_git_variables_perfkit_inherits_never_redirect_its_git(tmp_path, monkeypatch):
    """perfkit started from a git hook or an alias carries GIT_DIR and GIT_WORK_TREE of the user's checkout;
    neither its own git commands nor the commands it runs for the user may act on that checkout."""
    p = build(tmp_path, ["", ""], PLAN)
    with_user_work(p)
    before = user_state(p)
    for name, value in {
        "GIT_DIR": f"{p.path}/.git",
        "GIT_WORK_TREE": p.path,
        "GIT_INDEX_FILE": f"{p.path}/.git/index",
        "GIT_COMMON_DIR": f"{p.path}/.git",
    }.items():
        monkeypatch.setenv(name, value)
    seen = p.env / "git-seen"
    run = f"git rev-parse --show-toplevel >> {seen}; git status --short >/dev/null; {p.run_cmd()}"
    bisect_start(p.path, p.c["add"], run=run, install=p.installs(), install_submodule=p.installs_sub())
    out = bisect_run(p.path)
    assert out.culprit is not None and out.culprit.commit == p.c["bug"], out.message
    worktree = str(statefile.state_dir(Path(p.path)) / "worktree" / "pypto")
    tops = set(seen.read_text().split())
    assert tops == {worktree}, tops  # the user's git in the run saw perfkit's worktree, never the checkout
    bisect_reset(p.path)
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_WORK_TREE")
    monkeypatch.delenv("GIT_INDEX_FILE")
    monkeypatch.delenv("GIT_COMMON_DIR")
    assert user_state(p) == before


# ---- the proof in gitrepo's door, without a bisect ------------------------------------------------------


def made(tmp_path: Path) -> tuple[Project, Checkout, dict[str, str]]:
    """A user's checkout with work of every kind, and perfkit's worktree and clone made at the first point."""
    p = build(tmp_path, ["", ""], PLAN)
    with_user_work(p)
    sdir = tmp_path / "perfkit-folder"
    sub_source = Path(gitrepo.submodule_git_dir(p.sup.path, "runtime") or "")
    checkout = Checkout(p.sup.path, sdir / "worktree" / "pypto", sdir / "parked", "runtime", sub_source)
    checkout.ensure(p.c["add"])
    checkout.sync(p.c["add"], p.r[0])
    return p, checkout, user_state(p)


def test_without_the_proof_the_same_door_moves_the_users_branch(tmp_path, monkeypatch):
    """The break these tests guard against is real: with the proof switched off, a rewritten gitfile sends
    `git checkout --force --detach` into the user's repository; with it on, git does not run."""
    p, checkout, before = made(tmp_path)
    (checkout.path / ".git").write_text(f"gitdir: {p.path}/.git\n")
    with pytest.raises(gitdir_proof.NotPerfkits, match=f"names {p.path}/.git"):
        gitrepo.git(checkout.path, "checkout", "--force", "--detach", "--quiet", p.c["init"])
    assert user_state(p) == before
    monkeypatch.setattr(gitdir_proof, "owner", lambda _path: None)
    gitrepo.git(checkout.path, "checkout", "--force", "--detach", "--quiet", p.c["init"])
    status = run_git(p.sup.path, "status", "--porcelain=v2", "--branch")
    assert "# branch.head (detached)" in status and run_git(p.sup.path, "rev-parse", "HEAD") == p.c["init"]
    assert run_git(p.sup.path, "ls-files", "-s") != before["index"]


def test_a_rewritten_gitfile_is_rebuilt_by_the_checkout_and_reported(tmp_path):
    p, checkout, before = made(tmp_path)
    (checkout.path / ".git").write_text(f"gitdir: {p.path}/.git\n")
    checkout.ensure(p.c["bug"])
    checkout.sync(p.c["bug"], p.r[1])
    assert user_state(p) == before
    assert len(checkout.rebuilt) == 1 and f"names {p.path}/.git" in checkout.rebuilt[0], checkout.rebuilt
    assert "BUG" in (checkout.path / "src" / "codegen.py").read_text()
    assert gitrepo.git(checkout.path, "rev-parse", "HEAD").strip() == p.c["bug"]
    assert gitrepo.git(checkout.sub_dir, "rev-parse", "HEAD").strip() == p.r[1]  # type: ignore[arg-type]


def test_a_gitfile_swapped_between_the_proof_and_the_checkout_is_caught_by_the_door(tmp_path):
    """ensure() proved the worktree; a command of another device's slot rewrites the gitfile before sync():
    the door proves again before the checkout itself, and sync rebuilds instead of writing elsewhere."""
    p, checkout, before = made(tmp_path)
    checkout.ensure(p.c["bug"])
    (checkout.path / ".git").write_text(f"gitdir: {p.path}/.git\n")
    checkout.sync(p.c["bug"], p.r[0])
    assert user_state(p) == before
    assert checkout.rebuilt and f"names {p.path}/.git" in checkout.rebuilt[0]
    assert gitrepo.git(checkout.path, "rev-parse", "HEAD").strip() == p.c["bug"]


def test_a_copy_of_perfkits_own_git_folder_is_not_perfkits(tmp_path):
    """A gitfile naming a copy of perfkit's admin folder (same files, another folder) fails the identity check."""
    p, checkout, before = made(tmp_path)
    admin = Path(gitrepo.git(checkout.path, "rev-parse", "--path-format=absolute", "--git-dir").strip())
    copy = admin.parent / "copy-of-perfkits"
    shutil.copytree(admin, copy)
    (checkout.path / ".git").write_text(f"gitdir: {copy}\n")
    (copy / "gitdir").write_text(f"{checkout.path}/.git\n")
    with pytest.raises(gitdir_proof.NotPerfkits, match="a different folder from the one perfkit made"):
        gitrepo.git(checkout.path, "status")
    shutil.rmtree(copy)
    assert user_state(p) == before


def test_the_proof_costs_no_git_process(tmp_path, monkeypatch):
    """The proof is a stat and a few reads: proving a hundred times starts no process at all."""
    import subprocess

    p, checkout, _ = made(tmp_path)
    started: list[object] = []

    def counting(*a: object, **kw: object) -> None:
        started.append(a[0] if a else kw.get("args"))
        raise AssertionError("the proof started a process")

    gitrepo.prove_own(checkout.path)  # the config listing is made once and kept while no config file changes
    gitrepo.prove_own(checkout.sub_dir)  # type: ignore[arg-type]
    monkeypatch.setattr(subprocess, "run", counting)
    monkeypatch.setattr(subprocess, "Popen", counting)
    for _ in range(100):
        gitrepo.prove_own(checkout.path)
        gitrepo.prove_own(checkout.sub_dir)  # type: ignore[arg-type]
    assert started == []


# For any text in the worktree's `.git` file, git either runs in perfkit's own git folder or not at all.
def _gitfile_texts(p: Project, admin: Path) -> st.SearchStrategy[str]:
    user = p.path
    targets = st.sampled_from(
        [
            f"{user}/.git",
            f"{user}/.git/",
            f"{user}/.git/worktrees/theirs",
            f"{user}/.git/modules/simpler",
            f"{user}/runtime/.git",
            str(admin),
            f"{admin}/",
            f"{admin}/../{admin.name}",
            "../../../../.git",
            f"../../../../.git/worktrees/{admin.name}",
            "/dev/zero",
            "/nonexistent",
            "",
        ]
    )
    prefix = st.sampled_from(["gitdir: ", "gitdir:", "gitdir:  ", "GITDIR: ", ""])
    suffix = st.sampled_from(["\n", "", "\r\n", "\n\n", " \n", "\ngitdir: /\n"])
    return st.one_of(st.builds(lambda a, b, c: a + b + c, prefix, targets, suffix), st.text(max_size=40))


def test_any_gitfile_text_runs_git_in_perfkits_folder_or_nowhere(tmp_path):
    p, checkout, before = made(tmp_path)
    admin = Path(gitrepo.git(checkout.path, "rev-parse", "--path-format=absolute", "--git-dir").strip())
    run_git(p.sup.path, "worktree", "add", "-q", "--detach", str(tmp_path / "theirs"), p.c["head"])
    before = user_state(p)
    theirs_head = run_git(tmp_path / "theirs", "rev-parse", "HEAD")
    original = (checkout.path / ".git").read_bytes()
    targets = [p.c["init"], p.c["add"], p.c["bug"]]

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=_gitfile_texts(p, admin), pick=st.integers(0, 2))
    def check(text: str, pick: int) -> None:
        (checkout.path / ".git").write_bytes(text.encode("utf-8", "surrogateescape"))
        commit = targets[pick]
        try:
            gitrepo.git(checkout.path, "checkout", "--force", "--detach", "--quiet", commit)
        except gitdir_proof.NotPerfkits:
            pass
        else:  # it ran: in perfkit's own git folder
            assert (admin / "HEAD").read_text().strip() == commit
        (checkout.path / ".git").write_bytes(original)

    check()
    assert user_state(p) == before
    assert run_git(tmp_path / "theirs", "rev-parse", "HEAD") == theirs_head


def test_reset_removes_a_worktree_that_is_not_perfkits_without_running_git_in_it(tmp_path):
    """bisect_reset (and the end of every run) removes the worktree; when its gitfile names the user's git
    folder, `git worktree remove` is not run on it: the files go, the user's repository stays."""
    p, checkout, before = made(tmp_path)
    (checkout.path / ".git").write_text(f"gitdir: {p.path}/.git\n")
    checkout.remove()
    assert not checkout.path.exists()
    assert user_state(p) == before


def test_an_admin_folder_whose_commondir_is_rewritten_is_not_perfkits(tmp_path):
    """The gitfile still names perfkit's admin folder, but its commondir now leads to another repository."""
    p, checkout, before = made(tmp_path)
    admin = Path(gitrepo.git(checkout.path, "rev-parse", "--path-format=absolute", "--git-dir").strip())
    other = tmp_path / "other"
    run_git(tmp_path, "init", "-q", str(other))
    (admin / "commondir").write_text(f"{other}/.git\n")
    with pytest.raises(gitdir_proof.NotPerfkits, match="commondir"):
        gitrepo.git(checkout.path, "checkout", "--force", "--detach", "--quiet", p.c["init"])
    assert user_state(p) == before
    assert not os.path.exists(other / ".git" / "index")
