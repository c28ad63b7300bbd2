"""What a device's worker thread may change in the shared bisect state, and under which lock.

The pool (local.py) makes one Hooks per bisect and hands it to every slot (slot.py); keeping the
class here lets both import it without importing each other.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

from perfkit.bisect.command import runner
from perfkit.bisect.command.envs import writes_user_env
from perfkit.bisect.state.store import Build, State, write_atomic
from perfkit.errors import ToolFailure


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
