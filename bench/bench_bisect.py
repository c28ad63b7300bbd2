"""The two-level bisect against what a user would otherwise run, on the pypto-history fixture.

Case: a precision bug planted in simpler behind pypto's pointer-only bump #1112 (the run command
checks with `git merge-base --is-ancestor` whether the runtime under test contains the planted
commit), searched from the commit that adds the submodule to pypto's tip: 852 pypto commits, then
26 simpler commits inside the bump.

- Orchestration per tested point: perfkit (private worktree, submodule clone, state on disk, lock,
  logs) against a plain `git bisect run` in the user's own checkout whose script does
  `git submodule update --init runtime` before the same check, level 1 and then level 2 by hand.
  Both run trivial install commands (`true`), so the figure is the bookkeeping plus git checkouts.
- Runs and installs to name both commits: perfkit (ends verified, installs only what changed)
  against the seed workflow (git bisect, reinstall compiler and runtime at every level-1 step, pin
  the compiler once and reinstall the runtime at every level-2 step, reinstall both at the end) and
  against `git bisect run` alone (one level: it stops at the bump commit).

Usage: python bench/bench_bisect.py [--quick] [--out docs/perf-bisect.md]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(os.environ.get("PERFKIT_PYPTO_FIXTURE", ROOT / "tests" / "fixtures" / "pypto-history"))
ADD = "9ac2b906691bf082e8da34c6053a00f54df0a0a3"
BUMP = "3846b209a617ad68a1acc1bc973418196eb37cd4"
BUMP_OLD, BUMP_NEW = "66e7c901882958c2c936c8aa1ef167706def8f2f", "0304adf6eba55ae6e088dded2f3e77b5c72fea96"


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@example.com",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@example.com",
    }
    return subprocess.run(
        ["git", "-c", "protocol.file.allow=always", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout


def clone_fixture(base: Path) -> Path:
    git(base, "clone", "-q", str(FIXTURE / "pypto.bundle"), "pypto")
    if not (base / "simpler.git").exists():
        git(base, "clone", "-q", "--bare", str(FIXTURE / "simpler.bundle"), "simpler.git")
    repo = base / "pypto"
    git(repo, "config", "submodule.simpler.url", str(base / "simpler.git"))
    git(repo, "submodule", "update", "--init", "-q", "runtime")
    return repo


def planted(repo: Path) -> str:
    return git(repo / "runtime", "rev-list", "--first-parent", "--reverse", f"{BUMP_OLD}..{BUMP_NEW}").split()[9]


def perfkit_bisect(repo: Path, x: str, verify: bool = True) -> tuple[float, dict]:
    from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start

    run = f'if git -C "$PERFKIT_SUBMODULE" merge-base --is-ancestor {x} HEAD; then echo FAIL; else echo PASS; fi'
    t = time.perf_counter()
    bisect_start(str(repo), ADD, run=run, install=["true"], install_submodule=["true"], verify_ends=verify)
    res = bisect_run(str(repo))
    elapsed = time.perf_counter() - t
    assert res.culprit.commit == BUMP and res.submodule_culprit.commit == x, res.message
    out = {"runs": res.runs, "installs": res.installs + 2, "steps": len(res.steps)}  # + the restore at the end
    bisect_reset(str(repo))
    return elapsed, out


def git_bisect(repo: Path, x: str, scratch: Path) -> tuple[float, dict]:
    """Both levels with `git bisect run` in the user's checkout, as the seed workflow does them."""
    count = scratch / "runs"
    count.write_text("")
    level1 = scratch / "level1.sh"
    level1.write_text(
        f"git submodule update --init -q runtime || exit 125\ntrue; true\necho 1 >> {count}\n"
        f"if git -C runtime merge-base --is-ancestor {x} HEAD; then exit 1; fi\nexit 0\n"
    )
    level2 = scratch / "level2.sh"
    level2.write_text(f"true\necho 2 >> {count}\nif git merge-base --is-ancestor {x} HEAD; then exit 1; fi\nexit 0\n")
    head = git(repo, "rev-parse", "HEAD").strip()
    t = time.perf_counter()
    git(repo, "bisect", "start", "HEAD", ADD)
    out1 = git(repo, "bisect", "run", "sh", str(level1))
    culprit = git(repo, "rev-parse", "refs/bisect/bad").strip()
    git(repo, "bisect", "reset")
    old, new = git(repo, "rev-parse", f"{culprit}^:runtime", f"{culprit}:runtime").split()
    git(repo, "checkout", "-q", culprit)
    git(repo, "submodule", "update", "-q", "runtime")
    sub = repo / "runtime"
    git(sub, "bisect", "start", new, old)
    git(sub, "bisect", "run", "sh", str(level2))
    sub_culprit = git(sub, "rev-parse", "refs/bisect/bad").strip()
    git(sub, "bisect", "reset")
    git(repo, "checkout", "-q", head)
    git(repo, "submodule", "update", "-q", "runtime")
    elapsed = time.perf_counter() - t
    assert culprit == BUMP and sub_culprit == x, (culprit, sub_culprit, out1[-300:])
    lines = count.read_text().split()
    r1, r2 = lines.count("1"), lines.count("2")
    return elapsed, {"runs": r1 + r2, "runs1": r1, "runs2": r2}


def replay(repo: Path) -> tuple[float, float, float, float]:
    """Level 1 replayed for every possible culprit position on the real pointer history.

    Returns mean runs and mean installs per search for perfkit's strategy (superproject every step,
    submodule only when the pointer differs from the installed one, cheap points preferred within
    the worst-case budget), for plain midpoints with the same install rule, and the seed's installs
    (both at every step). No checkouts: the strategy is pure, the pointers come from git.
    """
    from perfkit.bisect.models import BisectSettings
    from perfkit.bisect.search.bisection import Bisection
    from perfkit.bisect.search.planner import Planner
    from perfkit.bisect.state.store import PhaseData, State

    bad = git(repo, "rev-parse", "HEAD").strip()
    items = git(repo, "rev-list", "--first-parent", "--reverse", f"{ADD}..{bad}").split()
    st = State(
        id="replay",
        repo=str(repo),
        good=ADD,
        bad=bad,
        created="",
        level1=PhaseData(name="level1", items=items),
        settings=BisectSettings(run="true", submodule="runtime", install=["true"], install_submodule=["true"]),
    )
    ptrs = Planner(repo, st).level1_pointers()
    n = len(items)

    def search(first_new: int, prefer: bool) -> tuple[int, int]:
        marks: dict[int, str] = {}
        installed, runs, installs = None, 0, 0
        while True:
            d = Bisection().decide(n, marks, (lambda i, at=installed: ptrs[i] == at) if prefer and installed else None)
            if not d.test:
                assert d.found == first_new
                return runs, installs
            i = d.test[0]
            runs += 1
            installs += 1 + (ptrs[i] != installed)
            installed = ptrs[i]
            marks[i] = "new" if i >= first_new else "old"

    ours = [search(f, True) for f in range(n)]
    plain = [search(f, False) for f in range(n)]
    return (
        statistics.mean(r for r, _ in ours),
        statistics.mean(i for _, i in ours),
        statistics.mean(i for _, i in plain),
        statistics.mean(2 * r for r, _ in plain),
    )


def fast_import(path: Path, commits: list[tuple[str, dict[str, str], dict[str, str]]]) -> list[str]:
    from perfkit.cli.demo.fastimport import Commit, write_history

    history = [Commit(msg, dict(files), links, author="b <b@example.com>") for msg, files, links in commits]
    return write_history(path, history, start_time=1_700_000_000, step=1)


def synthetic(base: Path) -> tuple[Path, str, str]:
    """512 compiler commits over a 64-commit runtime, small trees: checkouts cost almost nothing, so
    the time per point is the tools' own overhead. A source bug lands at commit 333."""
    r = fast_import(base / "rt", [(f"rt {i}", {"k.cpp": f"{i}\n"}, {}) for i in range(64)])
    mods = f'[submodule "rt"]\n\tpath = runtime\n\turl = {base / "rt"}\n'
    commits = [("c0", {".gitmodules": mods, "src.py": "0\n"}, {"runtime": r[0]})]
    for i in range(1, 512):
        links = {"runtime": r[i // 8]} if i % 32 == 0 else {}
        commits.append((f"c{i}", {"src.py": f"{i}{' BUG' if i >= 333 else ''}\n"}, links))
    shas = fast_import(base / "sup", commits)
    git(base / "sup", "submodule", "update", "--init", "-q", "runtime")
    return base / "sup", shas[0], shas[333]


def overhead(base: Path, repeat: int) -> tuple[float, float, int, int]:
    from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start

    ours_repo, good, culprit = synthetic(base / "a")
    alt_repo, alt_good, alt_culprit = synthetic(base / "b")  # other shas: the runtime URL differs
    check = "if grep -q BUG src.py; then echo FAIL; else echo PASS; fi"
    script = base / "alt.sh"
    script.write_text(
        "git submodule update --init -q runtime || exit 125\ntrue; true\n"
        "if grep -q BUG src.py; then exit 1; fi\nexit 0\n"
    )
    ours, theirs = [], []
    for _ in range(repeat):
        t = time.perf_counter()
        bisect_start(str(ours_repo), good, run=check, install=["true"], install_submodule=["true"], verify_ends=False)
        res = bisect_run(str(ours_repo))
        ours.append((time.perf_counter() - t) / len(res.steps))
        assert res.culprit.commit == culprit
        steps = len(res.steps)
        bisect_reset(str(ours_repo))
        t = time.perf_counter()
        git(alt_repo, "bisect", "start", "HEAD", alt_good)
        out = git(alt_repo, "bisect", "run", "sh", str(script))
        assert alt_culprit in out
        runs = out.count("running ")
        git(alt_repo, "bisect", "reset")
        theirs.append((time.perf_counter() - t) / runs)
    return statistics.median(ours), statistics.median(theirs), steps, runs


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="one repeat instead of three")
    ap.add_argument("--out", help="also write the markdown to this file")
    ns = ap.parse_args()
    sys.path.insert(0, str(ROOT / "server"))
    if not (FIXTURE / "pypto.bundle").is_file():
        print("| bisect | skipped: pypto-history fixture missing | | |")
        return 0
    repeat = 1 if ns.quick else 3
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        ours_repo = clone_fixture(base)
        (base / "alt").mkdir()
        alt_repo = clone_fixture(base / "alt")
        x = planted(ours_repo)
        ours, theirs = [], []
        for _ in range(repeat):
            t, pk = perfkit_bisect(ours_repo, x)
            ours.append(t / pk["steps"])
            t, gb = git_bisect(alt_repo, x, base)
            theirs.append(t / gb["runs"])
        _, bare = perfkit_bisect(ours_repo, x, verify=False)
        runs_r, ours_i, plain_i, seed_i = replay(ours_repo)
        (base / "syn").mkdir()
        oa, ob, osteps, oruns = overhead(base / "syn", repeat)
    a, b = statistics.median(ours), statistics.median(theirs)
    seed_installs = 2 * gb["runs1"] + 1 + gb["runs2"] + 2
    rows = [
        "| benchmark | perfkit | alternative | ratio |",
        "|---|---|---|---|",
        f"| bisect orchestration per tested point, pypto-history bump #1112 (852 + 26 commits, trivial run "
        f"and installs), median of {repeat} | {a * 1000:.0f} ms | git bisect run + submodule update, both levels "
        f"by hand: {b * 1000:.0f} ms | {a / b:.2f}x |",
        f"| bisect overhead per tested point, small synthetic repo (512 commits, checkouts nearly free, trivial "
        f"run and installs), median of {repeat} | {oa * 1000:.0f} ms ({osteps} points) | git bisect run + submodule "
        f"update: {ob * 1000:.0f} ms ({oruns} points) | {oa / ob:.2f}x |",
        f"| runs to name the pypto bump and the simpler commit | {pk['runs']} ({bare['runs']} with verify_ends off) "
        f"| git bisect run, twice: {gb['runs']} ({gb['runs1']} + {gb['runs2']}) | {pk['runs'] / gb['runs']:.2f}x "
        f"({bare['runs'] / gb['runs']:.2f}x) |",
        f"| installs for the same, end restore included | {pk['installs']} ({bare['installs']} with verify_ends off) "
        f"| seed workflow: {seed_installs}; both at every step: {2 * gb['runs'] + 2} "
        f"| {pk['installs'] / seed_installs:.2f}x ({bare['installs'] / seed_installs:.2f}x) |",
        f"| installs per level-1 search, mean over all 852 possible culprit commits (strategy replayed on the "
        f"real pointer history; {runs_r:.2f} runs each) | {ours_i:.2f} | seed workflow: {seed_i:.2f}; midpoints "
        f"with the same install rule: {plain_i:.2f} | {ours_i / seed_i:.2f}x ({ours_i / plain_i:.2f}x) |",
        "| levels named in one call | 2 (bump, then the simpler commit) | git bisect run: 1 (stops at the bump) | |",
    ]
    text = "\n".join(rows)
    print(text)
    if ns.out:
        Path(ns.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
