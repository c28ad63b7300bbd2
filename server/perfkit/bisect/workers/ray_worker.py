"""Several machines: the devices are Ray resources, and each point runs in a Ray actor holding one.

Loaded only with `backend = "ray"`; nothing else in perfkit imports ray. The driver (the process
running bisect_run) connects to the cluster named by RAY_ADDRESS (`ray start --head` on one
machine, `ray start --address=...` on the others), or starts a local one when there is none, and
creates one actor per entry of `devices`, each asking for one unit of the `ray_resource` resource
(default `NPU`; a plugin such as ray-ascend, or `ray start --resources='{"NPU": 8}'`, declares
them). An actor keeps, in the temporary folder of its node, its own bare clone of the repository
(from `ray_repo`: a path on a shared filesystem or a URL the node can reach; default the
repository's own path), a bare clone of the submodule (the submodule's URL in `.gitmodules` when
`ray_repo` is a URL, else the user's local submodule store), a worktree and an environment, and
tests points with the same point tester as the local workers. Results go back to the driver,
which alone writes the bisect's state, so a killed driver resumes as with local devices.

PERFKIT_DEVICE is the accelerator id Ray gave the actor for that resource when Ray tracks ids
for it (GPU, NPU with the Ascend plugin), else the name listed in `devices`.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
import time
from pathlib import Path
from typing import Any

import ray  # type: ignore[import-not-found,unused-ignore]  # optional extra perfkit[ray]: absent without it

from perfkit.bisect.command import provenance, runner, shutdown
from perfkit.bisect.command.envs import WorkerEnv, writes_user_env
from perfkit.bisect.command.tester import PointResult, PointTester
from perfkit.bisect.command.verdict import Classified
from perfkit.bisect.command.worktree import Checkout
from perfkit.bisect.models import BisectSettings, Phase, TestedPackage
from perfkit.bisect.state.point import Point
from perfkit.bisect.state.store import Build, State
from perfkit.bisect.workers import ray_preflight
from perfkit.bisect.workers.devices import ray_folder, remove_local_folders, worker_id
from perfkit.bisect.workers.pool import Job, OnDone, Tick
from perfkit.bisect.workers.slot import device_settings
from perfkit.errors import ToolFailure
from perfkit.guards import private_dirs
from perfkit.repo import gitrepo

# scp-like "host@name:path": the first '@' past the first character is the only one worth trying.
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://|^[^/][^/@]*+@[^/]+:")


class DeviceActor:
    """One accelerator of the cluster: its clone, worktree, environment and running commands."""

    def __init__(
        self,
        bisect_id: str,
        slot: int,
        fallback: str,
        settings_json: str,
        repo_src: str,
        sub_src: str,
        env: dict[str, str],
    ):
        # the driver's environment (driver_env), before anything reads one: the process is this actor's alone.
        # Given as an argument, not as Ray's runtime_env, which makes Ray start a worker of its own per actor
        # (5 s against 0.5 to 2.7 s for two actors here, bench/bench_ray_rounds.py)
        os.environ.update(env)
        self.bisect_id, self.slot = bisect_id, slot
        self.settings = BisectSettings.model_validate_json(settings_json)
        self.repo_src, self.sub_src = repo_src, sub_src
        self.base = ray_folder(bisect_id, slot)
        ids = ray.get_runtime_context().get_accelerator_ids().get(self.settings.ray_resource) or []
        self.device = str(ids[0]) if ids else fallback
        self.groups: set[int] = set()
        self.lock = threading.Lock()
        self.stopping = False
        self.tester: PointTester | None = None

    def name(self) -> str:
        return self.device

    def _ready(self) -> PointTester:
        if self.tester is not None:
            return self.tester
        repo, sub_store = self.base / "repo.git", self.base / "sub.git"
        private_dirs.make_dir(self.base)
        if not (repo / "HEAD").exists():
            gitrepo.git(self.base, "clone", "--quiet", "--bare", "--", self.repo_src, str(repo))
        sub_path = self.settings.submodule
        if sub_path and self.sub_src and not (sub_store / "HEAD").exists():
            gitrepo.git(self.base, "clone", "--quiet", "--bare", "--", self.sub_src, str(sub_store))
        name = Path(self.repo_src.rstrip("/")).name.removesuffix(".git") or "repo"
        checkout = Checkout(
            repo,
            self.base / "wt" / name,
            self.base / "parked",
            sub_path,
            sub_store if sub_path else None,
            self.settings.checkout_paths,
        )
        settings = device_settings(self.settings, self.device)
        self.env = WorkerEnv(self.base / "env", self.settings)
        self.tester = PointTester(
            repo, self.bisect_id, settings, checkout, Build(superproject_sub=None), self._start, _nothing
        )
        return self.tester

    def _start(self, pid: int) -> None:
        with self.lock:
            if self.stopping:
                runner.kill_group(pid)
            self.groups.add(pid)

    def test(self, phase: Phase, index: int | None, sup: str, sub: str | None, n: int) -> dict[str, Any]:
        tester = self._ready()
        tester.extra_env = {
            "PERFKIT_DEVICE": self.device,
            "PERFKIT_BISECT_ID": worker_id(self.bisect_id, self.slot),
            **self.env.ensure(),
        }
        logs = self.base / "logs"
        log = runner.Log(logs / f"step-{n:03d}.log", int(self.settings.log_cap_mb * 1024 * 1024))
        shadowed = None
        try:
            log.note(f"perfkit step {n} ({phase}) on {socket.gethostname()} device {self.device}\n")
            res = tester.test(Point(phase, index, sup, sub), n, log, lambda _a: lambda _s: None)
        except provenance.ShadowedImport as exc:  # the driver raises it: an error, never a verdict
            shadowed, res = str(exc), PointResult(Classified("skip", "shadowed", None))
        finally:
            log.close()
        text = log.path.read_bytes() if log.path.exists() else b""
        log.path.unlink(missing_ok=True)
        c = res.verdict
        return {
            "verdict": c.verdict, "reason": c.reason, "metric": c.metric, "ran": res.ran,
            "exit_code": res.exit_code, "installed": list(res.installed), "log": text, "shadowed": shadowed,
            "tested": [t.model_dump() for t in res.tested],
        }  # fmt: skip

    def stop(self) -> None:
        with self.lock:
            self.stopping = True
            for g in self.groups:
                runner.kill_group(g)
        runner.sweep(f"PERFKIT_BISECT_ID={worker_id(self.bisect_id, self.slot)}")

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)


def _nothing() -> None:
    return None


class RayPool:
    """The devices of a Ray cluster, one actor each; the driver records, the actors only test."""

    def __init__(self, repo: Path, sdir: Path, st: State, sub_source: Path | None, save: Any):
        s = st.settings
        n = len(s.devices)
        self.started_ray = ray_preflight.connect(s.ray_resource, n)  # bounded; one clear error when it fails
        ray_preflight.check_resources(s.ray_resource, n, self.started_ray)
        self.st, self.save = st, save
        self.lost = False
        self.finished = 0  # tasks the actors finished: actors dying before the first one may be a refused token
        repo_src = s.ray_repo or str(repo)
        sub_src = str(sub_source or "")
        if s.ray_repo and _URL.match(s.ray_repo) and s.submodule:
            sub_src = _submodule_url(repo, st) or sub_src
        actor = ray.remote(DeviceActor)
        opts = ray_preflight.actor_options(s.ray_resource)
        free = ray_preflight.free_units(s.ray_resource)
        env = driver_env()
        self.actors: list[Any] = [  # ray handles: their methods are reached through .remote
            actor.options(max_concurrency=2, **opts).remote(st.id, i, d, s.model_dump_json(), repo_src, sub_src, env)
            for i, d in enumerate(s.devices)
        ]
        try:
            self.names = [
                str(x)
                for x in ray_preflight.wait_actors(
                    [a.name.remote() for a in self.actors], s.ray_resource, n, free, shutdown.check
                )
            ]
        except BaseException:
            self.lost = True
            self.close()
            raise

    def assign(self, points: list[Point], keep: list[Point] | None = None) -> list[tuple[Point, Any]]:
        return list(zip(points, range(len(points)), strict=False))

    def prepare(self, points: list[Point], busy: list[Any]) -> int:
        return 0  # build_ahead is refused with Ray (settings): each actor holds one build

    def device_of(self, worker: int) -> str:
        return self.names[worker]

    def take_ahead(self) -> int:
        return 0

    def run(self, jobs: list[tuple[Job, Any]], on_done: OnDone, tick: Tick) -> None:
        if writes_user_env(self.st.settings):
            self.st.environment = "worktree"  # as with local devices, the final restore re-runs the installs
            self.save(True)
        started = time.monotonic()
        refs = {}
        for job, k in jobs:
            p = job.point
            refs[self.actors[k].test.remote(p.phase, p.index, p.superproject, p.submodule, job.n)] = (job, k)
        pending, count = list(refs), 0
        try:
            while pending:
                shutdown.check()  # a cancelled call (or a stopping server) stops the round as Ctrl-C does
                ready, pending = ray.wait(pending, num_returns=1, timeout=1.0)
                for ref in ready:
                    job, k = refs[ref]
                    out = ray.get(ref)
                    _write_log(job.log, out.pop("log"))
                    if out.get("shadowed"):
                        raise provenance.ShadowedImport(f"on device {self.names[k]}: {out['shadowed']}")
                    count += 1
                    self.finished += 1
                    on_done(job, self.names[k], _result(out), round(time.monotonic() - started, 3))
                tick(count, len(jobs))
        except (ray.exceptions.RayError, ConnectionError) as exc:
            self.lost = True
            self._stop(pending)
            raise ray_preflight.lost(exc, len(self.st.steps), first_task=self.finished == 0) from None
        except BaseException:
            self._stop(pending)
            raise

    def _stop(self, pending: list[Any]) -> None:
        """Stop every actor's command (a lost cluster has nothing left to stop: do not wait for it)."""
        try:
            ray.get([a.stop.remote() for a in self.actors], timeout=5 if self.lost else 60)
            for ref in pending:
                ray.cancel(ref, force=False)
        except Exception:  # the cluster or an actor is gone: its commands went with it
            self.lost = True

    def close(self) -> None:
        if not self.lost:
            try:
                ray.get([a.remove.remote() for a in self.actors], timeout=60)
            except Exception:  # an actor already gone has nothing left to remove on its node
                pass
        for a in self.actors:
            try:
                ray.kill(a)
            except Exception:  # a lost cluster: nothing to kill
                pass
        remove_local_folders(self.st.id)  # the folders of actors on this machine, whatever happened to them
        if self.lost or self.started_ray:
            ray.shutdown()  # a lost connection is not reused; a cluster started here is not left behind


_THIS_PROCESS = {"PWD", "OLDPWD", "SHLVL", "_", "HOSTNAME"}


def driver_env() -> dict[str, str]:
    """The environment the actors' commands see: the one the bisect was started in (what `source run.sh`
    exported), as for local devices, minus what belongs to this process or machine, perfkit's and Ray's
    own variables, and the visible-device variables Ray sets per actor for the accelerator it gave."""
    return {
        k: v
        for k, v in os.environ.items()
        if k not in _THIS_PROCESS and not k.startswith(("RAY_", "PERFKIT_")) and not k.endswith("_VISIBLE_DEVICES")
    }


def _result(out: dict[str, Any]) -> PointResult:
    return PointResult(
        verdict=Classified(out["verdict"], out["reason"], out["metric"]),
        ran=bool(out["ran"]),
        exit_code=out["exit_code"],
        installed=list(out["installed"]),
        tested=[TestedPackage.model_validate(t) for t in out.get("tested") or []],
    )


def _write_log(path: Path, data: bytes) -> None:
    try:
        private_dirs.make_dir(path.parent, parents=False)
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600), "wb") as f:
            f.write(data)
    except OSError:
        pass  # the verdict stands without its log


def _submodule_url(repo: Path, st: State) -> str | None:
    try:
        text = gitrepo.git(repo, "show", f"{st.bad}:.gitmodules")
    except ToolFailure:
        return None
    name = st.submodule_name or st.settings.submodule
    m = re.search(rf'\[submodule "{re.escape(name or "")}"\][^\[]*?url\s*=\s*(\S+)', text)
    return m.group(1) if m else None
