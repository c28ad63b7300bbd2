"""render_pr and lint_wording, side by side with what a user would run instead.

- lint_wording against proselint, a general prose linter, on the filled example description and on
  a long text (the example repeated), whole process as a user runs them: `perfkit lint-wording --path
  F --json` against `proselint check F`. proselint knows nothing of campaigns, titles, sections or
  figures, so it is the floor for "a prose linter on this file". It is not a perfkit dependency: pass
  the proselint executable with --proselint (install it in a separate environment); without it the
  rows say so.
- lint_text in process (every rule, with the campaign's figures), on the same two texts.
- render_pr on the example campaign (read_benchmark, template merge, both renders, both lints, writes)
  against read_benchmark alone, which it must call anyway: the ratio is what rendering adds.

Both sides run alternately; read the ratio of medians.
Usage: python bench/bench_publish.py [--proselint PATH] [--out docs/perf-publish.md]
"""

from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "publish"))


def time_once(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def side_by_side(a, b, repeat: int) -> tuple[float, float]:
    ta, tb = [], []
    for _ in range(repeat):
        ta.append(time_once(a))
        if b is not None:
            tb.append(time_once(b))
    return statistics.median(ta), (statistics.median(tb) if tb else float("nan"))


def fmt(s: float) -> str:
    return "n/a" if s != s else (f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s")


def ratio(a: float, b: float) -> str:
    return "n/a" if b != b else f"{a / b:.2f}x"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--proselint", help="path of a proselint executable (installed apart from perfkit)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", help="also write the markdown to this file")
    args = ap.parse_args()

    import make_examples
    from perfkit.benchmark.read import read_benchmark
    from perfkit.lint.figures import FigureSet
    from perfkit.lint.lint import lint_text
    from perfkit.publish.render import render_pr

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        _, campaign, repo = make_examples.render(work / "setup")
        example = (ROOT / "templates" / "pr-description.example.md").read_text()
        long_text = example + "\n".join(example.split("\n", 1)[1] for _ in range(39))
        files = {"example description": work / "pr.md", "example x40": work / "long.md"}
        files["example description"].write_text(example)
        files["example x40"].write_text(long_text)

        for label, path in files.items():
            kb = path.stat().st_size / 1024
            perfkit_cmd = [sys.executable, "-m", "perfkit.cli", "lint-wording", "--path", str(path), "--json"]
            a = functools.partial(subprocess.run, perfkit_cmd, capture_output=True, check=True)
            b = (
                functools.partial(subprocess.run, [args.proselint, "check", str(path)], capture_output=True)
                if args.proselint
                else None
            )
            ta, tb = side_by_side(a, b, args.repeat)
            rows.append(
                f"| `perfkit lint-wording --path F --json`, {label} ({kb:.0f} KB), whole process, "
                f"median of {args.repeat} | {fmt(ta)} | `proselint check F`: {fmt(tb)} | {ratio(ta, tb)} |"
            )

        bench = read_benchmark(str(campaign))
        figures = FigureSet.from_campaign(campaign, bench)
        for label, path in files.items():
            text = path.read_text()
            ta, _ = side_by_side(functools.partial(lint_text, text, "pr", figures), None, args.repeat)
            rows.append(
                f"| lint_text in process, every rule with the campaign's {len(figures)} figures, {label}, "
                f"median of {args.repeat} | {fmt(ta)} | | |"
            )

        draft = str(ROOT / "examples" / "publish" / "draft.json")
        out = work / "out"

        def render():
            render_pr(str(campaign), str(repo), draft=draft, out_dir=str(out))

        ta, tb = side_by_side(render, lambda: read_benchmark(str(campaign)), args.repeat)
        rows.append(
            f"| render_pr on the example campaign (both files, both lints), median of {args.repeat} | "
            f"{fmt(ta)} | read_benchmark alone: {fmt(tb)} | {ratio(ta, tb)} |"
        )
        shutil.rmtree(out, ignore_errors=True)

    table = ["| benchmark | perfkit | alternative | ratio |", "|---|---|---|---|", *rows]
    print("\n".join(table))
    if args.out:
        write_doc(Path(args.out), table)


def write_doc(path: Path, table: list[str]) -> None:
    text = [
        "# Performance: render_pr and lint_wording",
        "",
        "lint_wording against proselint, the general prose linter a user might reach for, whole process as a",
        "user runs either; lint_text alone in process; and render_pr against read_benchmark, which it calls,",
        "so the ratio is what rendering, template merging and both lints add. The machine is shared and",
        "noisy; both sides run alternately, so read the ratio.",
        "",
        "Reproduce with `python bench/bench_publish.py --proselint <proselint executable> --out docs/perf-publish.md`"
        " (proselint installed in its own environment; it is not a perfkit dependency).",
        "",
        *table,
        "",
    ]
    path.write_text("\n".join(text))


if __name__ == "__main__":
    main()
