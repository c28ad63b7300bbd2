"""A compiler repo with a runtime submodule and planted precision bugs, for the bisect tests.

The check script decides from file contents alone, so a test can compute the right verdict of any
(superproject, submodule) pair independently of perfkit, straight from git objects.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.cli.demo.fastimport import Commit, write_history

from helpers.gitbuild import Repo, run_git

# bad when: the compiler has BUG; the runtime has BROKEN; the compiler NEEDS_FIX and the runtime
# lacks FIX; both carry TOGETHER. CRASH segfaults, HANG sleeps, NOVERDICT exits 3 silently,
# FLOOD prints megabytes first, DAEMON leaves a background child and passes.
CHECK = r"""
src="$PERFKIT_CHECKOUT/src/codegen.py"; k="$PERFKIT_SUBMODULE/kernel.cpp"
has() { grep -q "$1" "$2" 2>/dev/null; }
echo "$PERFKIT_COMMIT $PERFKIT_SUBMODULE_COMMIT" >> "$BISECT_ENV/runs.log"
has CRASH "$src" && kill -SEGV $$
has HANG "$src" && { sleep 60 & echo $! > "$BISECT_ENV/hang.pid"; wait; }
has NOVERDICT "$src" && exit 3
has FLOOD "$src" && head -c 3000000 /dev/zero | tr '\0' 'x' | fold -w 100
has DAEMON "$src" && { sleep 60 & echo $! > "$BISECT_ENV/daemon.pid"; }
bad=0
has BUG "$src" && bad=1
has BROKEN "$k" && bad=1
has NEEDS_FIX "$src" && ! has FIX "$k" && bad=1
has TOGETHER "$src" && has TOGETHER "$k" && bad=1
if [ $bad = 1 ]; then echo "check max_abs_err=0.25 FAIL"; exit 1; fi
echo "check max_abs_err=0.001 PASS"
"""


@dataclass
class Project:
    sup: Repo
    runtime: Repo
    env: Path
    r: list[str]  # runtime commits in order
    c: dict[str, str] = field(default_factory=dict)  # labelled superproject commits
    order: list[str] = field(default_factory=list)  # superproject commits in order
    side: list[str] = field(default_factory=list)  # runtime commits of the side branch, in order

    @property
    def path(self) -> str:
        return str(self.sup.path)

    def run_cmd(self) -> str:
        return f"BISECT_ENV={self.env} bash {self.env / 'check.sh'}"

    def installs(self) -> list[str]:
        return [f'echo "$PWD" > {self.env}/super.path; echo "$PERFKIT_COMMIT" >> {self.env}/super.log']

    def installs_sub(self) -> list[str]:
        return [f'echo "$PWD" > {self.env}/sub.path; echo "$PERFKIT_SUBMODULE_COMMIT" >> {self.env}/sub.log']

    def lines(self, name: str) -> list[str]:
        p = self.env / name
        return p.read_text().split("\n")[:-1] if p.exists() else []

    def content(self, commit: str, path: str, repo: Repo | None = None) -> str:
        try:
            return run_git((repo or self.sup).path, "show", f"{commit}:{path}")
        except Exception:
            return ""

    def expected(self, sup: str, sub: str | None) -> str:
        """The verdict the check must give at (sup, sub), computed from git objects, not from perfkit."""
        src = self.content(sup, "src/codegen.py")
        k = self.content(sub, "kernel.cpp", self.runtime) if sub else ""
        if "CRASH" in src or "HANG" in src or "NOVERDICT" in src:
            return "skip"
        bad = (
            "BUG" in src
            or "BROKEN" in k
            or ("NEEDS_FIX" in src and "FIX" not in k.replace("NEEDS_FIX", ""))
            or ("TOGETHER" in src and "TOGETHER" in k)
        )
        return "bad" if bad else "good"


def _fast_import(path: Path, commits: list[tuple[str, dict[str, str], dict[str, str]]]) -> list[str]:
    """Write (message, files, gitlinks) commits on main in one fast-import stream: tests stay quick."""
    history = [
        Commit(message, files, links, author="Test Author <author@example.com>", committer=COMMITTER)
        for message, files, links in commits
    ]
    return write_history(path, history, start_time=1_700_000_000, step=60, env=_env())


COMMITTER = "Test Committer <committer@example.com>"


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {"GIT_CONFIG_NOSYSTEM": "1"}


def build(tmp: Path, kernel: list[str], plan: list[tuple], side: tuple[int, list[str]] | None = None) -> Project:
    """kernel[i]: markers of runtime commit i. plan: ("src", markers[, label]) changes the compiler
    source; ("ptr", i[, label]) moves only the pointer to runtime commit i (or to ("side", j), the side
    branch's commit j); ("mixed", i, markers[, label]) does both in one commit. side: (i, markers) a
    branch `release` of the runtime forking at commit i, one commit per marker (a release line next to
    main). The user's checkout ends with work in progress of every kind."""
    origin = tmp / "simpler-origin"
    r = _fast_import(
        origin, [(f"runtime: change {i}", {"kernel.cpp": f"// v{i} {m}\n"}, {}) for i, m in enumerate(kernel)]
    )
    side_shas: list[str] = []
    if side is not None:
        run_git(origin, "checkout", "-q", "-b", "release", r[side[0]])
        for j, m in enumerate(side[1]):
            (origin / "kernel.cpp").write_text(f"// release {j} {m}\n")
            run_git(origin, "commit", "-q", "-am", f"runtime: release fix {j}", date=1_700_500_000 + 60 * j)
            side_shas.append(run_git(origin, "rev-parse", "HEAD"))
        run_git(origin, "checkout", "-q", "main")
    gitmodules = f'[submodule "simpler"]\n\tpath = runtime\n\turl = {origin}\n'
    commits = [
        ("initial compiler", {"src/codegen.py": "v0\n"}, {}),
        ("chore(runtime): add simpler as submodule", {".gitmodules": gitmodules}, {"runtime": r[0]}),
    ]
    labels = {0: "init", 1: "add"}
    for n, step in enumerate(plan):
        kind = step[0]
        if kind == "src":
            commits.append((f"compiler change {n}", {"src/codegen.py": f"v{n + 1} {step[1]}\n"}, {}))
            label = step[2] if len(step) > 2 else None
        elif kind == "ptr":  # a runtime index, or a sha the runtime does not have
            where = step[1]
            sha = r[where] if isinstance(where, int) else side_shas[where[1]] if isinstance(where, tuple) else where
            commits.append((f"chore(runtime): move simpler to {sha[:10]}", {}, {"runtime": sha}))
            label = step[2] if len(step) > 2 else None
        else:
            commits.append(
                (
                    f"Bump runtime and adapt codegen ({n})",
                    {"src/codegen.py": f"v{n + 1} {step[2]}\n"},
                    {"runtime": r[step[1]]},
                )
            )
            label = step[3] if len(step) > 3 else None
        if label:
            labels[len(commits) - 1] = label
    commits.append(("docs: readme", {"README.md": "compiler\n"}, {}))
    labels[len(commits) - 1] = "head"
    path = tmp / "pypto"
    order = _fast_import(path, commits)
    run_git(path, "submodule", "update", "--init", "-q", "runtime")
    sup, runtime = Repo.__new__(Repo), Repo.__new__(Repo)
    sup.path, runtime.path = path, origin
    env = tmp / "env"
    env.mkdir()
    (env / "check.sh").write_text(CHECK)
    p = Project(sup, runtime, env, r, {v: order[k] for k, v in labels.items()}, order, side_shas)
    # the user has work in progress: a stash, an unstaged edit, a staged one and an untracked file
    sup.write("notes.txt", "stashed\n")
    run_git(sup.path, "add", "notes.txt")
    run_git(sup.path, "-c", "user.name=U", "-c", "user.email=u@example.com", "stash", "push", "-q", "-m", "wip")
    sup.write("src/codegen.py", sup.path.joinpath("src/codegen.py").read_text() + "# unstaged edit\n")
    sup.write("README.md", "staged edit\n")
    run_git(sup.path, "add", "README.md")
    sup.write("scratch.txt", "untracked\n")
    return p


def log2ceil(n: int) -> int:
    return math.ceil(math.log2(n)) if n > 1 else 0


def steps_noted(note: str) -> tuple[int, int] | None:
    """The steps a checkout note speaks of: `while step 2 ran` is (2, 2); `while steps 1 to 5 ran` (the
    probe let steps go without a full look at the checkout) is (1, 5); None for another note."""
    m = re.search(r"while steps? (\d+)(?: to (\d+))? ran", note)
    return None if m is None else (int(m.group(1)), int(m.group(2) or m.group(1)))


def covers(note: str, step: int) -> bool:
    """Whether a checkout note says the checkout changed while `step` ran."""
    seen = steps_noted(note)
    return seen is not None and seen[0] <= step <= seen[1]
