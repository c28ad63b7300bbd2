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


def run_forked(
    argv: list[str], cwd: str, timeout: float, env: dict[str, str] | None = None
) -> tuple[int | None, bytes, bytes]:
    """(exit status, stdout, stderr) of `perfkit argv` in a forked child: its own process group, stdin
    empty, env (when given) as its whole environment; killed with its group after timeout (status None)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                os.setpgid(0, 0)
                if env is not None:
                    os.environ.clear()
                    os.environ.update(env)
                os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
                _child(argv, cwd, out.fileno(), err.fileno())
            finally:
                os._exit(99)
        deadline = time.monotonic() + timeout
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
        return rc, out.read(), err.read()


def run_one(case: dict) -> dict:
    started = time.monotonic()
    rc, out, err = run_forked(case["argv"], case["cwd"], TIMEOUT_S)
    return {
        "id": case["id"],
        "rc": "timeout" if rc is None else rc,
        "stdout": out.decode("utf-8", "replace"),
        "stderr": err.decode("utf-8", "replace"),
        "seconds": round(time.monotonic() - started, 3),
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
