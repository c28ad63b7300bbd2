"""Run every benchmark under bench/ in one go and write docs/performance.md.

Each bench_*.py prints a markdown table (header + rows) on stdout; this script runs them one after
the other on the same machine, stitches the rows into one table, and stamps it with the date and
the machine. Usage: python bench/run_all.py [--quick] [--out docs/performance.md]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}"
    )


def split_sections(text: str) -> tuple[list[str], dict[str, str]]:
    """The '### ' sections of an existing docs/performance.md, in order, by title."""
    order: list[str] = []
    found: dict[str, str] = {}
    for chunk in ("\n" + text).split("\n### ")[1:]:
        title = chunk.split("\n", 1)[0].strip()
        order.append(title)
        found[title] = "### " + chunk.rstrip() + "\n"
    return order, found


def merge(old_text: str, fresh: dict[str, str]) -> list[str]:
    """Fresh sections replace their old ones in place; sections this run did not produce (other benchmarks'
    rows, sections appended by hand) stay as they were; new ones go at the end."""
    order, old = split_sections(old_text)
    kept = [fresh.get(t, old[t]) for t in order if not t.startswith("Benchmarks that failed")]
    return kept + [body for t, body in fresh.items() if t not in old]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="pass --quick to benchmarks that accept it")
    ap.add_argument(
        "--only",
        nargs="+",
        metavar="SCRIPT",
        help="run only these (bench_culprit.py ...): their "
        "sections are replaced, every other section of the file is kept",
    )
    ap.add_argument("--out", default=str(ROOT / "docs" / "performance.md"))
    ns = ap.parse_args()
    fresh: dict[str, str] = {}
    failures: list[str] = []
    titles = {
        "bench_cold_start.py": "MCP cold start",
        "bench_read_benchmark.py": "read_benchmark",
        "bench_read_requests.py": "read_benchmark, one row per request",
        "bench_blame_removal.py": "git_blame_removal",
        "bench_bisect.py": "Bisect",
        "bench_culprit.py": "evaluate_culprit and triage_builds",
        "bench_publish.py": "render_pr and lint_wording",
        "bench_gitdir_proof.py": "perfkit's own git folders, proved",
        "bench_step_overhead.py": "Bisect overhead per check run",
        "bench_cli_start.py": "CLI start",
        "bench_ray_rounds.py": "Devices on Ray",
    }
    scripts = sorted(HERE.glob("bench_*.py"))
    if ns.only:
        scripts = [s for s in scripts if s.name in set(ns.only)]
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    for script in scripts:
        text_of_script = script.read_text()
        args = [sys.executable, str(script)] + (["--quick"] if ns.quick and "--quick" in text_of_script else [])
        if "--no-write" in text_of_script:
            args.append("--no-write")
        print(f"running {script.name} ...", file=sys.stderr, flush=True)
        proc = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
        if proc.returncode != 0:
            failures.append(f"{script.name}: exit {proc.returncode}: {' '.join(proc.stderr.strip().splitlines()[-1:])}")
            continue
        body = "\n".join(line for line in proc.stdout.splitlines() if not line.startswith("# ")).strip()
        title = titles.get(script.name, script.stem)
        fresh[title] = f"### {title}\n\n`python bench/{script.name}`, measured {stamp}\n\n{body}\n"
    out = Path(ns.out)
    old_text = out.read_text() if out.is_file() else ""
    text = [
        "# Performance",
        "",
        f"Measured on {machine()}. The machine is shared and noisy, so each benchmark runs perfkit and",
        "the alternative a user would otherwise pick side by side in the same run; read the ratios, not the absolute",
        "times. Each section says when it was measured.",
        "Reproduce everything with `python bench/run_all.py` (or `--only bench_x.py` for some); each script also",
        "runs alone.",
        "",
        *merge(old_text, fresh),
    ]
    if failures:
        text += ["### Benchmarks that failed in the last run", "", *[f"- {f}" for f in failures], ""]
    out.write_text("\n".join(text))
    print("\n".join(text))
    readme = ROOT / "README.md"
    start, end = "<!-- performance:start -->", "<!-- performance:end -->"
    body = readme.read_text()
    if start in body and end in body and not ns.quick:
        table = "\n".join(text[2:]).strip().replace("### ", "#### ")
        head, rest = body.split(start, 1)
        readme.write_text(head + start + "\n" + table + "\n" + end + rest.split(end, 1)[1])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
