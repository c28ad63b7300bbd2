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
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers.cli_batch import _preload, run_forked  # noqa: E402


def run(request: dict) -> dict:
    rc, out, err = run_forked(request["argv"], request["cwd"], request["timeout"], request["env"])
    return {"rc": rc, "stdout": out.decode("utf-8"), "stderr": err.decode("utf-8")}


def main() -> None:
    _preload()
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(run(json.loads(line))) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
