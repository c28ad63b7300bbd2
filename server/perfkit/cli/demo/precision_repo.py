"""A compiler repository with a runtime submodule and a planted precision regression.

The regression is a runtime commit that switches accumulation to bf16; the compiler commit that
pulls it in changes nothing but the submodule pointer, so finding it takes both bisect levels.
A short run of compiler commits fails to install, so the bisect meets skips as on real histories.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from perfkit.cli.demo.check_script import INSTALL, SCRIPT
from perfkit.cli.demo.fastimport import Commit, write_history

RUNTIME_COMMITS = 160
RUNTIME_BAD = 117  # index of the runtime commit that switches to bf16 accumulation
COMPILER_COMMITS = 260
BUMP_EVERY = 13
BROKEN = range(61, 64)  # compiler commits whose install fails
_RUNTIME_AREAS = ["sched", "ring", "kernels", "launch", "profiling", "memory"]
_COMPILER_AREAS = ["codegen", "passes", "ir", "frontend", "tiling", "docs"]


@dataclass
class PrecisionScenario:
    root: Path
    compiler: Path  # the user's checkout, submodule initialised
    runtime_origin: Path
    good: str
    bad: str
    culprit: str  # compiler commit that bumps the pointer across the regression
    runtime_culprit: str
    run: str = "python examples/check_precision.py"
    install: str = "python tools/install.py"
    install_submodule: str = "python install.py"


def _runtime_history() -> list[Commit]:
    commits = []
    for i in range(RUNTIME_COMMITS):
        area = _RUNTIME_AREAS[i % len(_RUNTIME_AREAS)]
        files: dict[str, str | bytes] = {f"src/{area}/state.cpp": f"// {area} revision {i}\n"}
        if i == 0:
            files["install.py"] = INSTALL.replace("{name}", "runtime")
            files["src/kernels/accumulate.h"] = "#define ACCUM_DTYPE fp32\n"
            msg = "init: runtime scaffold"
        elif i == RUNTIME_BAD:
            files["src/kernels/accumulate.h"] = "#define ACCUM_DTYPE bf16  // halves register pressure\n"
            msg = "perf(kernels): accumulate matmul partial sums in bf16 to halve register pressure (#733)"
        else:
            msg = f"{['fix', 'feat', 'refactor', 'perf'][i % 4]}({area}): runtime change {i} (#{500 + i})"
        commits.append(Commit(msg, files))
    return commits


def _compiler_history(runtime: list[str], origin: Path) -> tuple[list[Commit], int]:
    commits: list[Commit] = []
    pointer = 0
    culprit = -1
    for i in range(COMPILER_COMMITS):
        area = _COMPILER_AREAS[i % len(_COMPILER_AREAS)]
        c = Commit(
            f"{['fix', 'feat', 'refactor', 'test'][i % 4]}({area}): compiler change {i} (#{1000 + i})",
            {f"python/pypto/{area}.py": f"REVISION = {i}\n"},
        )
        if i == 0:
            c = Commit(
                "init: compiler scaffold",
                {
                    "examples/check_precision.py": SCRIPT,
                    "tools/install.py": INSTALL.replace("{name}", "compiler"),
                    "python/pypto/tiling.cfg": "tile=256\n",
                    "perfkit.toml": (
                        '[bisect]\nrun = "python examples/check_precision.py"\n'
                        'install = ["python tools/install.py"]\n'
                        'install_submodule = ["python install.py"]\n'
                        "metric_pattern = 'max_abs_err=(\\S+)'\n"
                    ),
                },
            )
        elif i == 2:
            c = Commit(
                "chore(runtime): add simpler as a git submodule at runtime (#1002)",
                {".gitmodules": f'[submodule "simpler"]\n\tpath = runtime\n\turl = {origin}\n'},
                {"runtime": runtime[10]},
            )
            pointer = 10
        elif i > 2 and i % BUMP_EVERY == 0 and pointer + 8 < len(runtime):
            old, pointer = pointer, min(pointer + 9, len(runtime) - 1)
            if old < RUNTIME_BAD <= pointer:
                culprit = i
            c = Commit(
                f"chore(runtime): bump simpler to {runtime[pointer][:8]} (#{1000 + i})",
                gitlinks={"runtime": runtime[pointer]},
            )
        elif i in BROKEN:
            c.files["tools/install.py"] = "raise SystemExit('error: unsupported option --ring-size')\n"
        elif i == BROKEN.stop:
            c.files["tools/install.py"] = INSTALL.replace("{name}", "compiler")
        commits.append(c)
    return commits, culprit


def build(root: Path) -> PrecisionScenario:
    root.mkdir(parents=True, exist_ok=True)
    origin = root / "simpler.git"
    runtime_shas = write_history(root / "simpler-src", _runtime_history())
    subprocess.run(["git", "clone", "-q", "--bare", str(root / "simpler-src"), str(origin)], check=True)
    commits, culprit = _compiler_history(runtime_shas, origin)
    compiler = root / "pypto"
    shas = write_history(compiler, commits)
    subprocess.run(
        [
            "git",
            "-C",
            str(compiler),
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "update",
            "--init",
            "-q",
            "runtime",
        ],
        check=True,
    )
    return PrecisionScenario(
        root=root,
        compiler=compiler,
        runtime_origin=origin,
        good=shas[5],
        bad=shas[-1],
        culprit=shas[culprit],
        runtime_culprit=runtime_shas[RUNTIME_BAD],
    )
