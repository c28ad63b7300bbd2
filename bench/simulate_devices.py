"""Wall time of one bisect with d devices, played by the real rounds and planner code on a simulated clock.

The history is a real git repository (128 commits after `good`, one file per commit, no submodule)
so that the planner, the rounds (engine/rounds.py: settle, choose, Rounds.step) and the culprit's
evaluation run exactly as in a bisect. Only the pool is simulated: each device is a slot holding
the build of the last point it tested; a point costs `--install` seconds when its slot holds
another build, then `--check` seconds for its check; a round lasts as long as its slowest point.
The check is deterministic, or flips at `--flaky` (a pass read as FAIL and a failure read as PASS
alike, from a seeded random generator). Every position of the culprit is planted once per seed.

Columns: mean wall time, its ratio to one device on the same check, rounds, runs, the share of
rounds in which every device had a point ("busy"), and the share of bisects that named the planted
culprit. Busy counts rounds; a round with fewer points than devices leaves the others idle.

--before REF plays the same cases with the code of a git revision (its server/ folder, exported
with `git archive` into a temporary folder) beside the code of this checkout, in one run.

Usage: python bench/simulate_devices.py [--commits 128] [--devices 1,2,3,4] [--seeds 2] [--before main]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.round_engine import StandInEngine  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODES = ("deterministic", "flaky default", "flaky noise on")


def git(repo: Path, *args: str, data: bytes | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, input=data, env=env
    ).stdout.decode()


def history(base: Path, n: int) -> tuple[Path, list[str]]:
    """good, then n commits: the shas of good and of the n (the last is `bad`)."""
    from perfkit.cli.demo.fastimport import Commit, write_history

    repo = base / "repo"
    commits = [Commit(f"c{i}", {"src.py": f"v = {i}\n"}, author="b <b@example.com>") for i in range(n + 1)]
    shas = write_history(repo, commits, start_time=1_700_000_000, step=1)
    return repo, shas


@dataclass
class Clock:
    install: float
    check: float
    wall: float = 0.0
    rounds: int = 0
    busy: int = 0  # rounds in which every device had a point
    runs: int = 0
    installs: int = 0


@dataclass
class World:
    items: list[str]
    good: str
    k: int  # index of the first bad commit in items
    flip: float
    rng: random.Random

    def verdict(self, sha: str) -> str:
        bad = sha != self.good and self.items.index(sha) >= self.k
        if self.rng.random() < self.flip:
            bad = not bad
        return "bad" if bad else "good"


@dataclass(eq=False)
class Slot:
    device: str
    held: str | None = None


@dataclass
class SimPool:
    """The pool protocol (workers/pool.py) on a clock: no checkout, no command."""

    devices: list[str]
    world: World
    clock: Clock
    slots: list[Slot] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.slots = [Slot(d) for d in self.devices]

    def assign(self, points: list[Any], keep: list[Any] | None = None) -> list[tuple[Any, Slot]]:
        """As LocalPool.assign: the slot holding the point's build first, then one holding nothing wanted."""
        free = list(self.slots)
        chosen: dict[int, Slot] = {}
        for k, p in enumerate(points):
            w = next((w for w in free if w.held == p.superproject), None)
            if w is not None:
                chosen[k] = w
                free.remove(w)
        wanted = {q.superproject for q in keep or []}
        for k, _ in enumerate(points):
            if k not in chosen:
                spare = [w for w in free if w.held not in wanted] or free
                chosen[k] = spare[0]
                free.remove(spare[0])
        return [(p, chosen[k]) for k, p in enumerate(points)]

    def prepare(self, points: list[Any], busy: list[Any]) -> int:
        return 0

    def run(self, jobs: list[tuple[Any, Slot]], on_done: Any, tick: Any) -> None:
        from perfkit.bisect.command.tester import PointResult
        from perfkit.bisect.command.verdict import Classified

        c = self.clock
        ends = []
        for job, w in jobs:
            p = job.point
            seconds = c.check
            installed: list[str] = []
            if w.held != p.superproject:
                seconds += c.install
                installed = ["superproject"]
                w.held = p.superproject
                c.installs += 1
            v = self.world.verdict(p.superproject)
            res = PointResult(
                verdict=Classified(v, "PASS" if v == "good" else "FAIL", None),
                ran=True,
                exit_code=0 if v == "good" else 1,
                installed=installed,  # type: ignore[arg-type]
                commands=len(installed),
            )
            ends.append((seconds, job, w, res))
        c.wall += max(s for s, *_ in ends)
        c.rounds += 1
        c.runs += len(jobs)
        c.busy += len(jobs) >= len(self.devices)
        for k, (seconds, job, w, res) in enumerate(sorted(ends, key=lambda e: e[0])):
            on_done(job, w.device, res, seconds)
            tick(k + 1, len(jobs))

    def device_of(self, worker: Slot) -> str:
        return worker.device

    def take_ahead(self) -> int:
        return 0


def bisect(repo: Path, shas: list[str], d: int, mode: str, k: int, seed: int, clock: Clock) -> bool:
    """One bisect; whether it named the planted culprit."""
    from perfkit.bisect.engine.rounds import Rounds
    from perfkit.bisect.models import BisectSettings
    from perfkit.bisect.state.store import PhaseData, State

    good, items = shas[0], shas[1:]
    devices = [str(i) for i in range(d)]
    settings = BisectSettings(run="true", install=["true"], devices=devices, noise=mode == "flaky noise on")
    st = State(
        id=f"sim-{d}-{k}-{seed}", repo=str(repo), good=good, bad=items[-1], created="",
        level1=PhaseData(name="level1", items=items), settings=settings,
    )  # fmt: skip
    world = World(items, good, k, 0.0 if mode == "deterministic" else FLIP, random.Random(seed * 7919 + k))
    eng = StandInEngine(repo, st)
    r = Rounds(eng)  # type: ignore[arg-type]
    r._pool = SimPool(devices, world, clock)  # type: ignore[assignment]
    for _ in range(1000):
        if r.step() is None:
            break
    else:
        raise RuntimeError("runaway bisect")
    return st.outcome == "found" and st.culprit is not None and st.culprit.commit == items[k]


FLIP = 0.05


def cached_git_reads() -> None:
    """A commit's subject, parents and classification never change: read each once (the step labels ask
    for them every round, and every bisect of a planted culprit classifies it)."""
    import functools

    from perfkit.culprit import evaluate
    from perfkit.repo import gitrepo

    gitrepo.commit_info = functools.lru_cache(maxsize=None)(gitrepo.commit_info)  # type: ignore[assignment]
    evaluate.evaluate_culprit = functools.lru_cache(maxsize=None)(evaluate.evaluate_culprit)  # type: ignore[assignment]


def play(n: int, ds: list[int], seeds: int, install: float, check: float) -> list[dict[str, Any]]:
    """Every case with the perfkit package found first on sys.path; one dict per (mode, devices)."""
    cached_git_reads()
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        repo, shas = history(Path(tmp), n)
        for mode in MODES:
            for d in ds:
                walls, rounds, runs, right, busy, allr = [], [], [], 0, 0, 0
                cases = [(k, s) for s in range(1 if mode == "deterministic" else seeds) for k in range(n)]
                for k, s in cases:
                    c = Clock(install, check)
                    right += bisect(repo, shas, d, mode, k, s, c)
                    walls.append(c.wall)
                    rounds.append(c.rounds)
                    runs.append(c.runs)
                    busy += c.busy
                    allr += c.rounds
                out.append(
                    {
                        "mode": mode, "d": d, "wall": statistics.mean(walls), "rounds": statistics.mean(rounds),
                        "max_rounds": max(rounds), "runs": statistics.mean(runs), "busy": busy / allr,
                        "right": right / len(cases), "cases": len(cases),
                    }
                )  # fmt: skip
                print(f"  {mode}, {d} devices: {out[-1]['wall']:.2f} s", file=sys.stderr, flush=True)
    return out


def exported(ref: str, into: Path) -> Path:
    """The server/ folder of revision `ref`, as files."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "server"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=data, check=True)
    return into / "server"


def table(label: str, rows: list[dict[str, Any]]) -> list[str]:
    one = {r["mode"]: r["wall"] for r in rows if r["d"] == 1}
    return [
        f"| {label} | {r['mode']} | {r['d']} | {r['wall']:.2f} s | {r['wall'] / one[r['mode']]:.2f}x | "
        f"{r['rounds']:.2f} (max {r['max_rounds']}) | {r['runs']:.2f} | {r['busy']:.0%} | {r['right']:.1%} |"
        for r in rows
    ]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=128)
    ap.add_argument("--devices", default="1,2,3,4")
    ap.add_argument("--seeds", type=int, default=2, help="seeds per culprit position for the flaky checks")
    ap.add_argument("--install", type=float, default=1.0, help="seconds an install takes")
    ap.add_argument("--check", type=float, default=1.0, help="seconds a check takes")
    ap.add_argument("--before", help="also play the code of this git revision, side by side")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one side's rows, for --before
    a = ap.parse_args()
    ds = [int(x) for x in a.devices.split(",")]
    if a.json:
        print(json.dumps(play(a.commits, ds, a.seeds, a.install, a.check)))
        return 0
    sides: list[tuple[str, list[dict[str, Any]]]] = []
    args = [f"--commits={a.commits}", f"--devices={a.devices}", f"--seeds={a.seeds}"]
    args += [f"--install={a.install}", f"--check={a.check}", "--json"]
    with tempfile.TemporaryDirectory() as tmp:
        code = [(f"before ({a.before})", exported(a.before, Path(tmp)))] if a.before else []
        for label, server in [*code, ("after", ROOT / "server")]:
            print(f"{label}:", file=sys.stderr, flush=True)
            env = os.environ | {"PYTHONPATH": str(server)}
            out = subprocess.run([sys.executable, __file__, *args], env=env, check=True, capture_output=True, text=True)
            sys.stderr.write(out.stderr)
            sides.append((label, json.loads(out.stdout)))
    print(
        f"{a.commits} commits, install {a.install:g} s, check {a.check:g} s, flaky: {FLIP:.0%} both ways, "
        f"{a.seeds} seeds per culprit position\n"
    )
    print("| code | check | devices | mean wall time | vs 1 device | rounds | runs | every device busy | right |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, rows in sides:
        print("\n".join(table(label, rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
