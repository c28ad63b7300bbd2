"""Run many `perfkit` command lines fast, each in its own process, with the heavy imports done once.

`python -m perfkit.cli` pays about two seconds of imports (pandas) per call; a table of a hundred
bad inputs would spend minutes importing. This driver imports once, then forks one child per
command line: the child runs `perfkit.cli.main(argv)` exactly as the console script does, with its
own stdout and stderr files, its own working directory and exit status, and an uncaught exception
prints its traceback just as the interpreter would. After each child the driver records what
changed under the watched folder.

Input (stdin, JSON): {"root": folder to watch, "cases": [{"id", "argv", "cwd"}]}.
Output (stdout, JSON): [{"id", "rc", "stdout", "stderr", "changes", "seconds"}].
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers.tree import changes, tree  # noqa: E402

TIMEOUT_S = 60
MEMORY_LIMIT = 4 * 1024**3  # a runaway read fails in the child instead of exhausting the machine


def _preload() -> None:
    import jinja2.sandbox  # noqa: F401
    import pandas  # noqa: F401
    import perfkit.benchmark.pipeline  # noqa: F401
    import perfkit.bisect.engine.session  # noqa: F401
    import perfkit.changes.blame  # noqa: F401
    import perfkit.cli  # noqa: F401
    import perfkit.lint.rules  # noqa: F401
    import perfkit.publish.render  # noqa: F401
    from perfkit.registry import all_tools

    all_tools()


def _child(argv: list[str], cwd: str, out: int, err: int) -> None:
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.chdir(cwd)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    from perfkit.cli.commands import main

    code: int
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def run_one(case: dict) -> dict:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            try:
                _child(case["argv"], case["cwd"], out.fileno(), err.fileno())
            finally:
                os._exit(99)
        rc = None
        while time.monotonic() - started < TIMEOUT_S:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                rc = os.waitstatus_to_exitcode(status)
                break
            time.sleep(0.01)
        if rc is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            rc = "timeout"
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        return {
            "id": case["id"],
            "rc": rc,
            "stdout": out.read().decode("utf-8", "replace"),
            "stderr": err.read().decode("utf-8", "replace"),
            "seconds": round(seconds, 3),
        }


def main() -> None:
    job = json.load(sys.stdin)
    _preload()
    root = Path(job["root"])
    results = []
    before = tree(root)
    for case in job["cases"]:
        res = run_one(case)
        after = tree(root)
        res["changes"] = changes(before, after)
        before = after
        results.append(res)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
