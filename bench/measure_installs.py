"""Install commands a real bisect runs, counted by the commands themselves, beside the simulator's count.

bench/simulate_wall_time.py models installs (60 s compiler, 90 s runtime) to price wall time. This
runs the real thing on a synthetic two-level history (a compiler whose runtime pointer moves every
`every` commits, one bump holding the regression): perfkit's bisect through its tool functions,
with install commands that append a line to a log as they start. From the log alone each command
is placed: at test time (PERFKIT_STEP set), made ahead (no step, in a worker slot) or restoring the
user's checkout (no step, in the checkout). Builds made ahead are split into used (a test then ran
on that build) and wasted from perfkit's own report, whose totals must equal the log's.

Usage: python bench/measure_installs.py   (or python bench/simulate_wall_time.py --measured)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start  # noqa: E402
from perfkit.cli.demo.fastimport import Commit, write_history  # noqa: E402

CHECK = """
src="$PERFKIT_CHECKOUT/src/codegen.py"; k="$PERFKIT_SUBMODULE/kernel.cpp"
if grep -q BROKEN "$k" 2>/dev/null; then echo "max_abs_err=0.3 FAIL"; exit 1; fi
echo "max_abs_err=0.0 PASS"
"""


@dataclass
class History:
    repo: Path
    good: str
    n1: int  # level-1 commits
    ptrs: list[str]  # runtime pointer (as a label) of each level-1 commit
    f1: int  # level-1 culprit index
    n2: int  # runtime commits inside the culprit bump
    f2: int  # level-2 culprit index


def history(base: Path, n1: int = 120, every: int = 8, step: int = 8, bug_at: int = 70) -> History:
    """n1 compiler commits after the one adding the runtime; the pointer moves `step` runtime commits
    every `every` compiler commits; the runtime breaks at the commit `bug_at` of level 1's bumps."""
    moves = n1 // every
    runtime_len = moves * step + 1
    bug = (bug_at // every) * step - step // 2  # inside the bump at compiler index bug_at - bug_at % every
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {"GIT_CONFIG_NOSYSTEM": "1"}
    rt = write_history(
        base / "runtime-origin",
        [Commit(f"runtime {i}", {"kernel.cpp": f"v{i} {'BROKEN' if i >= bug else ''}\n"}) for i in range(runtime_len)],
        env=env,
    )
    gm = f'[submodule "rt"]\n\tpath = runtime\n\turl = {base / "runtime-origin"}\n'
    commits = [
        Commit("compiler", {"src/codegen.py": "0\n"}),
        Commit("add runtime", {".gitmodules": gm}, {"runtime": rt[0]}),
    ]
    ptrs: list[str] = []
    ptr = 0
    for i in range(n1):
        if i % every == every - 1:
            ptr += step
            commits.append(Commit(f"bump runtime to {ptr}", {}, {"runtime": rt[ptr]}))
        else:
            commits.append(Commit(f"compiler {i}", {"src/codegen.py": f"{i}\n"}))
        ptrs.append(f"r{ptr}")
    shas = write_history(base / "compiler", commits, env=env)
    git = ["git", "-c", "protocol.file.allow=always", "-C", str(base / "compiler")]
    subprocess.run([*git, "submodule", "update", "--init", "-q"], check=True, env=env)
    f1 = next(i for i in range(n1) if int(ptrs[i][1:]) > bug)
    old = int(ptrs[f1 - 1][1:])
    return History(base / "compiler", shas[1], n1, ptrs, f1, int(ptrs[f1][1:]) - old, bug - old - 1)


def measure(h: History, devices: list[str], ahead: int) -> dict[str, int]:
    log = h.repo.parent / "install-log"
    log.unlink(missing_ok=True)
    mark = f'echo "${{PERFKIT_STEP:--}} $PWD" >> {log}'
    check = h.repo.parent / "check.sh"
    check.write_text(CHECK)
    bisect_start(
        str(h.repo), h.good, run=f"bash {check}", install=[f"{mark}; sleep 0.05"],
        install_submodule=[f"{mark}; sleep 0.05"], devices=devices, build_ahead=ahead,
    )  # fmt: skip
    try:
        res = bisect_run(str(h.repo))
    finally:
        bisect_reset(str(h.repo))
    rows = [line.split(" ", 1) for line in log.read_text().splitlines()]
    users = (str(h.repo), str(h.repo / "runtime"))
    test = sum(1 for step, _ in rows if step != "-")
    restore = sum(1 for step, where in rows if step == "-" and where in users)
    made_ahead = len(rows) - test - restore
    assert (res.installs, res.installs_ahead, res.installs_restore) == (test, made_ahead, restore), res.install_line()
    return {
        "runs": res.runs,
        "test": test,
        "ahead_used": res.installs_ahead_used,
        "ahead_wasted": made_ahead - res.installs_ahead_used,
        "restore": restore,
        "total": len(rows),
        "found": int(res.culprit is not None and res.submodule_culprit is not None),
    }


def simulated(h: History, d: int, b: int) -> int:
    from simulate_wall_time import Case, ahead, rounds, today

    c = Case(h.n1, h.ptrs, h.f1, h.n2, h.f2)
    t = today(c) if d == 1 else ahead(c, d, b) if b else rounds(c, d, False)
    return t.installs


CONFIGS = [
    ([], 0),
    (["0", "1"], 0),
    (["0", "1"], 2),
    (["0", "1"], 6),
    (["0", "1", "2", "3"], 0),
    (["0", "1", "2", "3"], 4),
]


def table() -> list[str]:
    sys.path.insert(0, str(Path(__file__).parent))
    base = Path(tempfile.mkdtemp(prefix="perfkit-installs-"))
    h = history(base)
    out = [
        f"Measured on a synthetic history: {h.n1} compiler commits, the runtime pointer moving every 8, the "
        f"regression inside a bump of {h.n2} runtime commits.",
        "",
        "| devices | build_ahead | runs | install commands: at test time | made ahead, used | made ahead, wasted "
        "| restoring your checkout | total measured | simulator's count |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for devices, b in CONFIGS:
        m = measure(h, devices, b)
        assert m["found"], (devices, b)
        d = max(1, len(devices))
        out.append(
            f"| {d} | {b} | {m['runs']} | {m['test']} | {m['ahead_used']} | {m['ahead_wasted']} | {m['restore']} "
            f"| {m['total']} | {simulated(h, d, b)} |"
        )
    return out


if __name__ == "__main__":
    print("\n".join(table()))
