"""One bisect on one repository, wired together: the planner, a worker, and the user's environment.

A tested point is a pair (superproject commit, submodule commit). The planner (planner.py, with
levels.py) decides which point comes next and what its verdict means; a worker (worker.py, with
the point tester in tester.py) tests it; the report (report.py) says what happened. The engine
takes one step at a time, keeps the state on disk after each, and on leaving gives the environment
back to the user's checkout and removes the worktree.
"""

from __future__ import annotations

import threading
from pathlib import Path

import psutil

from perfkit.bisect import report
from perfkit.bisect.command import runner, watch
from perfkit.bisect.command.envs import restore_devices
from perfkit.bisect.command.tester import command_env, saved_commands
from perfkit.bisect.command.worktree import Checkout
from perfkit.bisect.engine.rounds import Rounds
from perfkit.bisect.engine.worker import LocalWorker
from perfkit.bisect.models import StepRecord
from perfkit.bisect.search.bisection import DEFAULT, Strategy
from perfkit.bisect.search.planner import Planner
from perfkit.bisect.state import store as statefile
from perfkit.bisect.state.point import work_paths
from perfkit.bisect.state.store import State
from perfkit.bisect.state.verdict_memory import VerdictMemory
from perfkit.bisect.workers.devices import remove_local_folders, with_device, worker_id, worker_slots
from perfkit.bisect.workers.local import remove_slots
from perfkit.errors import ToolFailure
from perfkit.tools.spec import Progress, no_progress

__all__ = ["Engine", "work_paths"]


class CheckoutChanged(ToolFailure):
    """A step's commands changed the user's checkout (HEAD, a ref, the stash, the index, the submodule HEAD)."""


class Engine:
    def __init__(
        self, repo: Path, sdir: Path, st: State, progress: Progress = no_progress, strategy: Strategy = DEFAULT
    ):
        self.repo = repo
        self.sdir = sdir
        self.st = st
        self.progress = progress
        self.settings = st.settings
        self.save_lock = threading.RLock()
        self.planner = Planner(repo, st, strategy)
        self.sub_path = st.settings.submodule
        wt, parking, self.logs = work_paths(sdir, repo)
        self.checkout = Checkout(repo, wt, parking, self.sub_path, self.planner.sub_source, st.settings.checkout_paths)
        self.worker = LocalWorker(repo, st, self.checkout, self.logs, self.save, progress)
        self.memory = VerdictMemory(sdir, st.settings, st.id)
        self.rounds = Rounds(self) if st.settings.devices else None
        self.ahead = False  # build ahead (build_ahead): only a call that plays several rounds gains from it
        self._user: watch.Snapshot | None = None  # the user's checkout as it was after the last step
        self._unseen_from: int | None = None  # first step whose working tree edits are not compared yet

    def save(self, durable: bool = True) -> None:
        with self.save_lock:  # device workers save from their threads too
            statefile.save(self.sdir, self.st, durable)

    def expected_total(self) -> int:
        return self.planner.expected_total()

    def step(self) -> StepRecord | None:
        """Test one point and record it; None when there was nothing left to test."""
        if self.rounds is not None:  # several devices: one round of points at once
            before = self._snapshot()
            rec = self.rounds.step()
            self._compare(rec, before)
            return rec
        point = self.planner.next_point()
        if point is None:
            self.save()
            return None
        st, s = self.st, self.settings
        n = len(st.steps) + 1
        label = report.label(point, self.repo, self.planner.sub_source, self.sub_path)
        rec = self.memory.recall_step(point, n, label, st.steps)
        before = None
        if rec is None:
            before = self._snapshot()
            rec = self.worker.test(point, n, label, max(self.expected_total(), n))
            st.installs += self.worker.last_commands
            st.installs_saved += saved_commands(s, point, list(rec.installed))  # type: ignore[arg-type]
            self.memory.remember(rec)
            self.memory.save()
        st.steps.append(rec)
        self.planner.record(point, rec)
        self.planner.next_point()  # settle phase changes (level 1 found -> level 2 ...) so status is current
        self.save()
        if before is not None:
            self._compare(rec, before)
        return rec

    def _snapshot(self) -> watch.Snapshot | None:
        return self._user if self._user is not None else watch.take(self.repo, self.sub_path)

    def _compare(self, rec: StepRecord | None, before: watch.Snapshot | None) -> None:
        """Stop when the step changed the user's HEAD, refs, stash, index or submodule HEAD; note a
        working-tree change (the user may have edited files meanwhile). perfkit undoes nothing.

        When the probe (watch.probe) says nothing git writes moved, the snapshot stands without a git
        process; working tree edits of such steps are compared at the next full snapshot or at close."""
        self._user = after = watch.take(self.repo, self.sub_path, unless=self._user)
        if rec is None or before is None or after is None:
            return
        if after is before:
            if self._unseen_from is None:
                self._unseen_from = rec.n
            return
        self._differences(before, after, rec.n, rec)

    def check_left(self) -> None:
        """Leaving (the bisect closes, or a bisect_step call ends): compare the working tree (and, as a last
        net, the rest) for the steps no full snapshot has covered yet; only notes, nothing left to stop."""
        first, before = self._unseen_from, self._user
        if first is None or before is None:
            return
        after = watch.take(self.repo, self.sub_path)
        if after is None:
            return
        self._user = after
        last = self.st.steps[-1].n if self.st.steps else first
        notes = len(self.st.notes)
        self._differences(before, after, last, None, first)
        if len(self.st.notes) > notes:
            self.save()

    def _differences(
        self, before: watch.Snapshot, after: watch.Snapshot, n: int, rec: StepRecord | None, first: int | None = None
    ) -> None:
        stop, paths = watch.differences(before, after)
        first = self._unseen_from if first is None else first
        self._unseen_from = None
        when = f"step {n}" if first is None or first >= n else f"steps {first} to {n}"
        if paths:
            shown = ", ".join(paths[:5]) + (", ..." if len(paths) > 5 else "")
            self.st.notes.append(
                f"your checkout changed while {when} ran ({shown}): if you did not change it yourself, the "
                "step's commands wrote into it (by absolute path); perfkit does not undo that"
            )
        if stop and rec is None:  # leaving: the evidence is kept, there is no step left to stop
            self.st.notes.append(f"your checkout changed while {when} ran: {'; '.join(stop)}; perfkit does not undo it")
            return
        if not stop:
            if paths:
                self.save()
            return
        assert rec is not None  # a step is under way
        rec.checkout_changed = stop
        evidence = "; ".join(stop)
        own = (
            "perfkit's git commands in that step wrote only to its own worktree, each after proving that the "
            "worktree's git folder was the one perfkit made (in your checkout they only read)"
        )
        self.st.notes.append(
            f"your checkout changed while step {n} ran: {evidence}. The bisect stopped: {own}, so the step's "
            "commands made the change (or you did meanwhile); perfkit does not undo it"
        )
        self.save()
        raise CheckoutChanged(
            f"your checkout changed while step {n} ran: {evidence}. {own}, so the step's install or run commands "
            "made the change (or you did meanwhile); nothing was undone. The bisect stopped with its steps saved: "
            "fix the commands (they must not run git in your checkout), then bisect_run resumes"
        )

    # ---- leaving -------------------------------------------------------------------------------

    def restore_environment(self) -> bool | None:
        """Re-run the install commands against the user's own checkout; None when nothing to do."""
        st, s = self.st, self.settings
        if st.environment == "user":
            return None
        st.build.forget()
        if not s.install and not s.install_submodule:
            st.environment = "user"
            return None
        log = runner.Log(self.logs / "restore.log", int(s.log_cap_mb * 1024 * 1024))
        try:
            log.note(f"perfkit: re-running the install commands against {self.repo}\n")
            ok = self._reinstall_user(log)
        finally:
            log.close()
            st.active_pgid = None
        st.environment = "user" if ok else "unknown"
        if not ok:
            st.notes.append(
                f"re-running the install commands against your checkout failed (see {log.path}); run them by hand"
            )
        return ok

    def _reinstall_user(self, log: runner.Log) -> bool:
        """The install commands in the user's checkout, `{device}` replaced as the workers had it: once per
        device when the commands name the device (each device's place was written), else once."""
        s = self.settings
        sub_dir = self.repo / self.sub_path if self.sub_path else None
        on_start = self.worker.on_start
        ok = True
        sub_ready = sub_dir is not None and (sub_dir / ".git").exists()
        for dev in restore_devices(s):
            env = command_env(self.st.id, self.repo, sub_dir) | ({"PERFKIT_DEVICE": dev} if dev else {})
            if dev:
                log.note(f"perfkit: device {dev}\n")
            for cmd in s.install:
                self.st.installs_restore += 1
                ok = (
                    runner.run(with_device(cmd, dev), self.repo, env, s.install_timeout_s, log, on_start=on_start).ok
                    and ok
                )
            if not s.install_submodule or not sub_ready or sub_dir is None:
                continue
            for cmd in s.install_submodule:
                self.st.installs_restore += 1
                ok = (
                    runner.run(with_device(cmd, dev), sub_dir, env, s.install_timeout_s, log, on_start=on_start).ok
                    and ok
                )
        if s.install_submodule and not sub_ready:
            self.st.notes.append(
                f"your {self.sub_path} checkout is not initialised, so install_submodule was not re-run against it"
            )
        return ok

    def close(self, finished: bool) -> bool | None:
        """Remove the worktree, then give the user their environment back; the state stays for status.

        The worktree goes first, and is recorded gone at once: it is quick, while the restore re-runs
        install commands, and a client that ends a server kills it a few seconds after SIGTERM."""
        try:
            self.check_left()
        except ToolFailure:  # the checkout moved or went away: said elsewhere
            pass
        try:
            self.checkout.remove()
            if self.rounds is not None:
                self.rounds.close()
            remove_slots(self.repo, self.sdir, self.sub_path)
            if self.settings.backend == "ray":
                remove_local_folders(self.st.id)
            self.st.worktree = None
            self.save()
        finally:  # the restore runs even when removing failed (a full disk, a folder gone)
            restored = self.restore_environment()
        self.st.finalized = finished
        self.save()
        return restored

    def recover(self) -> None:
        """After a crash: stop commands the dead process left running (only ours, by marker), including
        children that left the command's process group."""
        pgid = self.st.active_pgid
        marker = f"PERFKIT_BISECT_ID={self.st.id}"
        if pgid:
            if any(runner.owned_by(pid, marker) for pid in _group_members(pgid)):
                runner.kill_group(pgid)
            self.st.active_pgid = None
        runner.sweep(marker)
        if self.settings.backend == "ray":
            remove_local_folders(self.st.id)  # actors that died with their cluster leave their folders here
        slots = len(self.settings.devices) + self.settings.build_ahead
        for slot in range(max(slots, worker_slots(self.sdir))):
            runner.sweep(f"PERFKIT_BISECT_ID={worker_id(self.st.id, slot)}")


def _group_members(pgid: int) -> list[int]:
    """Processes of process group pgid (through psutil, so it works where /proc does not exist)."""
    return [pid for pid in psutil.pids() if runner.process_group(pid) == pgid]
