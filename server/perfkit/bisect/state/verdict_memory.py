"""What a bisect already knows, kept so no point is run or built twice.

The verdict memory maps a point (superproject commit, submodule commit) to the verdict the check
gave there. It lives in `<git common dir>/perfkit-bisect/memory/`, one file per fingerprint of
the commands and patterns that decide a verdict (run, run_cwd, install, install_submodule, the
three patterns, the submodule path, the interpreter) and of the content of the files those
commands name outside the checkout (named_files.py: the check script): change any of them and
the old verdicts no longer apply, so they are not read. A memory file is sealed like the state
(seal.py): one planted or edited is ignored. It survives `bisect_start` (a wider range after a finished
bisect reuses what is known) and goes with `bisect_reset`, which removes every trace.

Across bisects good and bad verdicts are reused (a skip may have been a passing problem, such as
a full disk). A point the planner asks for again after this bisect answered it is a deliberate
repeat (the noise model asks) and runs; within a bisect, answers travel through its steps.

The build cache keeps what an install produced for a commit of one side (the superproject, or
the submodule) and puts it back when the search returns to that commit, so returning costs no
install: see builds.py.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from perfkit.base_model import Model
from perfkit.bisect.models import BisectSettings, StepRecord, Verdict
from perfkit.bisect.state import seal
from perfkit.bisect.state.named_files import named_files
from perfkit.bisect.state.point import Point
from perfkit.bisect.state.store import read_private, write_atomic
from perfkit.errors import ToolFailure
from perfkit.guards import private_dirs

_DECIDING = ("run", "run_cwd", "install", "install_submodule", "pass_pattern", "fail_pattern", "metric_pattern")


class Known(Model):
    verdict: Verdict
    reason: str
    metric: float | None = None
    bisect: str  # id of the bisect that ran it
    step: int


def fingerprint(settings: BisectSettings, extra: tuple[str, ...] = ()) -> str:
    """A short hash of everything that decides a verdict besides the point itself: the commands, the
    patterns, and the content of the files the commands name (a check script edited in place)."""
    parts = {k: getattr(settings, k) for k in _DECIDING}
    parts |= {"submodule": settings.submodule, "python": settings.python, "extra": list(extra)}
    parts["files"] = named_files(settings)
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


def memory_dir(sdir: Path) -> Path:
    return sdir / "memory"


class VerdictMemory:
    def __init__(self, sdir: Path, settings: BisectSettings, bisect_id: str):
        self.path = memory_dir(sdir) / f"verdicts-{fingerprint(settings)}.json"
        self.bisect_id = bisect_id
        self._lock = threading.Lock()
        self.known: dict[str, Known] = {}
        try:
            sealed = json.loads(read_private(self.path) or "{}")
            body = sealed.get("known", "")
            if seal.valid(body, sealed.get("seal", "")):
                self.known = {k: Known.model_validate(v) for k, v in json.loads(body).items()}
        except (OSError, ValueError, AttributeError, TypeError, ToolFailure):
            self.known = {}  # none yet, unreadable or not sealed by us: it only saves runs, so start afresh

    @staticmethod
    def key(superproject: str, submodule: str | None) -> str:
        return f"{superproject}:{submodule or '-'}"

    def recall(self, superproject: str, submodule: str | None) -> Known | None:
        """The verdict known at this point, if it may be reused by this bisect."""
        k = self.known.get(self.key(superproject, submodule))
        if k is None or (k.verdict == "skip" and k.bisect != self.bisect_id):
            return None
        return k

    def remember(self, rec: StepRecord) -> None:
        """Keep a step's verdict; only steps whose check ran or whose install failed say something."""
        if rec.remembered or not (rec.ran or rec.installed):
            return
        with self._lock:
            self.known[self.key(rec.superproject, rec.submodule)] = Known(
                verdict=rec.verdict, reason=rec.reason, metric=rec.metric, bisect=self.bisect_id, step=rec.n
            )

    def save(self) -> None:
        """Best effort: a memory that cannot be written costs reruns later, never the bisect."""
        with self._lock:
            body = json.dumps({k: v.model_dump() for k, v in self.known.items()})
        try:
            data = json.dumps({"known": body, "seal": seal.mac(body)})
            if self.path.parent.is_symlink():
                self.path.parent.unlink()  # planted in perfkit's folder: removed as a link, never followed
            private_dirs.make_dir(self.path.parent, parents=False)
            write_atomic(self.path, data, durable=False)
        except (OSError, ToolFailure):
            pass

    def recall_step(self, point: Point, n: int, label: tuple[str, str], steps: list[StepRecord]) -> StepRecord | None:
        """The step a remembered verdict stands for (nothing ran, nothing installed), or None to run it.

        Only a point this bisect has no step for is answered: a point asked again after this bisect
        answered it is a deliberate repeat (the noise model), and must run."""
        if any(s.superproject == point.superproject and s.submodule == point.submodule for s in steps):
            return None
        k = self.recall(point.superproject, point.submodule)
        if k is None:
            return None
        where = "this bisect" if k.bisect == self.bisect_id else "an earlier bisect"
        return StepRecord(
            n=n,
            phase=point.phase,
            superproject=point.superproject,
            submodule=point.submodule,
            short=label[0],
            subject=label[1],
            verdict=k.verdict,
            reason=f"remembered from step {k.step} of {where}: {k.reason}",
            metric=k.metric,
            ran=False,
            remembered=True,
        )
