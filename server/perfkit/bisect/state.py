"""The bisect's memory on disk, written so that a kill at any instant loses at most one step.

Everything lives in `<git common dir>/perfkit-bisect/`: state.json (replaced atomically after
every step), logs/, the worktree, and a lock naming the process that works on it (lock.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from perfkit import gitrepo
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
from perfkit.errors import ToolFailure

DIRNAME = "perfkit-bisect"


class PhaseData(BaseModel):
    """One linear search: items in order, verdicts so far, and which verdict the implicit start has."""

    name: SearchName
    superproject: str | None = Field(default=None, description="fixed superproject commit (levels over the submodule)")
    items: list[str]
    marks: dict[int, Verdict] = Field(default_factory=dict)
    start_verdict: Literal["good", "bad"] = "good"


class PointMove(BaseModel):
    path: str
    old: str | None
    new: str | None
    direction: Direction


class Build(BaseModel):
    """What one checkout's environment was last installed from, so an install runs only when needed.

    None means unknown (never installed, or an install was cut off): the next point installs."""

    superproject: str | None = None
    superproject_sub: str | None = Field(default=None, description="submodule commit the superproject install saw")
    submodule: str | None = None

    def forget(self) -> None:
        self.superproject = self.superproject_sub = self.submodule = None


class State(BaseModel):
    version: int = 1
    id: str
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
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
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


def save(sdir: Path, st: State, durable: bool = True) -> None:
    write_atomic(state_file(sdir), st.model_dump_json(), durable)


def load(sdir: Path) -> State | None:
    path = state_file(sdir)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ToolFailure(f"cannot read the bisect state {path}: {exc.strerror or exc}") from None
    try:
        return State.model_validate_json(text)
    except ValueError:
        raise ToolFailure(
            f"the bisect state {path} is unreadable (written by another perfkit version?); bisect_reset removes it"
        ) from None
