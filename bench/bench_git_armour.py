"""What the armour against a repository's config costs per git process: perfkit's gitrepo.git()
against a bare `git -C repo <command>` with the same command, alternately, in a repository whose
config defines a few drivers (so the override list is not empty).

The first call in a repository also lists its config once (cached until a config file changes):
that one-off cost is timed on its own.

Usage: python bench/bench_git_armour.py [--calls 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from perfkit.repo import gitrepo


def _repo(root: Path) -> Path:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {"GIT_CONFIG_NOSYSTEM": "1"}
    repo = root / "r"

    def g(*a: str) -> None:
        subprocess.run(["git", "-C", str(repo), *a], check=True, capture_output=True, env=env)

    repo.mkdir()
    g("init", "-q", "-b", "main")
    for key, value in (("user.name", "a"), ("user.email", "a@example.com"), ("diff.x.textconv", "cat")):
        g("config", key, value)
    (repo / "f.txt").write_text("one\n")
    g("add", "f.txt")
    g("commit", "-q", "-m", "one")
    return repo


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = _repo(Path(tmp))
        t = time.perf_counter()
        gitrepo.driver_overrides(repo)
        first = time.perf_counter() - t
        ours, plain = [], []
        env = gitrepo.git_env()
        for _ in range(args.calls):
            t = time.perf_counter()
            gitrepo.git(repo, "rev-parse", "HEAD")
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, env=env)
            plain.append(time.perf_counter() - t)
    a, b = statistics.median(ours), statistics.median(plain)
    print("| git rev-parse HEAD | median ms |")
    print("|---|---:|")
    print(f"| perfkit gitrepo.git (armoured) | {a * 1000:.2f} |")
    print(f"| bare git -C repo | {b * 1000:.2f} |")
    print(f"| ratio | {a / b:.2f}x |")
    print(f"| first call in a repository (config listed once) | {first * 1000:.2f} |")


if __name__ == "__main__":
    main()
