"""What watching the user's checkout costs per step: the full snapshot (HEAD, every ref, the stash's
reflog, the index, the submodule's HEAD, the status) against the single `git status` perfkit once
ran, and against the probe a step now takes first (the stat of the files git writes for HEAD, refs,
stash and index: when none moved, the snapshot before stands), alternately in one process, on a
small checkout and on one with many files, refs and stash entries and a submodule.

Usage: python bench/bench_checkout_watch.py [--calls 30] [--files 20000] [--refs 2000]
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from perfkit.bisect.command import watch
from perfkit.repo import gitrepo

ENV = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {"GIT_CONFIG_NOSYSTEM": "1"}


def g(repo: Path, *a: str, stdin: str | None = None) -> None:
    subprocess.run(["git", "-C", str(repo), *a], check=True, capture_output=True, env=ENV, input=stdin, text=True)


def make(root: Path, files: int, refs: int, stashes: int) -> Path:
    sub = root / "runtime-origin"
    sub.mkdir()
    g(sub, "init", "-q", "-b", "main")
    (sub / "k.cpp").write_text("// k\n")
    g(sub, "add", ".")
    g(sub, "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-q", "-m", "k")
    repo = root / "checkout"
    repo.mkdir()
    g(repo, "init", "-q", "-b", "main")
    for i in range(files):
        d = repo / f"pkg{i % 100}"
        d.mkdir(exist_ok=True)
        (d / f"m{i}.py").write_text(f"x = {i}\n")
    g(repo, "add", ".")
    g(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "runtime")
    g(repo, "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-q", "-m", "all")
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    g(repo, "update-ref", "--stdin", stdin="".join(f"create refs/heads/b{i} {head}\n" for i in range(refs)))
    for i in range(stashes):
        (repo / "pkg0" / "m0.py").write_text(f"x = -{i}\n")
        g(repo, "-c", "user.name=a", "-c", "user.email=a@example.com", "stash", "push", "-q")
    (repo / "pkg1" / "m1.py").write_text("edited\n")
    (repo / "untracked.txt").write_text("u\n")
    return repo


def old_status(repo: Path) -> None:
    gitrepo.git(repo, "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=normal")


def timed(fn, calls: int) -> float:
    out = []
    for _ in range(calls):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--refs", type=int, default=2000)
    args = ap.parse_args()
    print("| checkout | `git status` alone | full snapshot | probe, nothing moved | probe / full snapshot |")
    print("|---|---|---|---|---|")
    for label, files, refs, stashes in (
        ("small: 100 files, 2 branches, 1 stash entry, a submodule", 100, 1, 1),
        (
            f"large: {args.files} files, {args.refs + 1} branches (loose refs), 20 stash entries, a submodule",
            args.files,
            args.refs,
            20,
        ),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            repo = make(Path(tmp), files, refs, stashes)
            old_status(repo)
            snap = watch.take(repo, "runtime")  # warm all (the first status fills git's caches)
            assert snap is not None and watch.take(repo, "runtime", unless=snap) is snap
            before, now, probed = [], [], []
            for _ in range(3):  # alternate, so load on the machine hits all alike
                before.append(timed(functools.partial(old_status, repo), args.calls))
                now.append(timed(functools.partial(watch.take, repo, "runtime"), args.calls))
                probed.append(timed(functools.partial(watch.take, repo, "runtime", unless=snap), args.calls))
            b, n, q = statistics.median(before), statistics.median(now), statistics.median(probed)
            print(f"| {label} | {b * 1000:.1f} ms | {n * 1000:.1f} ms | {q * 1000:.2f} ms | {q / n:.3f}x |")


if __name__ == "__main__":
    main()
