"""Mutation score per core package, with cosmic-ray: which changes to the code do the tests notice?

Each target is mutated in a private copy of the committed tree (the tests import the copy through
PYTHONPATH), and only the test files that cover it run for each mutant, so a run stays within
minutes; --sample N draws N mutants per target (seeded) when the full set would take hours. The
scores and every surviving mutant are written to docs/mutation.md (between its generated
markers; the rest of the file is kept). Too slow for CI. Needs the `mutation` extra:
pip install -e '.[test,mutation]'. Usage: python tools/mutation.py [--target NAME ...] [--sample N]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "mutation.md"
START, END = "<!-- mutation-scores:start -->", "<!-- mutation-scores:end -->"

# target (under server/perfkit) -> the test files that cover it
TARGETS: dict[str, list[str]] = {
    "benchmark/stats.py": ["tests/test_read_benchmark_stats.py", "tests/test_stats_independent.py"],
    "culprit": ["tests/test_evaluate_culprit.py"],
    "benchmark/render.py": ["tests/test_read_benchmark.py", "tests/test_memory_columns.py"],
}
# operators whose mutants say little about arithmetic on measurements (bit shifts and masks)
_BITS = "(BitOr|BitAnd|BitXor|LShift|RShift)"
EXCLUDED = [rf"core/ReplaceBinaryOperator_.*_{_BITS}", rf"core/ReplaceBinaryOperator_{_BITS}_.*"]


@dataclass
class Score:
    target: str
    total: int
    run: int
    killed: int
    survivors: list[str]
    seconds: float

    def row(self) -> str:
        pct = f"{100 * self.killed / self.run:.0f}%" if self.run else "-"
        counts = f"{self.total} | {self.run} | {self.killed} | {len(self.survivors)}"
        return f"| `{self.target}` | {counts} | {pct} | {self.seconds / 60:.0f} min |"


def _copy_tree(dest: Path) -> None:
    """The committed tree (HEAD), not the working files: edits in progress never leak into a score."""
    cmd = ["git", "-C", str(ROOT), "archive", "--format=tar", "HEAD"]
    archive = subprocess.run(cmd, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)


def _config(work: Path, target: str, tests: list[str]) -> Path:
    module = f"server/perfkit/{target}"
    cmd = f"{sys.executable} -m pytest -x -q -p no:cacheprovider -p no:randomly {' '.join(tests)}"
    excluded = ", ".join(f"'{e}'" for e in EXCLUDED)
    cfg = work / "cosmic-ray.toml"
    cfg.write_text(
        "[cosmic-ray]\n"
        f'module-path = "{module}"\n'
        "timeout = 300.0\n"
        "excluded-modules = []\n"
        f'test-command = "{cmd}"\n\n'
        "[cosmic-ray.distributor]\n"
        'name = "local"\n\n'
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = [{excluded}]\n"
    )
    return cfg


def _sample(db_path: Path, n: int | None, seed: int) -> int:
    """Mark all but n pending mutants as skipped; returns how many mutants there were."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    with use_db(str(db_path), WorkDB.Mode.open) as db:
        pending = list(db.pending_work_items)
        total = len(pending)
        if n is not None and n < total:
            keep = {w.job_id for w in random.Random(seed).sample(pending, n)}
            for w in pending:
                if w.job_id not in keep:
                    db.set_result(w.job_id, WorkResult(output="not sampled", worker_outcome=WorkerOutcome.SKIPPED))
    return total


def _score(target: str, db_path: Path, total: int, seconds: float) -> Score:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    run = killed = 0
    survivors: list[str] = []
    with use_db(str(db_path), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome != WorkerOutcome.NORMAL:
                continue
            run += 1
            if result.test_outcome == TestOutcome.SURVIVED:
                m = item.mutations[0]
                survivors.append(f"{m.module_path}:{m.start_pos[0]} {m.operator_name.split('/')[-1]} #{m.occurrence}")
            else:
                killed += 1
    return Score(target, total, run, killed, sorted(survivors), seconds)


def _tool(name: str) -> str | None:
    """A console script of the running interpreter's environment, else from PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.is_file() else shutil.which(name)


def run_target(target: str, sample: int | None, seed: int) -> Score:
    tests = TARGETS[target]
    with tempfile.TemporaryDirectory(prefix="perfkit-mutation-") as tmp:
        work = Path(tmp)
        _copy_tree(work)
        cfg = _config(work, target, tests)
        db = work / "session.sqlite"
        env = dict(os.environ) | {"PYTHONPATH": str(work / "server") + os.pathsep + str(work / "tests")}
        run = lambda *a: subprocess.run(a, cwd=work, env=env, check=True, capture_output=True)  # noqa: E731
        started = time.perf_counter()
        cosmic, only = _tool("cosmic-ray"), _tool("cr-filter-operators")
        assert cosmic and only
        run(cosmic, "init", str(cfg), str(db))
        run(only, str(db), str(cfg))
        total = _sample(db, sample, seed)
        run(cosmic, "exec", str(cfg), str(db))
        return _score(target, db, total, time.perf_counter() - started)


def write_doc(scores: list[Score], sample: int | None) -> None:
    lines = [
        START,
        "",
        f"Last run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        + (f"{sample} mutants drawn per target (seeded)" if sample else "every mutant")
        + f"; bit-operator mutants excluded. `python tools/mutation.py{' --sample ' + str(sample) if sample else ''}`",
        "",
        "| target | mutants | run | killed | survived | score | time |",
        "|---|---|---|---|---|---|---|",
        *[s.row() for s in scores],
        "",
    ]
    for s in scores:
        if s.survivors:
            lines += [f"Surviving in `{s.target}`:", "", *[f"- `{x}`" for x in s.survivors], ""]
    lines.append(END)
    text = DOC.read_text() if DOC.is_file() else f"# Mutation testing\n\n{START}\n{END}\n"
    head, rest = text.split(START, 1)
    DOC.write_text(head + "\n".join(lines) + rest.split(END, 1)[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--target", nargs="+", choices=sorted(TARGETS), default=sorted(TARGETS))
    ap.add_argument("--sample", type=int, help="mutants to draw per target (default: all)")
    ap.add_argument("--seed", type=int, default=17)
    ns = ap.parse_args()
    if _tool("cosmic-ray") is None or _tool("cr-filter-operators") is None:
        print("tools/mutation.py: install the mutation extra: pip install -e '.[mutation]'", file=sys.stderr)
        return 2
    scores = []
    for target in ns.target:
        print(f"mutating {target} ...", file=sys.stderr, flush=True)
        scores.append(run_target(target, ns.sample, ns.seed))
        print(scores[-1].row(), file=sys.stderr, flush=True)
        write_doc(scores, ns.sample)  # after each target: a long run stopped later keeps what it found
    return 0


if __name__ == "__main__":
    sys.exit(main())
