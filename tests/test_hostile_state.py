"""perfkit's own bisect folder is input too: a planted, edited, linked or copied state runs nothing,
deletes nothing outside perfkit's folder and stops nobody else's processes.

`.git/perfkit-bisect` can come from anywhere a `.git` comes from (a tarball, a shared disk, a copy
made mid-run, a hand edit, another tool). Each attack here is one a user could meet: a state whose
submodule path leads to another checkout, a state naming a command, a bisect folder or a lock that
is a link to the user's own files, a checkout copied with `cp -a` while its bisect runs. Every case
checks the outside world with real files and real processes afterwards: the other checkout's tree,
the marker file a planted command would write, the user's file behind a link, the original's
processes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from helpers.bisect_project import Project, build
from helpers.gitbuild import Repo, snapshot
from helpers.load import slack
from helpers.procs import alive, perfkit
from helpers.tree import changes, tree
from perfkit.bisect.command.runner import owned_by
from perfkit.bisect.state import seal
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_status, bisect_step
from perfkit.errors import InputError, ToolFailure

PLAN = [("src", "")] * 3 + [("src", "BUG", "bug")] + [("src", "BUG")] * 2


def sdir_of(p: Project) -> Path:
    return statefile.state_dir(p.sup.path)


def started(tmp_path: Path, **kw: object) -> Project:
    p = build(tmp_path, [""] * 2, PLAN)
    bisect_start(p.path, p.c["add"], run=p.run_cmd(), install=p.installs(), install_submodule=p.installs_sub(), **kw)
    return p


def edit_state(p: Project, change: dict[str, object], reseal: bool = False) -> None:
    """Change fields of state.json as a hand edit would (the seal is left as it was), or, with reseal,
    as a perfkit bug would (sealed anew: only the path checks stand in the way)."""
    path = statefile.state_file(sdir_of(p))
    data = json.loads(path.read_text())
    for dotted, value in change.items():
        target = data
        *parents, last = dotted.split(".")
        for key in parents:
            target = target[key]
        target[last] = value
    if reseal:
        data.pop("seal")
        statefile.save(sdir_of(p), statefile.State.model_validate(data))
    else:
        path.write_text(json.dumps(data))


def other_checkout(tmp_path: Path) -> tuple[Repo, dict[str, tuple]]:
    """Another checkout of the user's, with a commit and uncommitted work: what a bad delete would lose."""
    other = Repo(tmp_path / "other-work")
    other.commit("mine", {"a.py": "x = 1\n"})
    other.write("a.py", "x = 2  # uncommitted\n")
    other.write("notes.txt", "untracked\n")
    return other, tree(other.path)


# ---- a state whose paths lead out of perfkit's folder ----------------------------------------------------


@pytest.mark.parametrize("reseal", [False, True], ids=["edited", "resealed"])
@pytest.mark.parametrize("where", ["absolute", "dotdot", "dotdot-deep"])
def test_a_submodule_path_out_of_perfkits_folder_deletes_nothing(tmp_path, where, reseal):
    """settings.submodule absolute or `../../..`: reset (and run) must not delete another checkout."""
    p = started(tmp_path)
    bisect_step(p.path)  # a worktree with its submodule clone exists, as mid-run
    bisect_step(p.path)
    other, before = other_checkout(tmp_path)
    sub = {
        "absolute": str(other.path),
        "dotdot": "../../..",
        "dotdot-deep": os.path.relpath(other.path, sdir_of(p) / "worktree" / "pypto"),
    }[where]
    edit_state(p, {"settings.submodule": sub}, reseal=reseal)
    with pytest.raises(ToolFailure, match="runs nothing from it"):
        bisect_run(p.path)
    status = bisect_status(p.path)
    assert not status.active and "bisect_reset" in status.message, status.message
    res = bisect_reset(p.path)
    assert "nothing was run or stopped" in res.message, res.message
    assert changes(before, tree(other.path)) == []
    assert not sdir_of(p).exists() and (p.sup.path / ".git" / "HEAD").is_file()
    assert (p.sup.path / "runtime" / "kernel.cpp").is_file()  # the user's own submodule checkout stays


def test_a_run_folder_out_of_the_checkout_in_a_resealed_state_is_refused(tmp_path):
    p = started(tmp_path)
    edit_state(p, {"settings.run_cwd": "../../../.."}, reseal=True)
    with pytest.raises(ToolFailure, match="run_cwd"):
        bisect_step(p.path)
    assert p.lines("runs.log") == []


# ---- planted commands --------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["install", "install_submodule", "run", "python"])
def test_a_planted_command_is_never_run(tmp_path, field):
    """A state edited to name a command, with the environment said to point at the worktree (so a reset
    would re-run the install commands): neither run, step nor reset runs it."""
    p = started(tmp_path, devices=["0"] if field == "python" else None)
    marker = tmp_path / "PLANTED-RAN"
    cmd = f"touch {marker}"
    value: object = [cmd] if field.startswith("install") else cmd
    if field == "python":
        value = str(tmp_path / "evil-python")
        Path(value).write_text(f"#!/bin/sh\ntouch {marker}\n")
        Path(value).chmod(0o755)
    edit_state(p, {f"settings.{field}": value, "environment": "worktree"})
    for call in (bisect_step, bisect_run):
        with pytest.raises(ToolFailure, match="not written by your perfkit"):
            call(p.path)
    res = bisect_reset(p.path)
    assert res.restored is None and "nothing was run" in res.message, res.message
    assert not marker.exists()
    assert not sdir_of(p).exists()


def test_a_state_planted_from_scratch_or_copied_from_another_repository_is_refused(tmp_path):
    """Another repository's sealed state dropped into this one, and a state written by hand."""
    a = started(tmp_path / "a")
    b = build(tmp_path / "b", [""] * 2, PLAN)
    shutil.copytree(sdir_of(a), sdir_of(b))
    err = perfkit("bisect-run", b.path)
    assert err.returncode == 1 and "another copy of this repository" in err.stderr, err.stderr
    assert len(err.stderr.strip().splitlines()) == 1
    start = perfkit("bisect-start", b.path, b.c["add"], "--run", b.run_cmd())
    assert start.returncode == 2 and "bisect-reset" in start.stderr, start.stderr
    statefile.state_file(sdir_of(b)).write_text(json.dumps({"id": "x", "settings": {"run": "touch /tmp/x"}}))
    assert "not written by your perfkit" in perfkit("bisect-step", b.path).stderr
    assert perfkit("bisect-reset", b.path).returncode == 0
    assert b.lines("runs.log") == [] and not sdir_of(b).exists()


def test_a_key_that_is_not_private_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state-home"))
    p = build(tmp_path, [""] * 2, PLAN)
    bisect_start(p.path, p.c["add"], run=p.run_cmd())
    key = tmp_path / "state-home" / "perfkit" / seal.KEY_NAME
    assert key.stat().st_mode & 0o777 == 0o600
    key.chmod(0o644)
    with pytest.raises(ToolFailure, match="not a private file"):
        bisect_step(p.path)
    assert p.lines("runs.log") == []


# ---- links in perfkit's folder -------------------------------------------------------------------------------


def test_a_state_folder_that_is_a_link_to_a_user_folder_is_never_followed(tmp_path):
    """`.git/perfkit-bisect` links to a folder of the user's holding logs/ and worktree/: start refuses
    and deletes nothing there; reset removes the link alone."""
    p = build(tmp_path, [""] * 2, PLAN)
    mine = tmp_path / "my-project-data"
    for rel in ("logs/train.log", "worktree/pypto/model.pt", "state.json", "lock"):
        (mine / rel).parent.mkdir(parents=True, exist_ok=True)
        (mine / rel).write_text(f"the user's {rel}\n")
    before = tree(mine)
    os.symlink(mine, sdir_of(p))
    with pytest.raises(ToolFailure, match="is a link"):
        bisect_start(p.path, p.c["add"], run=p.run_cmd())
    for call in (bisect_step, bisect_run):
        with pytest.raises((ToolFailure, InputError)):
            call(p.path)
    assert "is a link" in bisect_status(p.path).message
    cli = perfkit("bisect-start", p.path, p.c["add"], "--run", p.run_cmd())
    assert cli.returncode == 1 and "is a link" in cli.stderr and len(cli.stderr.strip().splitlines()) == 1
    res = bisect_reset(p.path)
    assert res.removed == ["link"] and "nothing it points to" in res.message
    assert changes(before, tree(mine)) == [] and not os.path.lexists(sdir_of(p))


@pytest.mark.parametrize("name", ["logs", "worktree", "workers", "memory"])
def test_a_link_inside_perfkits_folder_is_removed_as_a_link(tmp_path, name):
    """A finished bisect's folder with one of its subfolders replaced by a link to the user's folder:
    a new start and a reset remove the link, never what it points to."""
    p = started(tmp_path)
    bisect_run(p.path)
    mine = tmp_path / "precious"
    (mine / "pypto").mkdir(parents=True)
    (mine / "pypto" / "data.bin").write_text("keep\n")
    (mine / "step-001.log").write_text("keep\n")
    before = tree(mine)
    target = sdir_of(p) / name
    shutil.rmtree(target, ignore_errors=True)
    os.symlink(mine, target)
    bisect_start(p.path, p.c["add"], run=p.run_cmd(), install=p.installs())
    bisect_reset(p.path)
    assert changes(before, tree(mine)) == []


def test_a_lock_that_is_a_link_to_a_user_file_is_never_written(tmp_path):
    """`lock` links to the user's ~/.bashrc: no call writes the pid record through it."""
    p = started(tmp_path)
    bashrc = tmp_path / "home" / ".bashrc"
    bashrc.parent.mkdir()
    bashrc.write_text("export PATH=$HOME/bin:$PATH\n")
    before = tree(bashrc.parent)
    lock = sdir_of(p) / "lock"
    os.symlink(bashrc, lock)
    step = bisect_step(p.path)
    assert step.step is not None and step.step.verdict == "good"
    os.symlink(bashrc, lock)  # planted again, with nobody holding the lock
    assert not bisect_status(p.path).running_pid
    os.symlink(bashrc, lock.with_name("lock.tmp"))
    out = bisect_run(p.path)
    assert out.culprit is not None and out.culprit.commit == p.c["bug"]
    os.symlink(bashrc, lock)
    bisect_reset(p.path)
    assert changes(before, tree(bashrc.parent)) == []
    assert bashrc.read_text() == "export PATH=$HOME/bin:$PATH\n"


def test_a_lock_that_is_a_fifo_does_not_hang_status_or_run(tmp_path):
    p = started(tmp_path)
    os.mkfifo(sdir_of(p) / "lock")
    t0 = time.monotonic()
    assert bisect_status(p.path).running_pid is None
    assert bisect_step(p.path).step is not None
    assert time.monotonic() - t0 < slack(60)
    bisect_reset(p.path)


def test_a_state_file_that_is_a_link_is_refused_and_its_target_kept(tmp_path):
    p = started(tmp_path)
    elsewhere = tmp_path / "elsewhere.json"
    state = statefile.state_file(sdir_of(p))
    shutil.copy(state, elsewhere)
    state.unlink()
    os.symlink(elsewhere, state)
    before = elsewhere.read_bytes()
    with pytest.raises(ToolFailure, match="is a link"):
        bisect_step(p.path)
    bisect_reset(p.path)
    assert elsewhere.read_bytes() == before and not sdir_of(p).exists()


# ---- a checkout copied while its bisect runs ------------------------------------------------------------------


def _marked(bisect_id: str) -> list[int]:
    return [pid for pid in psutil.pids() if owned_by(pid, f"PERFKIT_BISECT_ID={bisect_id}")]


def test_a_copy_made_mid_run_resets_without_touching_the_original(tmp_path):
    """`cp -a` of the whole checkout while its bisect runs a command, then reset in the copy: the original's
    command (same bisect id in the copied state) keeps running, the original's state and worktree stay,
    and the original's bisect then finishes to the right culprit."""
    p = build(tmp_path / "orig", [""] * 2, PLAN)
    gate = tmp_path / "gate"
    run = f'if [ "$PERFKIT_STEP" = 2 ] && [ ! -e {gate} ]; then sleep 60; fi; {p.run_cmd()}'
    bisect_start(p.path, p.c["add"], run=run, install=p.installs())
    bid = statefile.load(sdir_of(p)).id
    proc = subprocess.Popen(
        [sys.executable, "-m", "perfkit.cli", "bisect-run", p.path, "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + slack(60)
        while not any(psutil.Process(x).name() == "sleep" for x in _marked(bid) if alive(x)):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        running = _marked(bid)
        copy = tmp_path / "copy"
        subprocess.run(["cp", "-a", str(tmp_path / "orig"), str(copy)], check=True)
        copied = copy / "pypto"
        status = bisect_status(str(copied))
        assert "another copy of this repository" in status.message, status.message
        res = bisect_reset(str(copied))
        assert "nothing was run or stopped" in res.message, res.message
        assert all(alive(x) for x in running), "the copy's reset stopped the original's command"
        assert proc.poll() is None and statefile.state_file(sdir_of(p)).is_file()
        assert not statefile.state_dir(copied).exists()
        gate.touch()
        for x in running:
            if alive(x) and psutil.Process(x).name() == "sleep":
                psutil.Process(x).kill()  # the parked sleep ends; the step then runs the check
        assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
    out = bisect_status(p.path)
    assert out.culprit is not None and out.culprit.commit == p.c["bug"], out.message
    bisect_reset(p.path)
    assert snapshot(p.sup.path)["worktrees"].count("worktree ") == 1


def test_a_step_log_planted_as_a_link_is_never_written_through(tmp_path):
    """The next step's log name, planted as a link to a file of the user's between two calls."""
    p = started(tmp_path)
    bisect_step(p.path)
    victim = tmp_path / "important.txt"
    victim.write_text("mine\n")
    logs = sdir_of(p) / "logs"
    os.symlink(victim, logs / "step-002.log")
    step = bisect_step(p.path)
    assert step.step is not None and step.step.verdict in ("good", "bad")
    assert victim.read_text() == "mine\n" and os.path.islink(logs / "step-002.log")
    bisect_reset(p.path)
    assert victim.read_text() == "mine\n"


def _cache_entry(cache_folder: Path, key: str, index: str, member: str, sealed: bool) -> None:
    """A build cache entry written by hand: an index naming `index`, an archive holding `member`."""
    import hashlib
    import io
    import tarfile

    with tarfile.open(cache_folder / f"{key}.tar", "w") as tar:
        data = b"planted\n"
        info = tarfile.TarInfo(member)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    digest = hashlib.sha256((cache_folder / f"{key}.tar").read_bytes()).hexdigest()
    entry = {"written": [index], "tar": digest, "seal": "0" * 64}
    if sealed:  # as a perfkit bug would write it: only the path checks stand in the way
        entry["seal"] = seal.mac(json.dumps([key, [index], digest]))
    (cache_folder / f"{key}.json").write_text(json.dumps(entry))


@pytest.mark.parametrize("sealed", [False, True], ids=["planted", "resealed"])
@pytest.mark.parametrize(
    "name", ["env/../../../victim.txt", "side/../../victim.txt", "env//abs", "side/out/victim.txt"]
)
def test_a_planted_build_cache_entry_writes_and_deletes_nothing_outside_the_worker(tmp_path, name, sealed):
    """A build cache index or archive naming a file outside the worker's environment or checkout (by
    `..`, an absolute path, or a folder of the checkout that links out): the restore refuses (the
    install runs instead) and the file outside stays."""
    from perfkit.bisect.state.build_cache import BuildCache

    env, side = tmp_path / "w" / "slot-0" / "env", tmp_path / "w" / "slot-0" / "checkout"
    env.mkdir(parents=True)
    side.mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, side / "out")
    for victim in (tmp_path / "w" / "victim.txt", tmp_path / "victim.txt", outside / "victim.txt"):
        victim.write_text("mine\n")
    name = name.replace("//abs", f"/{tmp_path / 'victim.txt'}")
    before = tree(tmp_path / "outside") | {"top": (Path(tmp_path / "victim.txt").read_text(),)}
    cache = BuildCache(tmp_path / "w" / "build-cache", 100)
    cache.folder.mkdir()
    _cache_entry(cache.folder, "good", "env/ok.txt", "env/ok.txt", sealed=True)
    _cache_entry(cache.folder, "planted-index", name, "env/ok.txt", sealed)
    _cache_entry(cache.folder, "planted-tar", "env/ok.txt", name, sealed)
    cache.restore("good", "planted-index", env, side)  # the index asks to delete the outside file
    assert not cache.restore("planted-tar", None, env, side)  # the archive writes it
    after = tree(tmp_path / "outside") | {"top": (Path(tmp_path / "victim.txt").read_text(),)}
    assert changes(before, after) == []
    assert (tmp_path / "w" / "victim.txt").read_text() == "mine\n"


def test_a_build_cache_archive_replaced_after_it_was_stored_is_not_put_back(tmp_path):
    """An archive perfkit stored, then swapped for another (same name, same index): the environment the
    next run executes receives nothing from it; the real entry is put back before the swap."""
    from perfkit.bisect.state.build_cache import BuildCache

    env, side = tmp_path / "env", tmp_path / "checkout"
    (env / "bin").mkdir(parents=True)
    side.mkdir()
    cache = BuildCache(tmp_path / "build-cache", 100)
    before = cache.listing(env, side, None)
    (env / "bin" / "tool").write_text("#!/bin/sh\necho built\n")
    cache.store("k", before, cache.listing(env, side, None), env, side)
    (env / "bin" / "tool").unlink()
    assert cache.restore("k", None, env, side) and (env / "bin" / "tool").read_text().endswith("built\n")
    (env / "bin" / "tool").unlink()
    _cache_entry(tmp_path, "swap", "env/bin/tool", "env/bin/tool", sealed=False)
    shutil.copy(tmp_path / "swap.tar", cache.folder / "k.tar")
    assert not cache.restore("k", None, env, side)
    assert not (env / "bin" / "tool").exists()


@pytest.mark.parametrize("what", ["worktree", "worktree-folder"])
def test_a_worktree_planted_as_a_link_to_another_checkout_is_never_checked_out(tmp_path, what):
    """Between two calls, perfkit's worktree (or the folder holding it) is replaced by a link to another
    worktree of the user's, with uncommitted work: the resume must not run `git checkout --force` there."""
    p = started(tmp_path)
    bisect_step(p.path)
    theirs = tmp_path / "my-other-worktree"
    p.sup.git("worktree", "add", "-q", "--detach", str(theirs), p.c["head"])
    (theirs / "src" / "codegen.py").write_text("my uncommitted work\n")
    before = tree(theirs)
    head = p.sup.git("-C", str(theirs), "rev-parse", "HEAD")
    wt = sdir_of(p) / "worktree" / "pypto"
    shutil.rmtree(sdir_of(p) / "worktree", ignore_errors=True)
    if what == "worktree":
        wt.parent.mkdir()
        os.symlink(theirs, wt)
    else:
        holder = tmp_path / "holder"
        holder.mkdir()
        os.symlink(theirs, holder / "pypto")
        os.symlink(holder, wt.parent)
    out = bisect_run(p.path)
    assert out.culprit is not None and out.culprit.commit == p.c["bug"]
    assert changes(before, tree(theirs)) == []
    assert p.sup.git("-C", str(theirs), "rev-parse", "HEAD") == head
    bisect_reset(p.path)
    assert changes(before, tree(theirs)) == []
