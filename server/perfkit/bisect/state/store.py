"""The bisect's memory on disk, written so that a kill at any instant loses at most one step.

Everything lives in `<git common dir>/perfkit-bisect/`: state.json (replaced atomically after
every step), logs/, the worktree, and a lock naming the process that works on it (lock.py).
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from pathlib import Path
from typing import Literal

from pydantic import Field

from perfkit.base_model import Model
from perfkit.bisect.models import (
    BisectSettings,
    CommitRef,
    Culprit,
    Direction,
    Environment,
    Outcome,
    Phase,
    SearchName,
    StepRecord,
    SubmoduleCulprit,
    Verdict,
)
from perfkit.bisect.state import seal
from perfkit.errors import ToolFailure
from perfkit.repo import gitrepo

DIRNAME = "perfkit-bisect"


class PhaseData(Model):
    """One linear search: items in order, verdicts so far, and which verdict the implicit start has."""

    name: SearchName
    superproject: str | None = Field(default=None, description="fixed superproject commit (levels over the submodule)")
    items: list[str]
    marks: dict[int, Verdict] = Field(default_factory=dict)
    start_verdict: Literal["good", "bad"] = "good"


class PointMove(Model):
    path: str
    old: str | None
    new: str | None
    direction: Direction


class Build(Model):
    """What one checkout's environment was last installed from, so an install runs only when needed.

    None means unknown (never installed, or an install was cut off): the next point installs."""

    superproject: str | None = None
    superproject_sub: str | None = Field(default=None, description="submodule commit the superproject install saw")
    submodule: str | None = None

    def forget(self) -> None:
        self.superproject = self.superproject_sub = self.submodule = None


class State(Model):
    version: int = 1
    id: str
    identity: str = Field(default="", description="the git folder this state was written in (seal.identity)")
    repo: str
    good: str
    bad: str
    settings: BisectSettings
    submodule_name: str | None = None
    submodule_source: str | None = None
    created: str
    phase: Phase = "verify_good"
    level1: PhaseData
    level2: PhaseData | None = None
    largest_move: int = Field(default=0, description="submodule commits in the range's largest pointer move")
    culprit: Culprit | None = None
    move: PointMove | None = None
    submodule_culprit: SubmoduleCulprit | None = None
    sideways_base: str | None = Field(default=None, description="merge base of a sideways pointer move (level 2)")
    dropped: list[CommitRef] = Field(default_factory=list, description="a sideways move: commits only the old side has")
    dropped_count: int = 0
    candidates: list[CommitRef] = Field(default_factory=list)
    candidates_in: str | None = None
    outcome: Outcome | None = None
    message: str = ""
    reproduce_point: tuple[str, str | None] | None = None
    steps: list[StepRecord] = Field(default_factory=list)
    installs: int = 0
    installs_saved: int = 0
    builds_ahead: int = 0  # points prepared while a round ran (build_ahead)
    installs_ahead: int = 0  # install commands run by builds made ahead
    installs_ahead_used: int = 0  # of those, the ones whose build a test then used
    installs_restore: int = 0  # install commands run to give the user's checkout its environment back
    devices_now: dict[str, str] = Field(default_factory=dict)  # device -> the point its round gave it, while it runs
    build: Build = Field(default_factory=Build)
    environment: Environment = "user"
    worktree: str | None = None
    active_pgid: int | None = None
    confidence: dict[str, float] = Field(default_factory=dict, description="per search, when noise is on")
    notes: list[str] = Field(default_factory=list)
    finalized: bool = False


def state_dir(repo: Path) -> Path:
    common = gitrepo.git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    return Path(common) / DIRNAME


def state_file(sdir: Path) -> Path:
    return sdir / "state.json"


def write_atomic(path: Path, data: str, durable: bool = True) -> None:
    """Write data so that readers see the old file or the new one, never a torn one.

    The rename alone survives a killed process; durable also flushes to the disk, so the file
    survives a power cut (used at the end of every step, skipped for bookkeeping inside one)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        try:
            os.unlink(tmp)  # a leftover of a killed process with our pid, or a planted link: never followed
        except FileNotFoundError:
            pass
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)  # the user's alone
        try:
            view = memoryview(data.encode("utf-8"))
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        if durable:
            dfd = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        if not path.parent.is_dir():
            raise ToolFailure(
                f"the bisect folder {path.parent} is gone: the repository was moved or deleted "
                "while the bisect ran; bisect_status at its new place shows what was kept"
            ) from None
        raise ToolFailure(f"cannot save the bisect state in {path.parent}: {exc.strerror or exc}") from None


_SEAL = ',"seal":"'
_MAX_STATE = 256 * 1024 * 1024


class Untrusted(ToolFailure):
    """A state perfkit will run nothing from: not sealed by this user's perfkit, or written for another copy."""


def seal_text(st: State) -> str:
    body = st.model_dump_json()
    return body[:-1] + _SEAL + seal.mac(body) + '"}'


def save(sdir: Path, st: State, durable: bool = True) -> None:
    write_atomic(state_file(sdir), seal_text(st), durable)


def read_private(path: Path, limit: int = _MAX_STATE) -> str | None:
    """The text of a regular file of perfkit's folder, the last link not followed; None when missing."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a link where perfkit's file belongs
            raise Untrusted(f"{path} is a link; perfkit never follows it. bisect_reset removes it") from None
        raise ToolFailure(f"cannot read the bisect state {path}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Untrusted(f"{path} is not a regular file; bisect_reset removes it")
        if info.st_size > limit:
            raise Untrusted(f"{path} is {info.st_size} bytes, more than a bisect state holds; bisect_reset removes it")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode("utf-8", errors="replace")


def load(sdir: Path) -> State | None:
    """The state, checked: sealed by this user's perfkit, written for this copy of the repository, and
    every path in it where perfkit would put it. Raises Untrusted otherwise; None when there is none."""
    path = state_file(sdir)
    text = read_private(path)
    if text is None:
        return None
    cut = text.rfind(_SEAL)
    body, mark = (text[:cut] + "}", text[cut + len(_SEAL) : -2]) if cut > 0 and text.endswith('"}') else (text, "")
    if not mark or not seal.valid(body, mark):
        raise Untrusted(
            f"the bisect state {path} was not written by your perfkit (no valid seal: planted, edited by hand or by "
            "another tool, or written under another account); perfkit runs nothing from it. bisect_reset removes "
            "perfkit's folder and runs nothing"
        )
    try:
        st = State.model_validate_json(body)
    except ValueError:
        raise ToolFailure(
            f"the bisect state {path} is unreadable (written by another perfkit version?); bisect_reset removes it"
        ) from None
    here = seal.identity(sdir.parent)
    if st.identity != here:
        raise Untrusted(
            f"the bisect state {path} was written in another copy of this repository (copied with its .git while "
            "a bisect ran, or moved to another disk); perfkit runs and stops nothing from it here. bisect_reset "
            "removes perfkit's folder in this copy only"
        )
    _check_paths(st, sdir)
    return st


def _leaves(rel: str) -> bool:
    parts = rel.replace("\\", "/").split("/")
    return os.path.isabs(rel) or ".." in parts or not rel.strip()


def _check_paths(st: State, sdir: Path) -> None:
    """Paths a sealed state holds are still checked: perfkit deletes and runs commands under them."""
    s = st.settings
    bad = None
    if s.submodule is not None and _leaves(s.submodule):
        bad = f"settings.submodule {s.submodule!r} leads out of the checkout"
    elif s.run_cwd is not None and not os.path.isabs(s.run_cwd) and _leaves(s.run_cwd):
        bad = f"settings.run_cwd {s.run_cwd!r} leads out of the checkout"
    if bad:
        raise Untrusted(
            f"the bisect state {state_file(sdir)} is not one perfkit writes: {bad}; perfkit runs nothing from it. "
            "bisect_reset removes perfkit's folder and runs nothing"
        )
