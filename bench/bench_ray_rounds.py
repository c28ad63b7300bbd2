"""perfkit's own time per round with devices on Ray against the same devices run locally.

One history (tests/helpers/bisect_project.py: a compiler with a runtime submodule, a pointer bump
that breaks it, 33 commits), a trivial check and trivial installs, bisected with 2 devices twice:
locally (one process per device) and on a local Ray cluster with 2 units of a custom resource (one
actor per device, each with its own bare clone). A round lasts as long as its slowest point; what
is left of the bisect's wall time after the rounds' slowest points is perfkit's: planning, state,
worktrees, and on Ray the actors' start, their clones and the data sent each way. The devices' start
and their removal at the end (the pool's __init__ and close: on Ray, the actors) happen once per
bisect; they are timed apart, so the last row is what each round itself costs. An actor's bare
clones are made in its first test, inside the first round's slowest point.

Usage: python bench/bench_ray_rounds.py [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "server"))


ONCE: dict[str, float] = {}  # seconds spent in the pools' __init__ and close, per backend


def timed(cls: type, backend: str) -> None:
    """Count the time of cls.__init__ and cls.close into ONCE[backend] (the bisect runs them once each)."""
    for name in ("__init__", "close"):
        inner = getattr(cls, name)

        def wrapper(self, *a, _inner=inner, **k):  # type: ignore[no-untyped-def]
            t = time.perf_counter()
            try:
                return _inner(self, *a, **k)
            finally:
                ONCE[backend] = ONCE.get(backend, 0.0) + time.perf_counter() - t

        setattr(cls, name, wrapper)


def once(base: Path, backend: str) -> tuple[float, float, int, float, float]:
    """(wall, wall outside the rounds' slowest points, rounds, start, pool start and close) of one
    bisect_start + bisect_run."""
    from helpers.bisect_project import build
    from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start

    kernel = [""] * 9 + ["BROKEN"] * 8
    plan = [("src", "")] * 5 + [("ptr", 2)] + [("src", "")] * 20 + [("ptr", 15, "bump")] + [("src", "")] * 6
    p = build(base, kernel, plan)
    extra = {"backend": "ray", "ray_resource": "NPU"} if backend == "ray" else {}
    ONCE[backend] = 0.0
    t0 = time.perf_counter()
    bisect_start(
        p.path, p.c["add"], run=p.run_cmd(), install=p.installs(), install_submodule=p.installs_sub(),
        devices=["a", "b"], **extra,
    )  # fmt: skip
    t1 = time.perf_counter()
    res = bisect_run(p.path)
    wall = time.perf_counter() - t0
    bisect_reset(p.path)
    assert res.culprit is not None and res.culprit.commit == p.c["bump"], res.message
    longest: dict[tuple[str, int], float] = {}
    for s in res.steps:
        key = (s.phase, s.round or 0)
        longest[key] = max(longest.get(key, 0.0), s.duration_s)
    return wall, wall - sum(longest.values()), len(longest), t1 - t0, ONCE[backend]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    import ray
    from perfkit.bisect.workers.local import LocalPool
    from perfkit.bisect.workers.ray_worker import RayPool

    timed(LocalPool, "local")
    timed(RayPool, "ray")
    rows: dict[str, list[tuple[float, float, int, float, float]]] = {"local": [], "ray": []}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        ray.init(num_cpus=2, resources={"NPU": 2}, include_dashboard=False, log_to_driver=False)
        try:
            for i in range(args.repeat + 1):  # the first pair warms up imports and Ray's workers
                for backend in ("local", "ray"):
                    got = once(Path(tmp) / f"{backend}-{i}", backend)
                    if i:
                        rows[backend].append(got)
        finally:
            ray.shutdown()
    med = {k: [statistics.median(r[j] for r in v) for j in range(5)] for k, v in rows.items()}
    loc, ray_ = med["local"], med["ray"]
    print("| benchmark | perfkit on Ray | perfkit, local devices | ratio |")
    print("|---|---|---|---|")
    print(
        f"| bisect of 33 + 17 commits, 2 devices, trivial check, start + run, median of {args.repeat} "
        f"| {ray_[0]:.1f} s | {loc[0]:.1f} s | {ray_[0] / loc[0]:.2f}x |"
    )
    print(
        f"| of which perfkit's own, per round (wall time outside the rounds' slowest points / rounds) "
        f"| {ray_[1] / ray_[2] * 1000:.0f} ms ({ray_[2]:.0f} rounds) | {loc[1] / loc[2] * 1000:.0f} ms "
        f"({loc[2]:.0f} rounds) | {ray_[1] / ray_[2] / (loc[1] / loc[2]):.2f}x |"
    )
    print(f"| bisect_start | {ray_[3]:.2f} s | {loc[3]:.2f} s | |")
    print(
        f"| once per bisect: the devices' start and removal (the pool's __init__ and close) | {ray_[4]:.2f} s "
        f"| {loc[4]:.2f} s | {ray_[4] / loc[4]:.2f}x |"
    )
    per_ray = (ray_[1] - ray_[4]) / ray_[2]
    per_loc = (loc[1] - loc[4]) / loc[2]
    print(
        f"| perfkit's own per round, the once-per-bisect part set aside | {per_ray * 1000:.0f} ms | "
        f"{per_loc * 1000:.0f} ms | {per_ray / max(per_loc, 1e-3):.2f}x |"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
