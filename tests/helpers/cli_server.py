"""`perfkit` command lines for the tests, each in a process of its own, without paying the imports each time.

A command line through `python -m perfkit.cli` spends about a second of CPU importing before it does
anything; the suite runs hundreds. This server imports once (cli_batch's preload), then forks one child
per request: the child takes the caller's environment, working directory and an empty stdin, runs
`perfkit.cli.main(argv)` as the console script does, in a process group of its own, with its own
stdout, stderr and exit status. A command that outlives its timeout is killed with its group.

Protocol: one JSON object a line on stdin ({"argv", "cwd", "env", "timeout"}), one JSON line back
({"rc", "stdout", "stderr"}, rc null after a timeout). Tests that signal or kill perfkit start it with
subprocess themselves (helpers.procs.launch_run), since they need its pid.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers.cli_batch import _child, _preload  # noqa: E402


def run(request: dict) -> dict:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:
            try:
                os.setpgid(0, 0)
                os.environ.clear()
                os.environ.update(request["env"])
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                _child(request["argv"], request["cwd"], out.fileno(), err.fileno())
            finally:
                os._exit(99)
        deadline = time.monotonic() + request["timeout"]
        rc = None
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                rc = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() > deadline:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)
                break
            time.sleep(0.005)
        out.seek(0)
        err.seek(0)
        return {"rc": rc, "stdout": out.read().decode("utf-8"), "stderr": err.read().decode("utf-8")}


def main() -> None:
    _preload()
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(run(json.loads(line))) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
