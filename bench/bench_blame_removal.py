"""git_blame_removal against the blame a user would run by hand, on long histories.

Two repositories:
- generated: tens of thousands of commits (with merged side branches) rewriting lines of a few
  dozen files, then one commit deleting about 100 blocks spread over 10 files. The alternatives are
  `git blame` of each whole touched file (what a user runs), and one `git blame -L` per hunk.
  Both use the same flags as the tool (--porcelain -w), and the tool is timed end to end
  (diff, blame, commit metadata, PR merges, touched files, names at head), the alternatives
  for the blame calls alone. Before timing, every line the tool attributes is checked against
  a plain whole-file `git blame -w`.
- pypto: the real 1,524-commit pypto history (files hold one line each, so whole-file and ranged
  blame do the same work; the row shows the end-to-end latency on a real history), 100 files deleted.

Each measurement alternates tool and alternative, repeated; medians are reported.
Usage: python bench/bench_blame_removal.py [--quick] [--commits N] [--repeat N] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPTO = Path(os.environ.get("PERFKIT_PYPTO_FIXTURE", ROOT / "tests" / "fixtures" / "pypto-history"))
ENV = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str, input: bytes | None = None) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], input=input, capture_output=True, check=True, env=ENV
    ).stdout.decode()


def generate(path: Path, commits: int, files: int = 40, lines: int = 200, seed: int = 7) -> tuple[str, str, int]:
    """A linear-plus-merges history by fast-import; returns (base, head, hunks deleted by head)."""
    from perfkit.cli.demo.fastimport import Commit, write_history

    rng = random.Random(seed)
    content = {f"src/mod_{i:02d}.py": [f"v_{i}_{j} = compute({i}, {j}, 0)" for j in range(lines)] for i in range(files)}
    history: list[Commit] = []

    def commit(branch: str, msg: str, changed: dict[str, list[str]], parents: list[int]) -> int:
        n = len(history) + 1
        history.append(
            Commit(
                msg,
                {name: "\n".join(body) + "\n" for name, body in changed.items()},
                author=f"Dev {n % 17} <dev{n % 17}@example.com>",
                committer="Bench <bench@example.com>",
                branch=branch,
                parents=parents,
            )
        )
        return len(history) - 1

    main = commit("main", "Initial import (#1)", content, [])
    n, pr = 1, 1
    while n < commits:
        if n % 200 == 0:  # a side branch of three commits, merged by a pull-request merge
            pr += 1
            side = main
            touched: dict[str, list[str]] = {}
            for _ in range(3):
                name = rng.choice(list(content))
                for j in rng.sample(range(lines), 3):
                    content[name][j] = f"v_{name[-5:-3]}_{j} = compute({n}, {j}, {rng.randint(0, 9)})"
                touched[name] = list(content[name])
                side = commit("side", f"side work {n}", {name: content[name]}, [side])
                n += 1
            main = commit("main", f"Merge pull request #{pr} from dev/side-{n}", touched, [main, side])
            n += 1
            continue
        name = rng.choice(list(content))
        for j in rng.sample(range(lines), rng.randint(1, 3)):
            content[name][j] = f"v_{name[-5:-3]}_{j} = compute({n}, {j}, {rng.randint(0, 9)})"
        pr += 1
        main = commit("main", f"Change {n} (#{pr})", {name: content[name]}, [main])
        n += 1
    write_history(path, history, start_time=1_600_000_000, step=60, env=ENV)
    git(path, "checkout", "-q", "main")
    base = git(path, "rev-parse", "HEAD").strip()
    hunks = 0
    for name in sorted(content)[:10]:
        keep = list(content[name])
        starts = sorted(rng.sample(range(0, lines - 5, 6), 10))
        drop = {s + k for s in starts for k in range(rng.randint(2, 4))}
        hunks += len(starts)
        (path / name).write_text("\n".join(x for j, x in enumerate(keep) if j not in drop) + "\n")
    git(path, "commit", "-q", "-am", "Delete 100 blocks")
    return base, git(path, "rev-parse", "HEAD").strip(), hunks


def pypto_case(path: Path, hunks: int = 100) -> tuple[str, str, int] | None:
    if not (PYPTO / "pypto.bundle").is_file():
        return None
    git(path.parent, "clone", "-q", str(PYPTO / "pypto.bundle"), str(path))
    base = git(path, "rev-parse", "HEAD").strip()
    # files changed most often: their one line has the longest history behind it
    counts: dict[str, int] = {}
    for line in git(path, "log", "--format=", "--name-only", "--no-renames").splitlines():
        if line and not line.startswith("runtime"):
            counts[line] = counts.get(line, 0) + 1
    tracked = set(git(path, "ls-files").splitlines())
    victims = [p for p, _ in sorted(counts.items(), key=lambda kv: -kv[1]) if p in tracked][:hunks]
    git(path, "rm", "-q", "--", *victims)
    git(path, "commit", "-q", "-m", "Delete 100 files")
    return base, git(path, "rev-parse", "HEAD").strip(), len(victims)


def _removed(repo: Path, base: str, head: str) -> dict[str, list[tuple[int, int]]]:
    """Deleted line ranges per file at base, from git itself (for the per-hunk alternative)."""
    ranges: dict[str, list[tuple[int, int]]] = {}
    cur = None
    for line in git(repo, "diff", "-U0", "--no-renames", base, head).splitlines():
        if line.startswith("--- a/"):
            cur = line[6:]
        elif line.startswith("--- "):
            cur = None
        elif line.startswith("@@") and cur:
            old = line.split()[1][1:]
            a, _, b = old.partition(",")
            n = 1 if not b else int(b)
            if n:
                ranges.setdefault(cur, []).append((int(a), int(a) + n - 1))
    return ranges


def check_same_answer(repo: Path, base: str, res) -> None:
    """Every line the tool attributes must get the same commit from a plain whole-file `git blame -w`."""
    by_path: dict[str, dict[int, str]] = {}
    for c in res.commits:
        for r in c.ranges:
            by_path.setdefault(r.path, {}).update({n: c.sha for n in range(r.start, r.end + 1)})
    checked = 0
    for path, lines in by_path.items():
        for line in git(repo, "blame", "--porcelain", "-w", base, "--", path).splitlines():
            parts = line.split(" ")
            if len(parts) >= 3 and len(parts[0]) == 40 and parts[2].isdigit() and int(parts[2]) in lines:
                assert lines[int(parts[2])] == parts[0], (path, parts[2])
                checked += 1
    assert checked == sum(len(v) for v in by_path.values()) > 0
    print(f"{checked} attributed lines match plain git blame", file=sys.stderr)


def measure(repo: Path, base: str, head: str, repeat: int) -> dict[str, float]:
    sys.path.insert(0, str(ROOT / "server"))
    from perfkit.changes.blame import git_blame_removal

    ranges = _removed(repo, base, head)

    def tool() -> None:
        res = git_blame_removal(str(repo), base, head)
        assert res.blame_calls == len(ranges), (res.blame_calls, len(ranges))

    def whole() -> None:
        for path in ranges:
            git(repo, "blame", "--porcelain", "-w", base, "--", path)

    def ranged() -> None:  # ranged blame calls alone, one after the other, each walking the history
        for path, rs in ranges.items():
            args = [a for r in rs for a in ("-L", f"{r[0]},{r[1]}")]
            git(repo, "blame", "--porcelain", "-w", *args, base, "--", path)

    def per_hunk() -> None:
        for path, rs in ranges.items():
            for a, b in rs:
                git(repo, "blame", "--porcelain", "-w", "-L", f"{a},{b}", base, "--", path)

    samples: dict[str, list[float]] = {"tool": [], "whole": [], "ranged": [], "per_hunk": []}
    check_same_answer(repo, base, git_blame_removal(str(repo), base, head))  # also warms the page cache
    for _ in range(repeat):
        for name, fn in (("tool", tool), ("whole", whole), ("ranged", ranged), ("per_hunk", per_hunk)):
            t = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - t)
    med = {k: statistics.median(v) for k, v in samples.items()}
    med["files"] = len(ranges)
    med["hunks"] = sum(len(v) for v in ranges.values())
    return med


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="3,000 generated commits, 1 repeat")
    ap.add_argument("--commits", type=int, default=30_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-write", action="store_true", help="do not write docs/perf-blame.md")
    ns = ap.parse_args()
    commits, repeat = (3_000, 1) if ns.quick else (ns.commits, ns.repeat)
    rows = []
    with tempfile.TemporaryDirectory(prefix="perfkit-bench-blame-") as tmp:
        t = time.perf_counter()
        base, head, _ = generate(Path(tmp) / "generated", commits)
        built = time.perf_counter() - t
        print(f"generated {commits} commits in {built:.1f}s", file=sys.stderr)
        m = measure(Path(tmp) / "generated", base, head, repeat)
        rows.append(
            f"| git_blame_removal, generated history of {commits:,} commits, {m['hunks']:.0f} deleted hunks in "
            f"{m['files']:.0f} files (end to end) | {m['tool']:.2f} s | `git blame` of each whole file: "
            f"{m['whole']:.2f} s; one `git blame -L` per hunk: {m['per_hunk']:.2f} s | "
            f"{m['whole'] / m['tool']:.1f}x faster than whole files, {m['per_hunk'] / m['tool']:.1f}x than "
            "per hunk |"
        )
        rows.append(
            f"| of which: line ranges alone (one `git blame -L a,b -L c,d ...` per file, one after the "
            f"other, each walking the history) | {m['ranged']:.2f} s | `git blame` of each whole file: "
            f"{m['whole']:.2f} s | {m['whole'] / m['ranged']:.1f}x (the rest: one shared history walk, "
            "files blamed side by side) |"
        )
        case = pypto_case(Path(tmp) / "pypto")
        if case:
            p = measure(Path(tmp) / "pypto", case[0], case[1], repeat)
            rows.append(
                f"| git_blame_removal, real pypto history (1,524 commits), {p['hunks']:.0f} one-line files "
                f"deleted (end to end) | {p['tool']:.2f} s | `git blame` of each whole file: "
                f"{p['whole']:.2f} s"
                f"; one `git blame -L` per hunk: {p['per_hunk']:.2f} s | {p['whole'] / p['tool']:.1f}x "
                "(one-line files: same blame work, the tool adds PR, merge, test and name lookups) |"
            )
        else:
            print("pypto-history fixture missing: skipped its row", file=sys.stderr)
    table = ["| benchmark | perfkit | alternative | ratio |", "|---|---|---|---|", *rows]
    print("\n".join(table))
    if not ns.no_write and not ns.quick:
        doc = ROOT / "docs" / "perf-blame.md"
        text = doc.read_text() if doc.exists() else ""
        start, end = "<!-- bench:start -->", "<!-- bench:end -->"
        if start in text and end in text:
            head_text, rest = text.split(start, 1)
            doc.write_text(head_text + start + "\n" + "\n".join(table) + "\n" + end + rest.split(end, 1)[1])
        else:
            doc.write_text(text + "\n" + start + "\n" + "\n".join(table) + "\n" + end + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
