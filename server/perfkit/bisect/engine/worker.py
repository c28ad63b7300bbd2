"""The local worker: tests points on this machine, in the bisect's private worktree, one at a time.

It owns what a point's test needs around it: the checkout, the step's log file, the progress
heartbeat, and recording the command's process group before it runs (so a resume after kill -9
can stop it). The verdict itself comes from the point tester; the record it returns is what the
planner reads and the state keeps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from perfkit.bisect.command import runner
from perfkit.bisect.command.tester import PointResult, PointTester
from perfkit.bisect.command.worktree import Checkout
from perfkit.bisect.models import StepRecord
from perfkit.bisect.state.point import Point
from perfkit.bisect.state.store import State
from perfkit.errors import ToolFailure
from perfkit.tools.spec import Progress


class LocalWorker:
    def __init__(
        self,
        repo: Path,
        st: State,
        checkout: Checkout,
        logs: Path,
        save: Callable[[bool], None],
        progress: Progress,
    ):
        self.st = st
        self.checkout = checkout
        self.logs = logs
        self._save = save
        self.progress = progress
        self.last_commands = 0  # install commands the last test ran
        self.tester = PointTester(
            repo, st.id, st.settings, checkout, st.build, on_start=self.on_start, before_install=self._worktree_env
        )

    def on_start(self, pid: int) -> None:
        """Record the command's process group first, so a resume after kill -9 can stop it. Best effort:
        on a full disk the command still runs, and a resume finds it by its marker anyway."""
        self.st.active_pgid = pid
        try:
            self._save(False)
        except ToolFailure:
            pass

    def _worktree_env(self) -> None:
        if self.st.environment != "worktree":
            self.st.environment = "worktree"
            self._save(True)

    def test(self, point: Point, n: int, label: tuple[str, str], total: int) -> StepRecord:
        """Test point as step n (of about total) and return its record; label is (short, subject)."""
        short_label, subject = label
        head = f"Step {n} of about {total}: {short_label} {subject}"
        started = time.monotonic()
        log = runner.Log(self.logs / f"step-{n:03d}.log", int(self.st.settings.log_cap_mb * 1024 * 1024))

        def tick(activity: str) -> Callable[[float], None]:
            def beat(elapsed: float) -> None:
                self.progress(n - 1, total, f"{head}: {activity} {elapsed:.0f}s")

            return beat

        try:
            sub_name = self.st.settings.submodule or "submodule"
            log.note(
                f"perfkit step {n} ({point.phase}): superproject {point.superproject}, "
                f"{sub_name} {point.submodule or '-'}\n"
            )
            self.progress(n - 1, total, f"{head}: checking out")
            self.st.worktree = str(self.checkout.path)
            result: PointResult = self.tester.test(point, n, log, tick)
            self.last_commands = result.commands
        finally:
            log.close()
            self.st.active_pgid = None
        if log.error:
            self.st.notes.append(f"the log of step {n} is incomplete: {log.error}")
        self.st.notes += [f"before step {n}: {seen}" for seen in result.rebuilt]
        c = result.verdict
        return StepRecord(
            n=n,
            phase=point.phase,
            superproject=point.superproject,
            submodule=point.submodule,
            short=short_label,
            subject=subject,
            verdict=c.verdict,
            reason=c.reason,
            metric=c.metric,
            exit_code=result.exit_code,
            installed=list(result.installed),
            duration_s=round(time.monotonic() - started, 3),
            log=str(log.path),
            ran=result.ran,
            worktree_rebuilt=result.rebuilt,
            tested=result.tested,
        )
