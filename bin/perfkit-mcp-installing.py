"""A stand-in MCP server for the minutes the plugin's first start spends installing perfkit.

bin/perfkit-mcp runs this (standard library only, so it starts at once with any Python 3.11) when
perfkit's environment is still being built. An MCP client waits about 30 s for a server to answer;
the build takes longer. So this answers the handshake at once, offers one tool and instructions that
say perfkit is installing, for how long, what the install log says last and where it is, and when the
build is done starts the real server,
replays the client's handshake to it, passes every message through both ways, and tells the client
that the tool list changed. Clients that follow that notification get perfkit's tools without a
reconnect; the others after one.

Usage: perfkit-mcp-installing.py STAMP_FILE STAMP LOG LOCK_DIR -- REAL_SERVER_COMMAND...
The build is done when STAMP_FILE holds STAMP; it is running while LOCK_DIR exists.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from typing import Any

TOOL = "perfkit_installing"
POLL_S = 0.5
TAIL_BYTES = 8192  # the end of the install log: where its last lines are
MAX_LINE = 300


def duration(seconds: float) -> str:
    """3 s, 4 min 5 s: how long the build has run, as a person says it."""
    s = max(0, int(seconds))
    return f"{s} s" if s < 60 else f"{s // 60} min {s % 60} s"


def _write(lock: threading.Lock, message: dict[str, Any]) -> None:
    with lock:
        sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
        sys.stdout.flush()


def _reader(stream: Any, into: queue.Queue[str | None]) -> None:
    for line in stream:
        into.put(line)
    into.put(None)


class Installing:
    """Answers as perfkit would, while perfkit is not there yet."""

    def __init__(self, stamp_file: str, stamp: str, log: str, lock_dir: str, command: list[str]) -> None:
        self.stamp_file, self.stamp, self.log, self.lock_dir, self.command = stamp_file, stamp, log, lock_dir, command
        self.out = threading.Lock()
        self.handshake: list[str] = []  # the client's initialize and initialized, replayed to the real server
        self.started_wall = time.time()

    def state(self) -> str:
        try:
            with open(self.stamp_file) as f:
                if f.read().strip() == self.stamp.strip():
                    return "ready"
        except OSError:
            pass
        if os.path.isdir(self.lock_dir) and self._builder_alive():
            return "installing"
        return "failed"

    def _builder_alive(self) -> bool:
        """The lock names its builder; one killed without cleaning up (kill -9, a reboot) is not installing."""
        try:
            with open(os.path.join(self.lock_dir, "pid")) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError):
            return True  # the pid is written just after the lock: a builder still starting
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def began(self) -> float:
        """When the build started: the lock's pid file is written as the builder starts (any stand-in, started
        later by another client or a reconnect, reads the same time); else when this stand-in started."""
        for path in (os.path.join(self.lock_dir, "pid"), self.lock_dir):
            try:
                return os.stat(path).st_mtime
            except OSError:
                continue
        return self.started_wall

    def last_lines(self, n: int) -> list[str]:
        """The install log's last n non-empty lines (the builder stamps each with its second)."""
        try:
            with open(self.log, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - TAIL_BYTES))
                text = f.read().decode("utf-8", "replace")
        except OSError:
            return []
        return [ln.strip()[:MAX_LINE] for ln in text.splitlines() if ln.strip()][-n:]

    def text(self) -> str:
        if self.state() == "failed":
            lines = self.last_lines(40)
            errors = [ln for ln in lines if "error" in ln.lower() and not ln.startswith("perfkit:")]
            said = " | ".join(errors[-1:] + lines[-1:]) or "nothing"
            return (
                f"perfkit could not be installed; the install log is {self.log}. It says: {said}. Fix what it "
                "says (often: the package index is not reachable), then reconnect the server (/mcp)."
            )
        last = self.last_lines(1)
        now = f" Last line of the install log: {last[0]}" if last else ""
        return (
            f"perfkit is installing its Python environment (once per plugin version; started "
            f"{duration(time.time() - self.began())} ago; usually one to a few minutes, longer on a busy "
            f"machine).{now} "
            f"Its tools appear here by themselves when it is done (or after reconnecting with /mcp). "
            f"The install log is {self.log}."
        )

    def answer(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        method, ident = msg.get("method"), msg.get("id")
        if ident is None:
            return None  # a notification: nothing to answer
        if method == "initialize":
            asked = (msg.get("params") or {}).get("protocolVersion") or "2025-06-18"
            result: Any = {
                "protocolVersion": asked,
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "perfkit", "version": "installing"},
                "instructions": self.text(),
            }
        elif method == "tools/list":
            result = {
                "tools": [
                    {
                        "name": TOOL,
                        "description": "perfkit is still installing: call this to see how far it is. " + self.text(),
                        "inputSchema": {"type": "object", "properties": {}},
                        "annotations": {"readOnlyHint": True},
                    }
                ]
            }
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": self.text()}], "isError": True}
        elif method in ("ping", "logging/setLevel"):
            result = {}
        elif method in ("resources/list", "prompts/list"):
            result = {method.split("/")[0]: []}
        else:
            return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"{method}: " + self.text()}}
        return {"jsonrpc": "2.0", "id": ident, "result": result}

    def serve(self) -> int:
        inbox: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=_reader, args=(sys.stdin, inbox), daemon=True).start()
        initialized = False
        while True:
            if initialized and self.state() == "ready":
                return self.hand_over(inbox)
            try:
                line = inbox.get(timeout=POLL_S)
            except queue.Empty:
                continue
            if line is None:
                return 0  # the client went away before the build finished; the build goes on
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if msg.get("method") in ("initialize", "notifications/initialized"):
                self.handshake.append(line)
                initialized = initialized or msg.get("method") == "notifications/initialized"
            reply = self.answer(msg)
            if reply is not None:
                _write(self.out, reply)

    def hand_over(self, inbox: queue.Queue[str | None]) -> int:
        """Start the real server, replay the handshake, then pass messages through both ways."""
        proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        assert proc.stdin is not None and proc.stdout is not None
        init = next((json.loads(m) for m in self.handshake if json.loads(m).get("method") == "initialize"), None)
        for line in self.handshake:
            proc.stdin.write(line if line.endswith("\n") else line + "\n")
        proc.stdin.flush()
        # the real server's answer to the replayed initialize is for us, not the client
        while init is not None:
            reply = proc.stdout.readline()
            if not reply:
                return proc.wait()
            if json.loads(reply).get("id") == init.get("id"):
                break
            sys.stdout.write(reply)  # anything else the server says goes to the client
            sys.stdout.flush()

        def pump() -> None:
            assert proc.stdout is not None
            for reply in proc.stdout:
                with self.out:
                    sys.stdout.write(reply)
                    sys.stdout.flush()

        pumping = threading.Thread(target=pump, daemon=True)
        pumping.start()
        _write(self.out, {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        while True:
            message = inbox.get()
            if message is None:
                break
            try:
                proc.stdin.write(message)
                proc.stdin.flush()
            except BrokenPipeError:
                break
        proc.stdin.close()
        code = proc.wait()
        pumping.join(timeout=5)  # the server's last answers reach the client before this exits
        return code


def main(argv: list[str]) -> int:
    if len(argv) < 6 or argv[4] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    return Installing(argv[0], argv[1], argv[2], argv[3], argv[5:]).serve()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
