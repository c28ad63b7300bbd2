"""What the bisect tools do, behind their signatures (tool.py), loaded on the first bisect call.

Each call takes the repository's bisect lock, loads the state from disk, does its work and saves
again, so any number of processes (an MCP server, then a CLI call, then a restarted server) can
carry one bisect forward. Whenever a call ends abnormally (an exception, Ctrl-C, SIGTERM) it gives
the environment back to the user's checkout and removes the worktree before re-raising; the
recorded steps stay, and the next bisect_step or bisect_run resumes from them.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from perfkit.bisect import settings as settingsfile
from perfkit.bisect.command import lookup as command_lookup
from perfkit.bisect.command import shutdown, sparse, watch
from perfkit.bisect.command.worktree import Checkout, source_git_dir
from perfkit.bisect.engine.engine import Engine
from perfkit.bisect.models import BisectSettings, BisectStatus, ResetResult, StartResult, StepRecord, StepResult
from perfkit.bisect.report import status_of, step_line
from perfkit.bisect.search import estimate, noise_plan
from perfkit.bisect.search.levels import plural
from perfkit.bisect.search.planner import Planner
from perfkit.bisect.state import confine, seal
from perfkit.bisect.state import lock as lockfile
from perfkit.bisect.state import store as statefile
from perfkit.bisect.state.point import work_paths
from perfkit.bisect.state.store import PhaseData, State
from perfkit.bisect.workers.devices import ahead_notes
from perfkit.bisect.workers.local import remove_slots
from perfkit.errors import InputError, ToolFailure
from perfkit.repo import gitrepo
from perfkit.tools.spec import Progress, no_progress


@contextmanager
def _signals_as_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP stop a bisect as cleanly as Ctrl-C does (CLI: only the main thread gets signals)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(f"stopped by signal {signum}")

    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


def _short(sha: str) -> str:
    return sha[:12]


def _pick_submodule(
    top: Path, good: str, bad: str, requested: str | None, explicit: bool
) -> tuple[str | None, str | None]:
    """(path, name) of the submodule level 2 bisects, or (None, None)."""
    at_ends = [gitrepo.submodule_paths(top, bad), gitrepo.submodule_paths(top, good)]
    declared = at_ends[0] | at_ends[1]
    links = set(gitrepo.gitlinks(top, bad)) | set(gitrepo.gitlinks(top, good))
    field = "submodule"
    if requested is not None:
        path = requested.strip().strip("/")
        if path in ("", "none"):
            return None, None
        if path not in links:
            where = "argument" if explicit else "settings file"
            raise InputError(
                field,
                f"'{requested}' ({where}) is not a submodule at good or bad",
                f"use one of: {', '.join(sorted(links)) or 'none'}, or '' for no submodule level",
            )
        return _safe_submodule(path, declared.get(path), {d.get(path) for d in at_ends})
    usable = sorted(p for p in links)
    if not usable:
        return None, None
    if len(usable) > 1:
        raise InputError(
            field,
            f"the repository has several submodules ({', '.join(usable)})",
            "pass submodule=<path> for the one to bisect, or '' for none",
        )
    return _safe_submodule(usable[0], declared.get(usable[0]), {d.get(usable[0]) for d in at_ends})


def _safe_submodule(path: str, name: str | None, names: set[str | None]) -> tuple[str, str | None]:
    """Refuse a submodule whose name (at either end) or path leads out of the repository (`..`)."""
    for what, value in [("path", path), *(("name", n) for n in sorted(filter(None, names)))]:
        if value is not None and _leaves(value):
            raise InputError(
                "submodule",
                f"the submodule {what} '{value}' in .gitmodules leads out of the repository",
                "fix .gitmodules, or pass submodule='' to bisect the superproject only",
            )
    return path, name


def _leaves(rel: str) -> bool:
    """Whether a relative path names something outside the folder it is relative to."""
    parts = rel.replace("\\", "/").split("/")
    return os.path.isabs(rel) or ".." in parts or not rel.strip()


def _check_run_cwd(settings: BisectSettings, notes: list[str]) -> None:
    """A relative run folder stays inside the checkout under test; an absolute one is the user's choice."""
    if settings.run_cwd is None:
        return
    raw = settings.run_cwd
    cwd = Path(raw).expanduser()
    if cwd.is_absolute():
        if not cwd.is_dir():
            raise InputError(
                "run_cwd",
                f"'{raw}' is not a folder",
                "pass an existing folder, or a path relative to the checkout under test",
            )
        notes.append(
            f"run_cwd {cwd} is an absolute path: the run command runs there, outside the checkout under test, "
            "at every step; what it writes there stays"
        )
        settings.run_cwd = str(cwd)
        return
    rel = os.path.normpath(raw)
    if rel == "." or raw.strip() == "":
        settings.run_cwd = None
        return
    if _leaves(rel):
        raise InputError(
            "run_cwd",
            f"'{raw}' leads out of the checkout under test",
            "pass a folder inside the checkout (relative to it), or an absolute path if the check must run "
            "elsewhere on purpose",
        )
    settings.run_cwd = rel


def start(repo: str, good: str, bad: str, explicit: dict[str, Any]) -> StartResult:
    """bisect_start; explicit holds the settings given as arguments (None: not given)."""
    top = gitrepo.open_repo(repo)
    good_sha = gitrepo.resolve_commit(top, good, "good")
    bad_sha = gitrepo.resolve_commit(top, bad, "bad")
    if good_sha == bad_sha:
        raise InputError(
            "good", f"'{good}' is the same commit as bad ('{bad}')", "pass an older commit where the check passes"
        )
    if not gitrepo.is_ancestor(top, good_sha, bad_sha):
        raise InputError(
            "good",
            f"'{good}' is not an ancestor of bad '{bad}' (the range is in the wrong order or on another line)",
            "pass an older commit of bad's history as good",
        )
    notes: list[str] = []
    settings = settingsfile.merge(top, explicit, notes)
    path, name = _pick_submodule(top, good_sha, bad_sha, settings.submodule, explicit.get("submodule") is not None)
    settings.submodule = path
    _check_run_cwd(settings, notes)
    sparse.settle(top, settings, good_sha, bad_sha, notes)
    command_lookup.check_settings(settings, notes)
    notes += ahead_notes(settings)
    dirty = watch.uncommitted(top)
    if dirty:
        notes.append(dirty)
    source = None
    if path is not None:
        found = source_git_dir(top, path, name)
        if found is None:
            raise InputError(
                "submodule",
                f"'{path}' is not initialised in your checkout, so its commits are not available offline",
                f"run `git submodule update --init {path}` once, or pass submodule='' to bisect the superproject only",
            )
        source = str(found)
    items = gitrepo.git(top, "rev-list", "--first-parent", "--reverse", f"{good_sha}..{bad_sha}").split()
    sdir = statefile.state_dir(top)
    with lockfile.locked(sdir):
        try:
            old = statefile.load(sdir)
        except statefile.Untrusted as exc:
            raise InputError("repo", str(exc), "run bisect_reset, then bisect_start again") from None
        if old is not None and old.phase != "done":
            raise InputError(
                "repo",
                f"a bisect of this repository is already in progress ({len(old.steps)} steps, phase {old.phase})",
                "continue it with bisect_run or bisect_step, or bisect_reset it",
            )
        if old is not None:
            notes.append(_replaced(old))
        _clear(top, sdir, old)
        st = State(
            id=uuid.uuid4().hex,
            identity=seal.identity(sdir.parent),
            repo=str(top),
            good=good_sha,
            bad=bad_sha,
            settings=settings,
            submodule_name=name,
            submodule_source=source,
            created=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            phase="verify_good" if settings.verify_ends else "level1",
            level1=PhaseData(name="level1", items=items),
        )
        st.largest_move = Planner(top, st).largest_move()
        statefile.save(sdir, st)
    return _started(st, top, sdir, notes)


def _started(st: State, top: Path, sdir: Path, notes: list[str]) -> StartResult:
    settings, path, items = st.settings, st.settings.submodule, st.level1.items
    est = estimate.start(settings, len(items), st.largest_move, noise_plan.noise_on(settings))
    total = est.runs.high
    msg = (
        f"Bisect started: {plural(len(items), 'first-parent commit')} from good {_short(st.good)} to bad "
        f"{_short(st.bad)}. Estimate: {estimate.words(est, len(settings.devices), settings.verify_ends)}."
    )
    if path and st.largest_move:
        two, _ = estimate.search(st.largest_move, settings, noise_plan.noise_on(settings), False)
        msg += (
            f" If the culprit moves {path}, the second level inside {path} starts by itself: the estimate "
            f"counts up to {plural(two.high, 'run')} for the largest move in the range "
            f"({plural(st.largest_move, 'first-parent commit')})."
        )
    elif path:
        msg += f" If the culprit moves {path}, the second level inside {path} starts by itself."
    msg += " Next: bisect_run, or bisect_step for one point at a time."
    return StartResult(
        repo=str(top),
        good=st.good,
        bad=st.bad,
        submodule=path,
        level1_commits=len(items),
        expected_steps=total,
        settings=settings,
        state_dir=str(sdir),
        message=msg,
        notes=notes,
    )


@contextmanager
def _opened(repo: str, progress: Progress) -> Iterator[tuple[Engine, Path, Path]]:
    """The opening step and run share: lock, load, follow a moved repository, stop what a crash left."""
    top, sdir = _open(repo)
    _require(sdir)
    with shutdown.active(), lockfile.locked(sdir), _signals_as_interrupt():
        st = _load(sdir)
        _relocate(st, top)
        eng = Engine(top, sdir, st, progress)
        eng.recover()
        yield eng, top, sdir


def step(repo: str, progress: Progress = no_progress) -> StepResult:
    with _opened(repo, progress) as (eng, top, sdir):
        st = eng.st
        if st.phase == "done":
            if not st.finalized:
                eng.close(finished=True)
            return StepResult(line=f"The bisect is done. {st.message}", step=None, status=_status(eng, top, sdir))
        try:
            rec = _one_step(eng)
            eng.check_left()  # the working tree, when the probe let the step go without a full snapshot
        except ToolFailure as exc:
            _abandon(eng)
            raise _explained(exc, top, sdir) from None
        except BaseException:
            _abandon(eng)
            raise
        expected = eng.expected_total()
        line = step_line(rec, expected) if rec else f"Nothing left to test. {st.message}"
        if rec is not None and rec.round is not None:  # several devices: every point of the round
            line = "\n".join(step_line(s, expected) for s in st.steps if s.round == rec.round)
        progress(len(st.steps), expected, line)
        return StepResult(line=line, step=rec, status=_status(eng, top, sdir))


def run(repo: str, progress: Progress = no_progress) -> BisectStatus:
    with _opened(repo, progress) as (eng, top, sdir):
        st = eng.st
        eng.ahead = True
        try:
            while st.phase != "done":
                rec = _one_step(eng)
                if rec is not None:
                    progress(len(st.steps), eng.expected_total(), step_line(rec, eng.expected_total()))
            if not st.finalized:
                eng.close(finished=True)
        except ToolFailure as exc:
            _abandon(eng)
            raise _explained(exc, top, sdir) from None
        except BaseException:
            _abandon(eng)
            raise
        return _status(eng, top, sdir)


def status(repo: str) -> BisectStatus:
    top, sdir = _open(repo)
    try:
        st = statefile.load(sdir) if confine.check_folder(sdir) else None
    except (statefile.Untrusted, confine.NotOurs) as exc:
        return BisectStatus(
            repo=str(top), active=False, done=False, phase="none", state_dir=str(sdir), message=f"{exc}."
        )
    if st is None:
        return BisectStatus(
            repo=str(top),
            active=False,
            done=False,
            phase="none",
            state_dir=str(sdir),
            message="No bisect is recorded for this repository; start one with bisect_start.",
        )
    live = lockfile.holder(sdir)
    stale = lockfile.stale_holder(sdir) is not None
    eng = Engine(top, sdir, st)
    running = live.get("pid") if live else None
    return status_of(st, top, sdir, running, eng.expected_total(), stale=stale)


def _unlink_folder_link(top: Path, sdir: Path) -> ResetResult:
    target = os.readlink(sdir)
    os.unlink(sdir)  # the link only: what it points to is the user's
    return ResetResult(
        repo=str(top),
        removed=["link"],
        restored=None,
        message=f"Bisect reset: perfkit's folder {sdir} was a link to {target}; removed the link only, nothing "
        "it points to, and ran nothing.",
    )


def _restore_tail(logs: Path) -> str:
    try:
        return "\n".join((logs / "restore.log").read_text(errors="replace").splitlines()[-15:])
    except OSError:
        return ""


def reset(repo: str) -> ResetResult:
    top, sdir = _open(repo)
    if os.path.islink(sdir):
        return _unlink_folder_link(top, sdir)
    if not sdir.exists():
        return ResetResult(
            repo=str(top),
            removed=[],
            restored=None,
            message="Nothing to reset: no bisect is recorded for this repository.",
        )
    removed: list[str] = []
    restored = None
    tail = untrusted = ""
    with shutdown.active(), lockfile.locked(sdir), _signals_as_interrupt():
        try:
            st = statefile.load(sdir)
        except statefile.Untrusted as exc:
            st, untrusted = None, str(exc)
        except ToolFailure:
            st = None
        wt, parking, logs = work_paths(sdir, top)
        if st is not None:
            _relocate(st, top)
            eng = Engine(top, sdir, st)
            eng.recover()
            restored = eng.restore_environment()
            tail = _restore_tail(logs) if restored is False else ""
        existed = wt.exists()
        checkout = Checkout(top, wt, parking, st.settings.submodule if st else None, None)
        if untrusted:  # files only: no git command on a worktree that may be another copy's
            checkout.forget()
        else:
            checkout.remove()
            if remove_slots(top, sdir, st.settings.submodule if st else None):
                removed.append("device worktrees")
        if existed:
            removed.append("worktree")
        if logs.exists():
            removed.append("logs")
        if statefile.state_file(sdir).exists():
            removed.append("state")
        removed.append("lock")
        confine.remove_quietly(sdir.parent, sdir)  # inside the lock, as before: nobody takes a folder going away
    what = ", ".join(removed)
    if untrusted:
        env = "nothing was run or stopped, since the state was not one to trust (" + untrusted + ")"
    elif restored is None:
        env = "the environment did not need restoring"
    elif restored:
        env = "the install commands re-ran against your checkout"
    else:
        env = "re-running the install commands against your checkout FAILED; run them by hand. Last lines:\n" + tail
    return ResetResult(
        repo=str(top), removed=removed, restored=restored, message=f"Bisect reset: removed {what}; {env}."
    )


def _replaced(old: State) -> str:
    """What a new start removes: the finished bisect's answer, steps and logs."""
    if old.culprit is not None:
        found = f"culprit {_short(old.culprit.commit)}"
        if old.submodule_culprit is not None:
            found += f", in {old.submodule_culprit.path} {_short(old.submodule_culprit.commit)}"
    else:
        found = (old.outcome or "no culprit").replace("_", " ")
    return (
        f"this replaces the finished bisect of this repository ({found}; {plural(len(old.steps), 'step')}, started "
        f"{old.created}): its state and step logs are removed"
    )


def _clear(top: Path, sdir: Path, old: State | None) -> None:
    """Remove a finished bisect's leftovers (worktree, logs, state), keeping the lock we hold."""
    wt, parking, logs = work_paths(sdir, top)
    sub = old.settings.submodule if old else None
    Checkout(top, wt, parking, sub, None).remove()
    remove_slots(top, sdir, sub)
    for p in (logs, sdir / "worktree"):
        confine.remove_quietly(sdir, p)
    confine.remove_quietly(sdir, statefile.state_file(sdir))


def _relocate(st: State, top: Path) -> None:
    """The repository was moved since the last call: follow it (the state moved with its git dir)."""
    if st.repo == str(top):
        return
    old = st.repo
    st.notes.append(f"the repository moved from {old} to {top}; the bisect followed it")
    if st.submodule_source and st.submodule_source.startswith(old + "/"):
        st.submodule_source = str(top) + st.submodule_source[len(old) :]
    st.repo = str(top)
    st.worktree = None


def _open(repo: str) -> tuple[Path, Path]:
    top = gitrepo.open_repo(repo)
    return top, statefile.state_dir(top)


def _require(sdir: Path) -> None:
    """Refuse before taking the lock, which would create the bisect folder: bad input writes nothing."""
    if not statefile.state_file(sdir).is_file():
        raise InputError("repo", "no bisect is recorded for this repository", "start one with bisect_start")


def _load(sdir: Path) -> State:
    st = statefile.load(sdir)
    if st is None:
        raise InputError("repo", "no bisect is recorded for this repository", "start one with bisect_start")
    return st


def _explained(exc: ToolFailure, top: Path, sdir: Path) -> ToolFailure:
    """A git command that failed because the repository is being moved or deleted says so, not 'bad object'.

    A removal in progress takes a moment to reach the bisect's folder: look a few times."""
    for _ in range(5):
        if not statefile.state_file(sdir).is_file() or not (top / ".git").exists():
            return ToolFailure(
                f"the repository {top} was moved or deleted while the bisect ran; bisect_status at its new "
                "place shows what was kept"
            )
        time.sleep(0.1)
    return exc


def _abandon(eng: Engine) -> None:
    """Leave after an error or a stop: environment back to the user, worktree gone, state kept."""
    try:
        eng.close(finished=False)
    except BaseException:
        try:
            eng.save()
        except BaseException:
            pass


def _status(eng: Engine, top: Path, sdir: Path) -> BisectStatus:
    return status_of(eng.st, top, sdir, None, eng.expected_total())


def _one_step(eng: Engine) -> StepRecord | None:
    shutdown.check()
    rec = eng.step()
    if eng.st.phase == "done":
        eng.close(finished=True)
    return rec
