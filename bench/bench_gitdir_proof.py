"""What proving perfkit's own git folders costs (perfkit.gitdir_proof, in gitrepo's door).

Before every git command in the bisect's worktree or its submodule clone, gitrepo proves that the
work tree's `.git` leads to the git folder perfkit made (a stat and a few small reads, no process)
and pins git to it. Measured side by side in one run, alternately, on a real worktree with a real
submodule clone:

- the proof alone, per command (microseconds: it starts no process);
- one git command in the worktree (`rev-parse HEAD`), proved and pinned against the same command with
  the proof switched off, as a ratio;
- what a step runs in perfkit's two work trees (a forced checkout of the superproject and of the
  submodule, to alternating points), with and without the proof, as a ratio.

Usage: python bench/bench_gitdir_proof.py [--calls 200] [--steps 40]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from perfkit.bisect.command.worktree import Checkout
from perfkit.repo import gitdir_proof, gitrepo

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers.bisect_project import build  # noqa: E402  # the tests' own repository builder: a compiler and its runtime


@contextmanager
def proof_off() -> Iterator[None]:
    """gitrepo's door as it was before: no work tree is perfkit's, nothing proved or pinned."""
    real = gitdir_proof.owner
    gitdir_proof.owner = lambda _path: None  # type: ignore[assignment]
    try:
        yield
    finally:
        gitdir_proof.owner = real  # type: ignore[assignment]


def alternate(calls: int, with_proof: Callable[[], None], without: Callable[[], None]) -> tuple[float, float]:
    ours, plain = [], []
    for _ in range(calls):
        t = time.perf_counter()
        with_proof()
        ours.append(time.perf_counter() - t)
        with proof_off():
            t = time.perf_counter()
            without()
            plain.append(time.perf_counter() - t)
    return statistics.median(ours), statistics.median(plain)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--steps", type=int, default=40)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        p = build(Path(tmp), ["", "", ""], [("src", ""), ("ptr", 1), ("src", "BUG", "bug"), ("ptr", 2)])
        sdir = Path(tmp) / "perfkit-folder"
        source = gitrepo.submodule_git_dir(p.sup.path, "runtime")
        checkout = Checkout(p.sup.path, sdir / "worktree" / "pypto", sdir / "parked", "runtime", source)
        checkout.ensure(p.c["add"])
        checkout.sync(p.c["add"], p.r[0])
        wt, sub = checkout.path, checkout.sub_dir
        assert sub is not None

        proofs = []
        for _ in range(args.calls):
            t = time.perf_counter()
            gitrepo.prove_own(wt)
            gitrepo.prove_own(sub)
            proofs.append((time.perf_counter() - t) / 2)
        proof = statistics.median(proofs)

        def rev_parse() -> None:
            gitrepo.git(wt, "rev-parse", "HEAD")

        one_ours, one_plain = alternate(args.calls, rev_parse, rev_parse)

        points = [(p.c["add"], p.r[0]), (p.c["bug"], p.r[1]), (p.order[-1], p.r[2])]
        turn = iter(range(10**9))

        def step() -> None:
            sup, runtime = points[next(turn) % len(points)]
            gitrepo.git(wt, "checkout", "--force", "--detach", "--quiet", sup, filters=True)
            gitrepo.git(sub, "checkout", "--force", "--detach", "--quiet", runtime, filters=True)

        step_ours, step_plain = alternate(args.steps, step, step)
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        t = time.perf_counter()
        for _ in range(20):
            subprocess.run(["git", "-C", str(wt), "rev-parse", "HEAD"], capture_output=True, env=env)
        process = (time.perf_counter() - t) / 20
    print("| perfkit's own git folders, proved | median | with the proof / without |")
    print("|---|---:|---:|")
    print(f"| the proof alone, per command (a stat and a few reads) | {proof * 1e6:.0f} us | |")
    print(f"| one bare git process, for scale | {process * 1000:.2f} ms | |")
    print(f"| `git rev-parse HEAD` in the worktree | {one_ours * 1000:.2f} ms | {one_ours / one_plain:.2f}x |")
    print(
        f"| a step's checkouts (superproject and submodule) | {step_ours * 1000:.1f} ms | "
        f"{step_ours / step_plain:.2f}x |"
    )


if __name__ == "__main__":
    main()
