"""A flaky check through the CLI: perfkit's bisect against `git bisect run`, trial by trial.

Independent of the strategy code: each trial builds a real git history (one file whose content
turns from good to bad at a planted commit, optionally a block of commits where the check cannot
run), writes a check script that flips its verdict with a seeded random generator, and runs
`perfkit bisect-start` / `perfkit bisect-run --json` as subprocesses, reading only what the CLI
prints. `git bisect run` runs the same check on a copy of the same history. Each run of the check
draws its flip from (trial seed, tool, run number), so the two tools face the same rate but not
the same coin: compare the counts, not single trials.

Cases (--cases): default settings, --noise, --flaky-fail/--flaky-pass, git bisect run, each at
the flip rate given; "skipblock" puts a block of --block commits that print an error and exit 125
(git's skip code; perfkit reads no verdict: a skip) right before the culprit, and counts a trial
right when the answer is exactly that block plus the culprit (git: its list of candidates).

Usage: python bench/harness_flaky_cli.py [--commits 128] [--trials 30] [--flip 0.05]
       [--cases default,noise,git] [--block 20] [--seed 0] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

CHECK = """\
import os, random, sys
from pathlib import Path
seed, tool, rate, state = sys.argv[1], sys.argv[2], float(sys.argv[3]), Path(sys.argv[4])
n = int(state.read_text()) + 1 if state.exists() else 1
state.write_text(str(n))
if Path("broken").exists():
    print("Traceback (most recent call last):")
    print("ImportError: cannot import name 'fused_gemm' from 'kernels'")
    sys.exit(125)
bad = Path("value.txt").read_text().strip() == "bad"
if random.Random(f"{seed}:{tool}:{n}").random() < rate:
    bad = not bad
print("max_abs_err=0.5 FAIL" if bad else "max_abs_err=0.001 PASS")
sys.exit(1 if bad else 0)
"""


@dataclass
class Trial:
    case: str
    seed: int
    culprit: int  # index of the first bad commit, 1..commits
    block: list[int]
    right: bool
    runs: int
    repeats: int  # runs of a point already run (confirmations, noise re-runs)
    outcome: str
    seconds: float
    end_stop: bool  # stopped on an end check


def git(repo: Path, *args: str, check: bool = True) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2024-01-01T00:00:00", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00"}
    res = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=check)
    return res.stdout


def build(repo: Path, commits: int, culprit: int, block: list[int]) -> list[str]:
    """c0 (good) .. c<commits>; value.txt is bad from `culprit` on; `broken` exists at the block's commits."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "h@example.com")
    git(repo, "config", "user.name", "harness")
    shas = []
    for i in range(commits + 1):
        (repo / "value.txt").write_text("bad\n" if i >= culprit and i > 0 else "good\n")
        (repo / "src.txt").write_text(f"change {i}\n")
        broken = repo / "broken"
        if i in block:
            broken.write_text("x\n")
        elif broken.exists():
            broken.unlink()
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"c{i}")
        shas.append(git(repo, "rev-parse", "HEAD").strip())
    return shas


def perfkit(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("perfkit") or str(Path(sys.executable).with_name("perfkit"))
    return subprocess.run([exe, *args], capture_output=True, text=True)


def run_perfkit(case: str, work: Path, shas: list[str], seed: int, flip: float) -> tuple[str | None, list[str], dict]:
    repo = work / "repo"
    check = work / "check.py"
    state = work / f"count-{case}"
    cmd = f"{sys.executable} {check} {seed} perfkit {flip} {state}"
    extra = {"noise": ["--noise"], "flaky": ["--flaky-fail", str(flip), "--flaky-pass", str(flip)]}.get(case, [])
    if case == "skipblock-noise":
        extra = ["--noise"]
    start = perfkit("bisect-start", str(repo), shas[0], "--run", cmd, "--submodule", "", *extra, "--json")
    if start.returncode != 0:
        raise RuntimeError(f"bisect-start failed: {start.stderr or start.stdout}")
    res = perfkit("bisect-run", str(repo), "--json")
    if res.returncode not in (0, 3):
        raise RuntimeError(f"bisect-run failed ({res.returncode}): {res.stderr[-2000:]}")
    status = json.loads(res.stdout)
    perfkit("bisect-reset", str(repo))
    culprit = (status.get("culprit") or {}).get("commit")
    candidates = [c["commit"] for c in status.get("candidates") or []]
    return culprit, candidates, status


def run_git(work: Path, shas: list[str], seed: int, flip: float) -> tuple[str | None, list[str], int]:
    repo = work / "repo-git"
    shutil.copytree(work / "repo", repo)
    state = work / "count-git"
    git(repo, "bisect", "start", shas[-1], shas[0])
    out = git(repo, "bisect", "run", sys.executable, str(work / "check.py"), str(seed), "git", str(flip), str(state),
              check=False)  # fmt: skip
    runs = int(state.read_text()) if state.exists() else 0
    culprit = None
    candidates: list[str] = []
    for line in out.splitlines():
        if line.endswith(" is the first bad commit"):
            culprit = line.split()[0]
        elif len(line) >= 40 and all(c in "0123456789abcdef" for c in line[:40]) and "only 'skip'ped" in out:
            candidates.append(line[:40])
    git(repo, "bisect", "reset", check=False)
    return culprit, candidates, runs


def trial(case: str, seed: int, commits: int, flip: float, block_len: int, root: Path) -> Trial:
    rng = random.Random(f"trial:{seed}")
    skipblock = case.startswith("skipblock")
    culprit = rng.randrange(block_len + 2 if skipblock else 1, commits + 1)
    block = list(range(culprit - block_len, culprit)) if skipblock else []
    work = root / f"{case}-{seed}"
    shas = build(work / "repo", commits, culprit, block)
    (work / "check.py").write_text(CHECK)
    t0 = time.monotonic()
    want = shas[culprit]
    tool = "git" if case in ("git", "skipblock-git") else "perfkit"
    if tool == "git":
        found, cands, runs = run_git(work, shas, seed, flip)
        repeats, outcome, end_stop = 0, "found" if found else "candidates", False
    else:
        found, cands, status = run_perfkit(case, work, shas, seed, flip)
        steps = [s for s in status.get("steps", []) if s.get("ran")]
        runs = len(steps)
        seen: set[tuple[str, str | None]] = set()
        repeats = 0
        for s in steps:
            key = (s["superproject"], s.get("submodule"))
            repeats += key in seen
            seen.add(key)
        outcome = status.get("outcome") or ""
        end_stop = outcome in ("good_end_not_good", "bad_end_not_bad")
    if skipblock:
        expect = {shas[i] for i in [*block, culprit]}
        right = set(cands) == expect or (found is not None and not block and found == want)
    else:
        right = found == want
    shutil.rmtree(work, ignore_errors=True)
    return Trial(case, seed, culprit, block, right, runs, repeats, outcome, time.monotonic() - t0, end_stop)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commits", type=int, default=128)
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--flip", type=float, default=0.05)
    ap.add_argument("--cases", default="default,git")
    ap.add_argument("--block", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="perfkit-harness-"))
    print(f"{a.commits} commits, flips {a.flip:.0%} both ways, {a.trials} trials per case (seeds {a.seed}..)")
    print("| case | right | mean runs | p95 runs | of which repeats | stopped on an end | outcomes |")
    print("|---|---|---|---|---|---|---|")
    try:
        for case in a.cases.split(","):
            seeds = range(a.seed, a.seed + a.trials)
            with ThreadPoolExecutor(a.jobs) as pool:
                done = list(pool.map(lambda s, c=case: trial(c, s, a.commits, a.flip, a.block, root), seeds))
            runs = sorted(t.runs for t in done)
            outcomes: dict[str, int] = {}
            for t in done:
                outcomes[t.outcome] = outcomes.get(t.outcome, 0) + 1
            said = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
            p95 = runs[min(len(runs) - 1, int(0.95 * len(runs)))]
            print(
                f"| {case} | {sum(t.right for t in done)} of {len(done)} | {statistics.mean(runs):.1f} | {p95} | "
                f"{statistics.mean(t.repeats for t in done):.1f} | {sum(t.end_stop for t in done)} | {said} |",
                flush=True,
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
