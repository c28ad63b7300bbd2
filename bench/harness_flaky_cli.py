"""A flaky check through the CLI: perfkit's bisect against `git bisect run`, trial by trial.

Independent of the strategy code: each trial builds a real git history (one file whose content
turns from good to bad at a planted commit, optionally a block of commits where the check cannot
run), writes a check script that flips its verdict with a seeded random generator, and runs
`perfkit bisect-start` / `perfkit bisect-run --json` as subprocesses, reading only what the CLI
prints. `git bisect run` runs the same check on a copy of the same history. Each run of the check
draws its flip from (trial seed, tool, run number), so the two tools face the same rates but not
the same coin: compare the counts, not single trials.

Flip cells (--flips): F/P in percent, F the chance that a passing commit reads FAIL, P that a
failing one reads PASS: "5/5" is symmetric, "10/0" and "0/10" one-sided. Each cell reports, per
case, how often the answer was right with its 95% Wilson interval, the runs (mean, per log2 N, p95),
and the answers that named a wrong commit at a stated confidence at or above the target: a wrong
culprit stated below the target, or no culprit, is said, not hidden.

Cases (--cases): default settings, --noise, --flaky-fail/--flaky-pass, git bisect run; "skipblock"
puts a block of --block commits that print an error and exit 125 (git's skip code; perfkit reads no
verdict: a skip) right before the culprit, and counts a trial right when the answer is exactly that
block plus the culprit (git: its list of candidates).

Usage: python bench/harness_flaky_cli.py [--commits 128] [--trials 30] [--flips 0/0,1/1,5/5,10/10,5/0,0/5,10/0,0/10]
       [--cases default,git] [--block 20] [--seed 0] [--jobs 2] [--out FILE]
       (--flip R is the one cell R/R, as before)
"""

from __future__ import annotations

import argparse
import json
import math
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wilson import wilson  # noqa: E402

CHECK = """\
import os, random, sys
from pathlib import Path
seed, tool, state = sys.argv[1], sys.argv[2], Path(sys.argv[5])
to_fail, to_pass = float(sys.argv[3]), float(sys.argv[4])
n = int(state.read_text()) + 1 if state.exists() else 1
state.write_text(str(n))
if Path("broken").exists():
    print("Traceback (most recent call last):")
    print("ImportError: cannot import name 'fused_gemm' from 'kernels'")
    sys.exit(125)
bad = Path("value.txt").read_text().strip() == "bad"
if random.Random(f"{seed}:{tool}:{n}").random() < (to_pass if bad else to_fail):
    bad = not bad
print("max_abs_err=0.5 FAIL" if bad else "max_abs_err=0.001 PASS")
sys.exit(1 if bad else 0)
"""
TARGET = 0.99  # the confidence the default states it reaches


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
    confidence: float | None = None  # the lowest confidence the answer states (perfkit), None when it states none
    named: bool = False  # one commit was named


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


Flips = tuple[float, float]  # (a passing commit reads FAIL, a failing one reads PASS)


def run_perfkit(case: str, work: Path, shas: list[str], seed: int, flips: Flips) -> tuple[str | None, list[str], dict]:
    repo = work / "repo"
    check = work / "check.py"
    state = work / f"count-{case}"
    cmd = f"{sys.executable} {check} {seed} perfkit {flips[0]} {flips[1]} {state}"
    told = ["--flaky-fail", str(flips[0]), "--flaky-pass", str(flips[1])]
    extra = {"noise": ["--noise"], "flaky": told}.get(case, [])
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


def run_git(work: Path, shas: list[str], seed: int, flips: Flips) -> tuple[str | None, list[str], int]:
    repo = work / "repo-git"
    shutil.copytree(work / "repo", repo)
    state = work / "count-git"
    git(repo, "bisect", "start", shas[-1], shas[0])
    out = git(repo, "bisect", "run", sys.executable, str(work / "check.py"), str(seed), "git", str(flips[0]),
              str(flips[1]), str(state), check=False)  # fmt: skip
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


def trial(case: str, seed: int, commits: int, flips: Flips, block_len: int, root: Path) -> Trial:
    rng = random.Random(f"trial:{seed}")
    skipblock = case.startswith("skipblock")
    culprit = rng.randrange(block_len + 2 if skipblock else 1, commits + 1)
    block = list(range(culprit - block_len, culprit)) if skipblock else []
    work = root / f"{case}-{flips[0]}-{flips[1]}-{seed}"
    shas = build(work / "repo", commits, culprit, block)
    (work / "check.py").write_text(CHECK)
    t0 = time.monotonic()
    want = shas[culprit]
    tool = "git" if case in ("git", "skipblock-git") else "perfkit"
    if tool == "git":
        found, cands, runs = run_git(work, shas, seed, flips)
        repeats, outcome, end_stop = 0, "found" if found else "candidates", False
        confidence = None
    else:
        found, cands, status = run_perfkit(case, work, shas, seed, flips)
        stated = list((status.get("confidence") or {}).values())
        confidence = min(stated) if stated and found else None
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
    return Trial(
        case, seed, culprit, block, right, runs, repeats, outcome, time.monotonic() - t0, end_stop, confidence,
        found is not None,
    )  # fmt: skip


def cells(text: str) -> list[Flips]:
    out = []
    for cell in text.split(","):
        fail, _, passed = cell.strip().partition("/")
        out.append((float(fail) / 100, float(passed or fail) / 100))
    return out


HEADER = (
    "| flips F/P | case | right | 95% interval | mean runs | runs / log2 N | p95 runs | repeats | "
    "wrong at >= 99% stated | wrong below 99% | no single commit | outcomes |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def row(flips: Flips, case: str, done: list[Trial], commits: int) -> str:
    runs = sorted(t.runs for t in done)
    outcomes: dict[str, int] = {}
    for t in done:
        outcomes[t.outcome] = outcomes.get(t.outcome, 0) + 1
    said = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
    p95 = runs[min(len(runs) - 1, int(0.95 * len(runs)))]
    right = sum(t.right for t in done)
    lo, hi = wilson(right, len(done))
    wrong = [t for t in done if t.named and not t.right]
    confident = sum(1 for t in wrong if t.confidence is not None and t.confidence >= TARGET)
    mean = statistics.mean(runs)
    return (
        f"| {flips[0]:.0%}/{flips[1]:.0%} | {case} | {right} of {len(done)} ({right / len(done):.1%}) | "
        f"{lo:.1%} to {hi:.1%} | {mean:.1f} | {mean / math.log2(commits):.2f} | {p95} | "
        f"{statistics.mean(t.repeats for t in done):.1f} | {confident} | {len(wrong) - confident} | "
        f"{sum(not t.named for t in done)} | {said} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--commits", type=int, default=128)
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--flips", default="0/0,1/1,5/5,10/10,5/0,0/5,10/0,0/10", help="cells F/P in percent")
    ap.add_argument("--flip", type=float, default=None, help="one symmetric cell (a rate, 0.05 for 5%%)")
    ap.add_argument("--cases", default="default,git")
    ap.add_argument("--block", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="also write the table here")
    a = ap.parse_args()
    flip_cells = [(a.flip, a.flip)] if a.flip is not None else cells(a.flips)
    root = Path(tempfile.mkdtemp(prefix="perfkit-harness-"))
    lines = [
        f"{a.commits} commits, {a.trials} trials per case and cell (seeds {a.seed}..{a.seed + a.trials - 1}); "
        f"log2 N = {math.log2(a.commits):.2f}",
        "",
        HEADER,
    ]
    print("\n".join(lines), flush=True)
    started = time.monotonic()
    try:
        for flips in flip_cells:
            for case in a.cases.split(","):
                seeds = range(a.seed, a.seed + a.trials)
                with ThreadPoolExecutor(a.jobs) as pool:
                    done = list(pool.map(lambda s, c=case, f=flips: trial(c, s, a.commits, f, a.block, root), seeds))
                lines.append(row(flips, case, done, a.commits))
                print(lines[-1], flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    lines += ["", f"measured in {time.monotonic() - started:.0f} s with {a.jobs} jobs"]
    print(lines[-1])
    if a.out:
        a.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
