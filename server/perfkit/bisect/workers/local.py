"""Several devices on this machine: one worker slot per device, each with its own worktree and environment.

A slot (slot.py) is a point tester around a checkout in its own folder, a build record of its own
and its own environment (envs.py); a test's commands see `{device}` replaced by the device name
and `PERFKIT_DEVICE` set. The pool runs a round's points at once, one per device, each on its
slot's thread driving its command's process group, and hands the records back as they end. With
`build_ahead` the pool holds that many slots more: while the devices run a round, they check out
and install the points the next round is likely to test (rounds.likely_points), and the next
round gives each point to the slot that holds it.

Stopping: when the calling thread is interrupted (Ctrl-C, SIGTERM, an error) the pool kills the
process group of every command running (builds made ahead included), kills at birth any command a
slot starts afterwards, waits for the threads, and drops the points that had not finished: an
interrupted point is never recorded as a skip.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path

from perfkit.bisect import affinity, confine, runner, shutdown
from perfkit.bisect.build_cache import BuildCache
from perfkit.bisect.devices import slot_paths, workers_dir
from perfkit.bisect.envs import writes_user_env
from perfkit.bisect.point import Point
from perfkit.bisect.state import Build, State, write_atomic
from perfkit.bisect.tester import PointResult
from perfkit.bisect.workers.pool import Job, OnDone, Tick
from perfkit.bisect.workers.slot import SlotWorker, device_settings
from perfkit.bisect.worktree import Checkout
from perfkit.errors import ToolFailure

__all__ = ["LocalPool", "device_settings", "remove_slots"]

BUILDS = "builds.json"


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
        self.ahead_commands = 0  # install commands builds made ahead ran, not yet added to the state

    def count_ahead(self, n: int) -> None:
        with self.lock:
            self.ahead_commands += n

    def take_ahead(self) -> int:
        """The ahead install commands counted since the last call (the main thread adds them to the state)."""
        with self.lock:
            n, self.ahead_commands = self.ahead_commands, 0
            return n

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

    def track(self, pid: int) -> None:
        """A build made ahead started a command: kill it with the others on a stop, but write no state.

        Builds ahead run while the planner changes the state in the main thread; only that thread
        (and device threads while it waits for them) may save it. A resume finds the command by its
        marker, as after any kill -9."""
        with self.lock:
            if self.stopping.is_set():
                runner.kill_group(pid)
                return
            self.groups.add(pid)

    def before_install(self) -> None:
        with self.lock:
            self.save_builds()
            if self.st.environment != "worktree" and writes_user_env(self.st.settings):
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


class LocalPool:
    """The devices of this machine: one slot each, and `build_ahead` slots more that prepare."""

    def __init__(self, repo: Path, sdir: Path, st: State, sub_source: Path | None, save: Callable[[bool], None]):
        builds = load_builds(sdir)
        if workers_dir(sdir).is_symlink():
            workers_dir(sdir).unlink()  # planted in perfkit's folder: removed as a link, never followed
        workers_dir(sdir).mkdir(parents=True, exist_ok=True)
        self.hooks = Hooks(st, save, workers_dir(sdir) / BUILDS, builds)
        s = st.settings
        self.devices = list(s.devices)
        self.logs = sdir / "logs"
        cache = BuildCache(workers_dir(sdir) / "build-cache", s.cache_limit_mb) if s.cache_builds else None
        slots = len(s.devices) + s.build_ahead
        self.bound = affinity.bound(s.build_ahead)
        self.workers = [SlotWorker(repo, sdir, st, i, sub_source, self.hooks, cache) for i in range(slots)]
        if self.bound:  # a build may depend on its device: slot k is device k's for the whole bisect
            for w, d in zip(self.workers, self.devices, strict=True):
                w.own_device = d

    def assign(self, points: list[Point], keep: list[Point] | None = None) -> list[tuple[Point, SlotWorker]]:
        """Give each point a slot and a device: the slot holding its installs first, then one holding its
        submodule, then one holding nothing `keep` (the points likely next) wants.

        Bound slots (affinity.py) bring their own device; otherwise (build_ahead: no build depends on
        the device) the round's devices go to the chosen slots in turn and each build moves with its slot."""
        free = list(self.workers)
        chosen: dict[int, SlotWorker] = {}
        for k, p in enumerate(points):
            w = next((w for w in free if w.holds(p)), None)
            if w is not None:
                chosen[k] = w
                free.remove(w)
        wanted = keep or []
        for k, p in enumerate(points):
            if k in chosen:
                continue
            spare = [w for w in free if not any(w.holds(q) for q in wanted)] or free
            w = next((w for w in spare if p.submodule and w.build.submodule == p.submodule), spare[0])
            chosen[k] = w
            free.remove(w)
        out = []
        for k, p in enumerate(points):
            w = chosen[k]
            w.device = w.own_device if self.bound else self.devices[k]
            out.append((p, w))
        return out

    def prepare(self, points: list[Point], busy: list[SlotWorker]) -> int:
        """Start building `points` (most likely first) on the slots no test of this round uses; how many started.

        A point some slot already holds is not built again; a slot holding another wanted point is kept."""
        idle = [w for w in self.workers if w not in busy]
        todo = [p for p in points if not any(w.holds(p) for w in idle)]
        spare = [w for w in idle if not any(w.holds(q) for q in points)]
        started = 0
        for p in todo:
            if not spare:
                break
            w = next((w for w in spare if p.submodule and w.build.submodule == p.submodule), spare[0])
            spare.remove(w)
            w.submit_prepare(p, self.logs / f"ahead-slot-{w.slot}.log")
            started += 1
        return started

    def run(
        self,
        jobs: list[tuple[Job, SlotWorker]],
        on_done: OnDone,
        tick: Tick,
    ) -> None:
        """Test every job at once; on_done(job, device, result, seconds) runs in this thread as each ends."""
        self.hooks.stopping.clear()
        started = time.monotonic()
        futures: dict[Future[PointResult], tuple[Job, SlotWorker]] = {w.submit_test(j): (j, w) for j, w in jobs}
        try:
            pending, count = set(futures), 0
            while pending:
                shutdown.check()  # a cancelled call stops the round as Ctrl-C does
                finished, pending = wait(pending, timeout=1.0, return_when=FIRST_COMPLETED)
                for f in finished:
                    job, w = futures[f]
                    count += 1
                    on_done(job, w.device or "", f.result(), round(time.monotonic() - started, 3))
                tick(count, len(jobs))
        except BaseException:
            self.stop()
            raise
        finally:
            self.hooks.save_builds()
            with self.hooks.lock:
                self.hooks.st.active_pgid = None

    def device_of(self, worker: SlotWorker) -> str:
        return worker.device or ""

    def take_ahead(self) -> int:
        return self.hooks.take_ahead()

    def stop(self) -> None:
        """Kill every command of every slot and wait for the slots' threads."""
        self.hooks.stop()
        for w in self.workers:
            w.cancel()
        self.close()

    def close(self) -> None:
        """Stop the builds made ahead and wait for every slot's thread (before the worktrees go)."""
        for w in self.workers:
            w.close()
        with self.hooks.lock:
            self.hooks.groups.clear()
        self.hooks.save_builds()

    def remove(self) -> None:
        for w in self.workers:
            w.remove()


def remove_slots(repo: Path, sdir: Path, sub_path: str | None) -> bool:
    """Remove every device worker's worktree and environment found on disk (also after a crash, when
    the settings that named the devices may be gone); whether there was anything."""
    base = workers_dir(sdir)
    if base.is_symlink():
        base.unlink()  # planted: removed as a link, never followed
        return True
    if not base.exists():
        return False
    for slot_dir in sorted(base.glob("slot-*")):
        try:
            slot = int(slot_dir.name.split("-", 1)[1])
        except ValueError:
            continue
        wt, parking, env_dir = slot_paths(sdir, repo, slot)
        if confine.within(base, slot_dir):  # a slot folder that is a link is only unlinked below
            Checkout(repo, wt, parking, sub_path, None).remove()
            confine.remove_quietly(slot_dir, env_dir)
    confine.remove_quietly(sdir, base)
    return True
