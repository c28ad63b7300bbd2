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
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path

from perfkit.bisect.command import shutdown
from perfkit.bisect.command.tester import PointResult
from perfkit.bisect.command.worktree import Checkout
from perfkit.bisect.state import confine
from perfkit.bisect.state.build_cache import BuildCache
from perfkit.bisect.state.point import Point
from perfkit.bisect.state.store import Build, State
from perfkit.bisect.workers import affinity
from perfkit.bisect.workers.devices import slot_paths, workers_dir
from perfkit.bisect.workers.hooks import Hooks
from perfkit.bisect.workers.pool import Job, OnDone, Tick
from perfkit.bisect.workers.slot import SlotWorker, device_settings
from perfkit.guards import private_dirs

__all__ = ["LocalPool", "device_settings", "remove_slots"]

BUILDS = "builds.json"


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
        private_dirs.make_dir(workers_dir(sdir))
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

        A point listed k times is wanted in k slots (the next round runs it on k devices). A copy some idle
        slot already holds is not built again; a slot holding a wanted copy is kept."""
        idle = [w for w in self.workers if w not in busy]
        keep: list[SlotWorker] = []
        todo: list[Point] = []
        for p in points:
            w = next((w for w in idle if w not in keep and w.holds(p)), None)
            if w is None:
                todo.append(p)
            else:
                keep.append(w)
        spare = [w for w in idle if w not in keep]
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
