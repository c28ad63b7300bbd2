"""evaluate_culprit and triage_builds against the commands a user would otherwise run by hand.

evaluate_culprit: every commit that moves the runtime pointer in the pypto-history fixture, against
the seed's manual sequence per commit (`git show --stat`, `git rev-parse <c>^:runtime <c>:runtime`,
`git -C runtime rev-list --count old..new`), which gives less (no kind, no direction check, no
highlights). triage_builds: a generated build output, against `diff -rq` over the same subfolders,
which also reports every file whose timestamp changed. Both sides run alternately in one process.
Highlight scaling: evaluate_culprit on commits that replace 1,000 to 100,000 lines of ordinary numeric
code (half renames, half changed values), against `git diff` of the same commit; the time must grow
about linearly (at most 2.2x per doubling).
Usage: python bench/bench_culprit.py [--quick] [--scaling-only]
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


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def clone_fixture(base: Path) -> Path:
    git(base, "clone", "-q", str(FIXTURE / "pypto.bundle"), "pypto")
    git(base, "clone", "-q", "--bare", str(FIXTURE / "simpler.bundle"), "simpler.git")
    repo = base / "pypto"
    git(repo, "config", "submodule.simpler.url", str(base / "simpler.git"))
    git(repo, "-c", "protocol.file.allow=always", "submodule", "update", "--init", "-q", "runtime")
    return repo


def manual(repo: Path, commits: list[str]) -> None:
    for c in commits:
        git(repo, "show", "--stat", c)
        links = (
            git(repo, "rev-parse", f"{c}^:runtime", f"{c}:runtime").split()
            if git(repo, "ls-tree", f"{c}^", "runtime")
            else []
        )
        if len(links) == 2:
            git(repo / "runtime", "rev-list", "--count", f"{links[0]}..{links[1]}")


def bench_culprit(repeat: int) -> str:
    from perfkit.culprit.evaluate import evaluate_culprit

    if not (FIXTURE / "pypto.bundle").is_file():
        return "| evaluate_culprit | skipped: pypto-history fixture missing | | |"
    with tempfile.TemporaryDirectory() as tmp:
        repo = clone_fixture(Path(tmp))
        commits = git(repo, "log", "--format=%H", "--", "runtime").split()
        ours, theirs = [], []
        for _ in range(repeat):
            t = time.perf_counter()
            for c in commits:
                evaluate_culprit(str(repo), c, "runtime")
            ours.append(time.perf_counter() - t)
            t = time.perf_counter()
            manual(repo, commits)
            theirs.append(time.perf_counter() - t)
        a, b = statistics.median(ours) / len(commits), statistics.median(theirs) / len(commits)
        return (
            f"| evaluate_culprit, {len(commits)} pointer-moving pypto commits, per commit, median of {repeat} "
            f"| {a * 1000:.0f} ms | manual git show/rev-parse/rev-list: {b * 1000:.0f} ms | {a / b:.2f}x |"
        )


SCALING_LINES = (
    "    total_{i} = math.fsum(values_{i}) / len(values_{i})",
    '    out.write(f"{{name_{i}}}\\t{{value_{i}:.17g}}\\n")',
    '    logger.info("row %d of %d", {i}, n)',
    "    rows_{i} = load_rows(path_{i})",
    "    ok_{i} = math.isclose(a_{i}, b_{i}, rel_tol=1e-9)",
)


def scaling_commit(base: Path, lines: int) -> tuple[Path, str]:
    """A repository whose last commit replaces `lines` lines in files of 5,000: even lines renamed, odd changed."""
    repo = base / f"scale{lines}"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    per = 5000
    old, new = {}, {}
    for f in range(0, lines, per):
        idx = range(f, min(f + per, lines))
        before = [SCALING_LINES[i % len(SCALING_LINES)].format(i=i) for i in idx]
        after = [
            ln.replace(f"_{i}", f"_{i}x") if i % 2 == 0 else ln.replace("1e-9", "1e-6").replace(".17g", ".6g") + "  # x"
            for i, ln in zip(idx, before, strict=True)
        ]
        old[f"pkg/mod{f // per}.py"], new[f"pkg/mod{f // per}.py"] = before, after
    for files, message in ((old, "base"), (new, "change")):
        for name, body in files.items():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text("def f(n):\n" + "\n".join(body) + "\n")
        git(repo, "add", "-A")
        git(repo, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-q", "-m", message)
    return repo, git(repo, "rev-parse", "HEAD").strip()


def bench_highlight_scaling(sizes: list[int], repeat: int) -> list[str]:
    from perfkit.culprit.evaluate import evaluate_culprit

    rows, times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            repo, sha = scaling_commit(Path(tmp), n)
            ours, theirs = [], []
            flagged = 0
            for _ in range(repeat):
                t = time.perf_counter()
                flagged = evaluate_culprit(str(repo), sha, max_highlights=200).highlights_total
                ours.append(time.perf_counter() - t)
                t = time.perf_counter()
                git(repo, "diff", "-U3", f"{sha}^", sha)
                theirs.append(time.perf_counter() - t)
            a, b = statistics.median(ours), statistics.median(theirs)
            growth = ""
            if times:
                growth = f"; {a / times[-1][1]:.2f}x the previous size's time for {n / times[-1][0]:.0f}x the lines"
            times.append((n, a))
            rows.append(
                f"| evaluate_culprit, a commit replacing {n:,} lines (half renames), median of {repeat} "
                f"| {a * 1000:.0f} ms, {flagged} hunks flagged{growth} | git diff: {b * 1000:.0f} ms | {a / b:.2f}x |"
            )
    return rows


KERNEL = "\n".join(f"  acc += in[{i}] * w[{i}];" for i in range(400))


def make_build(root: Path, stamp: str, files: int, changed: set[int], salt: bytes) -> None:
    for sub in ("kernels", "ptoas", "orchestration"):
        (root / sub).mkdir(parents=True)
    for i in range(files):
        body = KERNEL.replace("in[7]", "(half)in[7]") if i in changed else KERNEL
        (root / "kernels" / f"k{i}.cpp").write_text(f"// generated {stamp}\nvoid k{i}() {{\n{body}\n}}\n")
        (root / "kernels" / f"k{i}.o").write_bytes(b"\x7fELF\x00" + salt * 4096)
        (root / "ptoas" / f"k{i}.pto").write_text(f"// {stamp}\n" + "pto.tload %a : f32\n" * 200)
    (root / "orchestration" / "orch.cpp").write_text(f"// build_id: {salt.hex() * 6}\nvoid orch();\n")


def bench_triage(files: int, repeat: int) -> str:
    from perfkit.triage.compare import triage_builds

    with tempfile.TemporaryDirectory() as tmp:
        good, bad = Path(tmp) / "Prog_20260101_101010", Path(tmp) / "Prog_20260102_111111"
        make_build(good, "2026-01-01 10:10:10", files, set(), b"\x01")
        make_build(bad, "2026-01-02 11:11:11", files, {3, 17}, b"\x02")
        ours, theirs = [], []
        found = listed = 0
        for _ in range(repeat):
            t = time.perf_counter()
            res = triage_builds(str(good), str(bad))
            ours.append(time.perf_counter() - t)
            found = sum(len(s.differ) for s in res.subdirs)
            t = time.perf_counter()
            out = ""
            for sub in ("kernels", "ptoas", "orchestration"):
                out += subprocess.run(
                    ["diff", "-rq", str(good / sub), str(bad / sub)], capture_output=True, text=True
                ).stdout
            theirs.append(time.perf_counter() - t)
            listed = len(out.splitlines())
        a, b = statistics.median(ours), statistics.median(theirs)
        return (
            f"| triage_builds, {files * 2 + 1} text + {files} binary files, 2 with code changes, median of "
            f"{repeat} | {a * 1000:.0f} ms, {found} files flagged | diff -rq: {b * 1000:.0f} ms, {listed} files "
            f"listed | {a / b:.2f}x |"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats and a smaller build output")
    ap.add_argument("--scaling-only", action="store_true", help="only the highlight scaling rows")
    ns = ap.parse_args()
    sys.path.insert(0, str(ROOT / "server"))
    repeat = 1 if ns.quick else 3
    print("| benchmark | perfkit | alternative | ratio |")
    print("|---|---|---|---|")
    if not ns.scaling_only:
        print(bench_culprit(repeat))
        print(bench_triage(50 if ns.quick else 300, repeat))
    sizes = [1000, 10000, 100000] if ns.quick else [1000, 2000, 4000, 8000, 16000, 32000, 64000, 100000]
    for row in bench_highlight_scaling(sizes, repeat):
        print(row)


if __name__ == "__main__":
    main()
