"""One worker slot on this machine: a worktree, a build record and an environment of its own.

A slot tests a point on the device a round gives it, or, with `build_ahead`, checks out and
installs a point the next round is likely to test while the devices run (a build made ahead).
Each slot runs its jobs one after another on a thread of its own, so a test given to a slot that
is still preparing that very point simply waits for the preparation to finish, and a test given
to a slot preparing something no longer wanted stops the preparation first (its install is killed
and its build record says "unknown", so nothing half-installed is ever trusted).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfkit.bisect.command import runner, shutdown
from perfkit.bisect.command.envs import WorkerEnv
from perfkit.bisect.command.tester import PointResult, PointTester, Side
from perfkit.bisect.command.tester import Tick as TesterTick
from perfkit.bisect.command.verdict import Classified
from perfkit.bisect.command.worktree import Checkout
from perfkit.bisect.models import BisectSettings
from perfkit.bisect.state.build_cache import BuildCache
from perfkit.bisect.state.point import Point
from perfkit.bisect.state.store import Build, State
from perfkit.bisect.workers import affinity
from perfkit.bisect.workers.devices import slot_paths, with_device, worker_id
from perfkit.bisect.workers.pool import Job

if TYPE_CHECKING:
    from perfkit.bisect.workers.hooks import Hooks


def device_settings(settings: BisectSettings, device: str | None) -> BisectSettings:
    """The settings as one device's worker sees them: `{device}` replaced in every command."""
    if device is None:
        return settings
    return settings.model_copy(
        update={
            "run": with_device(settings.run, device),
            "install": [with_device(c, device) for c in settings.install],
            "install_submodule": [with_device(c, device) for c in settings.install_submodule],
        }
    )


class Cancelled(BaseException):
    """A build made ahead that the search no longer wants (BaseException: nothing may swallow it)."""


class CachingTester(PointTester):
    """A point tester whose installs go through the build cache (build_cache.py)."""

    def __init__(self, *args: Any, cache: BuildCache, slot: int, env_dir: Path, **kw: Any):
        super().__init__(*args, **kw)
        self.cache, self.slot, self.env_dir = cache, slot, env_dir
        self.current: dict[str, str | None] = {"superproject": None, "submodule": None}
        self._point: Point | None = None

    def test(self, point: Point, step: int, log: runner.Log, tick: TesterTick) -> PointResult:
        self._point = point
        return super().test(point, step, log, tick)

    def prepare(self, point: Point, log: runner.Log) -> bool:
        self._point = point
        return super().prepare(point, log)

    def _install(
        self,
        side: Side,
        commands: list[str],
        cwd: Path,
        env: dict[str, str],
        log: runner.Log,
        tick: TesterTick,
        installed: list[Side],
    ) -> Classified | None:
        p = self._point
        assert p is not None
        s = self.settings
        built_with = p.submodule if side == "superproject" and not s.install_submodule else None
        commit = f"{p.superproject}:{built_with}" if side == "superproject" else str(p.submodule)
        key = self.cache.key(self.slot, side, commit, commands)
        exclude = s.submodule if side == "superproject" else None
        if self.cache.has(key):
            self.before_install()
            if self.cache.restore(key, self.current[side], self.env_dir, cwd):
                log.note(f"[perfkit: {side} at {commit[:12]} restored from the build cache; no install ran]\n")
                self.current[side] = key
                return None
        before = self.cache.listing(self.env_dir, cwd, exclude)
        self.current[side] = None
        failed = super()._install(side, commands, cwd, env, log, tick, installed)
        if failed is None:
            self.cache.store(key, before, self.cache.listing(self.env_dir, cwd, exclude), self.env_dir, cwd)
            self.current[side] = key
        return failed


class SlotWorker:
    """One slot: its checkout, build record, environment and the thread its jobs run on."""

    def __init__(
        self,
        repo: Path,
        sdir: Path,
        st: State,
        slot: int,
        sub_source: Path | None,
        hooks: Hooks,
        cache: BuildCache | None,
    ):
        self.slot = slot
        self.device: str | None = None  # the device of the job a round gave it
        self.own_device: str | None = None  # the one device this slot belongs to, when slots are bound
        self.bisect_id = st.id
        self.settings = st.settings
        self.hooks = hooks
        wt, parking, env_dir = slot_paths(sdir, repo, slot)
        self.checkout = Checkout(repo, wt, parking, st.settings.submodule, sub_source, st.settings.checkout_paths)
        self.env = WorkerEnv(env_dir, st.settings)
        self.build = hooks.builds.setdefault(f"slot-{slot}", Build(superproject_sub=None))
        start, before = self._on_start, self._before_install
        if cache is None or not self.env.active:
            self.tester = PointTester(repo, st.id, st.settings, self.checkout, self.build, start, before)
        else:
            self.tester = CachingTester(
                repo, st.id, st.settings, self.checkout, self.build, start, before, cache=cache, slot=slot,
                env_dir=env_dir,
            )  # fmt: skip
        self.log_cap = int(st.settings.log_cap_mb * 1024 * 1024)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"perfkit-slot-{slot}")
        self._cancel = threading.Event()
        self._building_ahead = threading.Event()  # set while this slot's thread makes a build ahead
        self._pgid: int | None = None
        self.ahead: Point | None = None  # the point prepared (or being prepared) here
        self.ahead_commands = 0  # install commands the build made ahead of `ahead` ran
        self._ahead_job: Future[None] | None = None

    # ---- what it holds -------------------------------------------------------------------------

    def holds(self, p: Point) -> bool:
        """Whether p's installs are done here (or being made ahead for it): testing it installs nothing."""
        if self.ahead == p and self._ahead_job is not None and not self._ahead_job.done():
            return True
        b, s = self.build, self.settings
        same_sub = s.install_submodule or b.superproject_sub == p.submodule  # else the superproject built it
        if s.install and (b.superproject != p.superproject or not same_sub):
            return False
        return not (s.install_submodule and p.submodule and b.submodule != p.submodule)

    def preparing(self) -> bool:
        return self._ahead_job is not None and not self._ahead_job.done()

    # ---- jobs ----------------------------------------------------------------------------------

    def submit_test(self, job: Job) -> Future[PointResult]:
        if self.preparing() and self.ahead != job.point:
            self.cancel()
        return self._thread.submit(self._test, job)

    def submit_prepare(self, point: Point, log: Path) -> None:
        if self.preparing():
            self.cancel()
        self.ahead = point
        self._ahead_job = self._thread.submit(self._prepare, point, log)

    def cancel(self) -> None:
        """Stop the build made ahead, if one is running: its install is killed, its record left unknown."""
        if not self.preparing():
            return
        self._cancel.set()
        pgid = self._pgid
        if pgid is not None:
            runner.kill_group(pgid)

    def wait(self) -> None:
        job = self._ahead_job
        if job is not None:
            try:
                job.result()
            except BaseException:  # a build made ahead that failed or was stopped only costs the install later
                pass

    def close(self) -> None:
        self.cancel()
        self._thread.shutdown(wait=True)

    def _on_start(self, pid: int) -> None:
        self._pgid = pid
        if self._ahead_thread():
            self.hooks.track(pid)
        else:
            self.hooks.on_start(pid)

    def _before_install(self) -> None:
        if not self._ahead_thread():  # a build ahead writes only this slot's environment: no state to save
            self.hooks.before_install()

    def _ahead_thread(self) -> bool:
        return self._building_ahead.is_set()

    def _check(self) -> None:
        shutdown.check()
        if self._cancel.is_set():
            raise Cancelled()

    def _test(self, job: Job) -> PointResult:
        # held by the rule that skips installs (same files): a pointer-only bump shares its parent's superproject build
        prepared = self.ahead == job.point and (self.holds(job.point) or self.tester.built_for(job.point))
        log = runner.Log(job.log, self.log_cap)
        try:
            device = self.device
            self.tester.settings = device_settings(self.settings, device)
            self.tester.check_stop = shutdown.check
            self.tester.before_run = self._check_affinity
            self.tester.extra_env = {
                "PERFKIT_DEVICE": device or "",
                "PERFKIT_BISECT_ID": worker_id(self.bisect_id, self.slot),
                **self.env.ensure(),
            }
            log.note(
                f"perfkit step {job.n} ({job.point.phase}) on device {device}: superproject "
                f"{job.point.superproject}, submodule {job.point.submodule or '-'}\n"
            )
            if prepared:
                log.note(f"[perfkit: installed ahead in slot {self.slot} while the previous round ran]\n")
            res = self.tester.test(job.point, job.n, log, lambda _activity: lambda _s: None)
            res.prepared = prepared and not res.installed
            res.ahead_commands = self.ahead_commands if prepared else 0
            self.ahead_commands = 0
            return res
        finally:
            self._pgid = None
            log.close()

    def _check_affinity(self, point: Point) -> None:
        affinity.check(point, self.slot, self.device, self.own_device, self.tester.built_for(point))

    def _prepare(self, point: Point, log_path: Path) -> None:
        self._cancel.clear()
        self._building_ahead.set()
        log = runner.Log(log_path, self.log_cap)
        try:
            self.tester.settings = self.settings
            self.tester.check_stop = self._check
            self.tester.extra_env = {"PERFKIT_BISECT_ID": worker_id(self.bisect_id, self.slot), **self.env.ensure()}
            log.note(
                f"perfkit build ahead in slot {self.slot}: superproject {point.superproject}, "
                f"submodule {point.submodule or '-'}\n"
            )
            if self._cancel.is_set():
                raise Cancelled()
            self.ahead_commands = 0
            before = self.tester.install_commands
            try:
                ok = self.tester.prepare(point, log)
            finally:
                self.ahead_commands = self.tester.install_commands - before
                self.hooks.count_ahead(self.ahead_commands)
            log.note("[perfkit: ready]\n" if ok else "[perfkit: the install failed; the test will install again]\n")
        except Cancelled:
            log.note("[perfkit: no longer wanted; stopped]\n")
        finally:
            self._pgid = None
            self._building_ahead.clear()
            self.tester.check_stop = shutdown.check
            self.hooks.save_builds()
            log.close()

    def remove(self) -> None:
        self.checkout.remove()
        self.env.remove()
