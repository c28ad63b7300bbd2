"""Several devices on this machine: one worker per device, each with its own worktree and environment.

A worker is a point tester (tester.py) around a checkout in the device's slot folder, a build
record of its own and its own environment (envs.py); its commands see `{device}` replaced by the
device name and `PERFKIT_DEVICE` set. The pool runs a round's points in threads, one per device,
each thread driving its command's process group, and hands the records back in point order.

Stopping: when the calling thread is interrupted (Ctrl-C, SIGTERM, an error) the pool kills the
process group of every command running, kills at birth any command a worker starts afterwards,
waits for the threads, and drops the points that had not finished: an interrupted point is
never recorded as a skip.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from perfkit.bisect import runner
from perfkit.bisect.build_cache import BuildCache
from perfkit.bisect.devices import slot_paths, with_device, worker_id, workers_dir
from perfkit.bisect.envs import WorkerEnv
from perfkit.bisect.models import BisectSettings
from perfkit.bisect.point import Point
from perfkit.bisect.state import Build, State, write_atomic
from perfkit.bisect.tester import PointResult, PointTester, Side
from perfkit.bisect.tester import Tick as TesterTick
from perfkit.bisect.verdict import Classified
from perfkit.bisect.workers.pool import Job, OnDone, Tick
from perfkit.bisect.worktree import Checkout
from perfkit.errors import ToolFailure

BUILDS = "builds.json"


def device_settings(settings: BisectSettings, device: str) -> BisectSettings:
    """The settings as one device's worker sees them: `{device}` replaced in every command."""
    return settings.model_copy(
        update={
            "run": with_device(settings.run, device),
            "install": [with_device(c, device) for c in settings.install],
            "install_submodule": [with_device(c, device) for c in settings.install_submodule],
        }
    )


class Hooks:
    """What workers may do to the shared state, under one lock: record a command's process group,
    mark the environment as pointing away from the user, save."""

    def __init__(self, st: State, save: Callable[[bool], None], builds_path: Path, builds: dict[str, Build]):
        self.st = st
        self._save = save
        self.lock = threading.RLock()
        self.stopping = threading.Event()
        self.groups: set[int] = set()
        self.builds_path = builds_path
        self.builds = builds

    def on_start(self, pid: int) -> None:
        with self.lock:
            if self.stopping.is_set():
                runner.kill_group(pid)
                return
            self.groups.add(pid)
            self.st.active_pgid = pid
            try:
                self._save(False)
            except ToolFailure:
                pass  # best effort: a resume finds the command by its marker anyway

    def before_install(self) -> None:
        with self.lock:
            self.save_builds()
            if self.st.environment != "worktree":
                self.st.environment = "worktree"
                self._save(True)

    def save_builds(self) -> None:
        with self.lock:
            data = json.dumps({k: b.model_dump() for k, b in self.builds.items()})
            try:
                write_atomic(self.builds_path, data, durable=False)
            except ToolFailure:
                pass  # losing it costs reinstalls, never a wrong verdict: a missing record means "unknown"

    def stop(self) -> None:
        with self.lock:
            self.stopping.set()
            for pgid in self.groups:
                runner.kill_group(pgid)


def load_builds(sdir: Path) -> dict[str, Build]:
    try:
        raw = json.loads((workers_dir(sdir) / BUILDS).read_text(encoding="utf-8"))
        return {k: Build.model_validate(v) for k, v in raw.items()}
    except (OSError, ValueError):
        return {}


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
        failed = super()._install(side, commands, cwd, env, log, tick, installed)
        self.current[side] = None
        if failed is None:
            self.cache.store(key, before, self.cache.listing(self.env_dir, cwd, exclude), self.env_dir, cwd)
            self.current[side] = key
        return failed


class SlotWorker:
    """One device's worker: its checkout, build record and environment."""

    def __init__(
        self,
        repo: Path,
        sdir: Path,
        st: State,
        slot: int,
        device: str,
        sub_source: Path | None,
        hooks: Hooks,
        cache: BuildCache | None,
    ):
        self.device = device
        self.slot = slot
        self.bisect_id = st.id
        wt, parking, env_dir = slot_paths(sdir, repo, slot)
        self.checkout = Checkout(repo, wt, parking, st.settings.submodule, sub_source)
        self.env = WorkerEnv(env_dir, st.settings)
        self.build = hooks.builds.setdefault(f"slot-{slot}", Build(superproject_sub=None))
        settings = device_settings(st.settings, device)
        start, before = hooks.on_start, hooks.before_install
        if cache is None or not self.env.active:
            self.tester = PointTester(repo, st.id, settings, self.checkout, self.build, start, before)
        else:
            self.tester = CachingTester(
                repo, st.id, settings, self.checkout, self.build, start, before, cache=cache, slot=slot, env_dir=env_dir
            )
        self.log_cap = int(st.settings.log_cap_mb * 1024 * 1024)

    def test(self, job: Job) -> PointResult:
        log = runner.Log(job.log, self.log_cap)
        try:
            self.tester.extra_env = {
                "PERFKIT_DEVICE": self.device,
                "PERFKIT_BISECT_ID": worker_id(self.bisect_id, self.slot),
                **self.env.ensure(),
            }
            log.note(
                f"perfkit step {job.n} ({job.point.phase}) on device {self.device}: superproject "
                f"{job.point.superproject}, submodule {job.point.submodule or '-'}\n"
            )
            return self.tester.test(job.point, job.n, log, lambda _activity: lambda _s: None)
        finally:
            log.close()

    def remove(self) -> None:
        self.checkout.remove()
        self.env.remove()


class LocalPool:
    """The devices of this machine, one worker each."""

    def __init__(self, repo: Path, sdir: Path, st: State, sub_source: Path | None, save: Callable[[bool], None]):
        builds = load_builds(sdir)
        workers_dir(sdir).mkdir(parents=True, exist_ok=True)
        self.hooks = Hooks(st, save, workers_dir(sdir) / BUILDS, builds)
        s = st.settings
        cache = BuildCache(workers_dir(sdir) / "build-cache", s.cache_limit_mb) if s.cache_builds else None
        self.workers = [
            SlotWorker(repo, sdir, st, i, d, sub_source, self.hooks, cache) for i, d in enumerate(s.devices)
        ]

    def assign(self, points: list[Point]) -> list[tuple[Point, SlotWorker]]:
        """Give each point a worker, preferring one whose environment already holds its submodule."""
        free = list(self.workers)
        out: list[tuple[Point, SlotWorker]] = []
        for p in points:
            w = next((w for w in free if p.submodule and w.build.submodule == p.submodule), free[0])
            free.remove(w)
            out.append((p, w))
        return out

    def run(
        self,
        jobs: list[tuple[Job, SlotWorker]],
        on_done: OnDone,
        tick: Tick,
    ) -> None:
        """Test every job at once; on_done(job, device, result, seconds) runs in this thread as each ends."""
        self.hooks.stopping.clear()
        self.hooks.groups.clear()
        with ThreadPoolExecutor(max_workers=len(jobs), thread_name_prefix="perfkit-device") as ex:
            started = time.monotonic()
            futures: dict[Future[PointResult], tuple[Job, SlotWorker]] = {ex.submit(w.test, j): (j, w) for j, w in jobs}
            try:
                pending, count = set(futures), 0
                while pending:
                    finished, pending = wait(pending, timeout=1.0, return_when=FIRST_COMPLETED)
                    for f in finished:
                        job, w = futures[f]
                        count += 1
                        on_done(job, w.device, f.result(), round(time.monotonic() - started, 3))
                    tick(count, len(jobs))
            except BaseException:
                self.hooks.stop()
                raise
            finally:
                self.hooks.save_builds()
                with self.hooks.lock:
                    self.hooks.st.active_pgid = None

    def remove(self) -> None:
        for w in self.workers:
            w.remove()


def remove_slots(repo: Path, sdir: Path, sub_path: str | None) -> bool:
    """Remove every device worker's worktree and environment found on disk (also after a crash, when
    the settings that named the devices may be gone); whether there was anything."""
    base = workers_dir(sdir)
    if not base.exists():
        return False
    for slot_dir in sorted(base.glob("slot-*")):
        try:
            slot = int(slot_dir.name.split("-", 1)[1])
        except ValueError:
            continue
        wt, parking, env_dir = slot_paths(sdir, repo, slot)
        Checkout(repo, wt, parking, sub_path, None).remove()
        shutil.rmtree(env_dir, ignore_errors=True)
    shutil.rmtree(base, ignore_errors=True)
    return True
