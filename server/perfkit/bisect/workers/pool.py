"""What a round hands a pool of devices and gets back, whatever the devices are."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from perfkit.bisect.command.tester import PointResult
from perfkit.bisect.state.point import Point

OnDone = Callable[["Job", str, PointResult, float], None]  # job, device, result, seconds
Tick = Callable[[int, int], None]  # points finished, points in the round


@dataclass
class Job:
    point: Point
    n: int  # the step number the point is recorded as
    log: Path


class Pool(Protocol):
    def assign(self, points: list[Point], keep: list[Point] | None = None) -> list[tuple[Point, Any]]:
        """Each point with the worker that will test it (at most one point per worker); workers holding
        the builds of `keep` (points likely next) are taken last."""

    def prepare(self, points: list[Point], busy: list[Any]) -> int:
        """Start building `points` ahead on workers not in `busy`; how many started (0: not supported)."""

    def run(self, jobs: list[tuple[Job, Any]], on_done: OnDone, tick: Tick) -> None:
        """Test the jobs at once; on_done in the calling thread as each ends; stop all on interruption."""

    def device_of(self, worker: Any) -> str:
        """The device the worker tests its point on this round."""

    def take_ahead(self) -> int:
        """Install commands builds made ahead ran since the last call."""
