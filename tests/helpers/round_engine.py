"""What the rounds of a bisect read from its engine (rounds.Engine), around the real planner, with nothing
kept: no verdict memory, no saved state. The round tests and bench/simulate_devices.py drive the real
planner and Rounds through it; the planner is imported when one is made, so the bench can put an older
perfkit first on sys.path."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any


class NoMemory:
    """No verdict memory: every point the bisect asks for runs."""

    def recall(self, *args: Any) -> None:
        return None

    def recall_step(self, *args: Any) -> None:
        return None

    def remember(self, rec: Any) -> None:
        pass

    def save(self) -> None:
        pass


class StandInEngine:
    """The engine's attributes and calls that Rounds uses; progress and saving do nothing."""

    def __init__(self, repo: Path, st: Any) -> None:
        from perfkit.bisect.search.planner import Planner

        self.repo, self.sdir, self.st, self.settings = repo, repo / ".git" / "unused", st, st.settings
        self.planner = Planner(repo, st)
        self.memory, self.logs, self.sub_path, self.ahead = NoMemory(), self.sdir, None, False
        self.save_lock = threading.RLock()

    def progress(self, *args: Any) -> None:
        pass

    def save(self, durable: bool = True) -> None:
        pass

    def expected_total(self) -> int:
        return int(self.planner.expected_total())
