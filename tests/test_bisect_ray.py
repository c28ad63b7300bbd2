"""The Ray backend end to end on a local Ray cluster the test starts, with three fake accelerators.

The cluster declares three units of a custom `NPU` resource; perfkit makes one actor per device,
each with its own bare clone of the repository and the submodule, its worktree and environment,
on this node's temporary folder. The run command records PERFKIT_DEVICE and where it ran, so the
test can check that each actor kept to its own clone, and the driver alone wrote the state.
Needs `pip install -e '.[test,ray]'`; skipped with the reason when ray is not installed.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import pytest
from helpers.bisect_project import build
from helpers.gitbuild import snapshot
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start

ray = pytest.importorskip("ray", reason="ray is not installed here (pip install -e '.[test,ray]'); CI installs it")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, resources={"NPU": 3}, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_two_level_bisect_on_a_local_ray_cluster(cluster, tmp_path):
    kernel = [""] * 9 + ["BROKEN"] * 8
    plan = [("src", "")] * 5 + [("ptr", 2)] + [("src", "")] * 20 + [("ptr", 15, "bump")] + [("src", "")] * 6
    p = build(tmp_path, kernel, plan)
    before = snapshot(p.sup.path)
    seen = p.env / "seen"
    run = f'echo "$PERFKIT_DEVICE $PERFKIT_CHECKOUT" >> {seen}; {p.run_cmd()}'
    bisect_start(
        p.path, p.c["add"], run=run, install=p.installs(), install_submodule=p.installs_sub(),
        devices=["a", "b", "c"], backend="ray", ray_resource="NPU",
    )  # fmt: skip
    try:
        res = bisect_run(p.path)
        assert res.outcome == "found" and res.culprit.commit == p.c["bump"], res.message
        assert res.submodule_culprit.commit == p.r[9]
        for s in res.steps:
            assert s.verdict == p.expected(s.superproject, s.submodule), s
            assert Path(s.log).is_file() and "on device" not in s.reason
        assert res.runs == len(p.lines("runs.log"))
        # three actors, each on its own device name and its own clone outside the user's repository
        pairs = {tuple(line.split(" ", 1)) for line in p.lines("seen")}
        devices = {d for d, _ in pairs}
        assert devices == {"0", "1", "2"}  # the NPU ids Ray gave the actors, not the names listed
        assert {s.device for s in res.steps} == devices
        for d in devices:
            places = {c for dd, c in pairs if dd == d}
            assert len(places) == 1 and not next(iter(places)).startswith(p.path)
        by_round: dict[int, list[str]] = {}
        for s in res.steps:
            by_round.setdefault(s.round or 0, []).append(s.device or "")
        assert all(len(ds) == len(set(ds)) for ds in by_round.values())
        n1 = len(plan) + 1
        # the search rounds (one more for the end checks) plus the one or two rounds that confirm the culprit
        # (docs/bisect.md: the culprit and its parent run until their verdicts hold the confidence)
        assert len({s.round for s in res.steps if s.phase == "level1"}) <= math.ceil(math.log(n1, 4)) + 1 + 2
        assert snapshot(p.sup.path) == before
        # the actors installed into their own environments: nothing to restore in the user's checkout
        assert (p.env / "super.path").read_text().strip() != p.path and res.environment == "user"
        # the actors removed their clones from the node
        assert not list(
            (Path(tempfile.gettempdir()) / "perfkit-ray").glob(
                f"{statefile.load(statefile.state_dir(p.sup.path)).id}-*"
            )
        )
    finally:
        bisect_reset(p.path)
    assert snapshot(p.sup.path) == before


def test_the_wait_for_actors_follows_whether_their_units_were_free(cluster, monkeypatch):
    """Units free when the actors were asked for: nothing else holds them, so a slow start is waited for
    (STARTING_S) and said as such; units held by other jobs: ACTORS_S, and the message says so."""
    import time

    from perfkit.bisect.workers import ray_preflight
    from perfkit.errors import ToolFailure

    monkeypatch.setattr(ray_preflight, "ACTORS_S", 2.0)
    monkeypatch.setattr(ray_preflight, "STARTING_S", 5.0)

    @ray.remote(num_cpus=0)
    def never_answers() -> None:  # stands for an actor whose worker is still starting
        time.sleep(600)

    ref = never_answers.remote()
    try:
        started = time.monotonic()
        with pytest.raises(ToolFailure, match=r"though 3 NPU were free when they were asked for"):
            ray_preflight.wait_actors([ref], "NPU", 3, free_before=3)
        assert 5 <= time.monotonic() - started < 60
        started = time.monotonic()
        with pytest.raises(ToolFailure, match=r"other jobs hold them \(1 free when asked"):
            ray_preflight.wait_actors([ref], "NPU", 3, free_before=1)
        assert 2 <= time.monotonic() - started < 60
    finally:
        ray.cancel(ref, force=True)

    @ray.remote(num_cpus=0, resources={"NPU": 3})
    class Holder:
        def ping(self) -> int:
            return 1

    holder = Holder.remote()  # type: ignore[attr-defined]
    ray.get(holder.ping.remote())
    try:
        assert ray_preflight.free_units("NPU") == 0
    finally:
        ray.kill(holder)
