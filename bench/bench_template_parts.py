"""Reading and filling a PR template as parts, against the section merger it replaced, by template size.

The templates are the test shapes of tests/shapes/pr_templates/ laid end to end until the size is
reached (a real template is a few KB; the sizes up to the 1 MiB cap show the growth). Both run in
their own process on the same text: this tree's parse + role + fill (what render_pr does), and the
merge as it was at --before (split into sections, answer under each), exported with `git archive`.
Times are the child's CPU time, best of three, so load on a shared machine does not inflate them.
With --scaling, it times what render_pr does with a template of each size, in this tree only: parse
and fill, then lint of the filled text with the template's lines as the repo's (the check that was
quadratic when each line was compared with every template line), at 100 KB, 200 KB, 400 KB and
1000 KB, with the cyclic collector paused as render_pr's ToolSpec runs it and with it running, and
prints the growth per doubling of the size (linear is 2.0): the time ratio between two sizes raised
to 1 / log2(size ratio), so the 2.5x step from 400 KB to 1000 KB counts as 1.32 doublings.
With --before-reads parts the before column runs the same parts reader at --before, to compare two
versions of it (for example across the move onto perfkit.markdown).
Usage: python bench/bench_template_parts.py [--before SHA] [--before-reads sections|parts] [--quick]
       python bench/bench_template_parts.py --scaling [--rounds N]
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "0abe651"  # the section merger before templates were read as parts
SIZES_KB = [4, 16, 64, 256, 1000]

CHILD = """
import sys, time, resource
sys.path.insert(0, sys.argv[1])
text = open(sys.argv[2]).read()
new = sys.argv[3] == "new"
from perfkit.publish.repo_template import RepoTemplate, split
from perfkit.publish.merge_template import merge
def once():
    if new:
        from perfkit.publish.template_parts import parse, roles
        parts = parse.parse(text)
        roles.assign(parts)
        tpl = RepoTemplate(path="t.md", candidates=[], why="", sections=[], text=text, parts=parts)
    else:
        tpl = RepoTemplate(path="t.md", candidates=[], why="", sections=split(text), text=text)
    return merge(tpl, {}, [], "<{what}>")
best = float("inf")
for _ in range(3):
    t0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    m = once()
    best = min(best, resource.getrusage(resource.RUSAGE_SELF).ru_utime - t0)
print(best, len(getattr(m, "parts", [])) or len(m.lines))
"""


def shapes_text() -> str:
    root = ROOT / "tests" / "shapes" / "pr_templates"
    return "\n\n".join(p.read_text() for p in sorted(root.rglob("*.md")))


def run(src: Path, text_file: Path, which: str) -> tuple[float, int]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(src), str(text_file), which], capture_output=True, text=True, timeout=600
    )
    if out.returncode != 0:
        raise SystemExit(out.stderr[-2000:])
    t, n = out.stdout.split()
    return float(t), int(n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--before", default=BEFORE)
    ap.add_argument("--before-reads", choices=("sections", "parts"), default="sections")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--scaling", action="store_true")
    ap.add_argument("--rounds", type=int, default=1, help="with --scaling: the best of this many processes per size")
    ns = ap.parse_args()
    if ns.scaling:
        return scaling(ns.rounds)
    before_mode = "new" if ns.before_reads == "parts" else "old"
    sizes = SIZES_KB[:3] if ns.quick else SIZES_KB
    unit = shapes_text()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        old.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", ns.before, "server"], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        print(f"| template size | parts | parts (this tree) | {ns.before_reads} ({ns.before}) | ratio |")
        print("|---|---|---|---|---|")
        for kb in sizes:
            text = (unit + "\n\n") * (kb * 1024 // len(unit) + 1)
            text = text[: kb * 1024]
            f = Path(tmp) / f"t{kb}.md"
            f.write_text(text)
            t_new, parts = run(ROOT / "server", f, "new")
            t_old, _ = run(old / "server", f, before_mode)
            ratio = t_new / max(t_old, 1e-4)
            print(f"| {kb} KB | {parts:,} | {t_new * 1000:,.0f} ms | {t_old * 1000:,.0f} ms | {ratio:.1f}x |")
    print()
    print(
        "Both grow linearly with size. Reading parts costs more per KB than splitting at headings: every "
        "line is classified, and every part is reported back to the agent."
    )
    return 0


SCALING_CHILD = """
import sys, time, resource, gc
sys.path.insert(0, sys.argv[1])
text = open(sys.argv[2]).read()
from perfkit.publish.repo_template import RepoTemplate
from perfkit.publish.merge_template import merge
from perfkit.publish.template_parts import parse, roles
from perfkit.lint.lint import lint_text
from perfkit.tools import collector
from contextlib import nullcontext
paused = sys.argv[3] == "paused"
lines = {ln for ln in text.split("\\n") if ln.strip()}
def once():
    with collector.paused() if paused else nullcontext():  # as ToolSpec.call runs render_pr
        parts = parse.parse(text)
        roles.assign(parts)
        tpl = RepoTemplate(path="t.md", candidates=[], why="", sections=[], text=text, parts=parts)
        m = merge(tpl, {}, [], "<{what}>")
        lint_text("\\n".join(m.lines), "pr", None, lines, set(), template_text=set())
best = float("inf")
for _ in range(3):
    t0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    once()
    best = min(best, resource.getrusage(resource.RUSAGE_SELF).ru_utime - t0)
print(best, 0)
"""
SCALING_KB = (100, 200, 400, 1000)


def per_doubling(t: float, prev_t: float, kb: float, prev_kb: float) -> float:
    """The time ratio between two sizes, as the ratio per doubling of the size: ratio ** (1 / log2(size ratio)).

    From 400 KB to 1000 KB the size grows 2.5x, 1.32 doublings: a linear 2.5x in time is 2.0x per doubling."""
    return float((t / prev_t) ** (1 / math.log2(kb / prev_kb)))


def scaling(rounds: int) -> int:
    unit = shapes_text()
    print(
        "| template size | render, collector paused (as render_pr runs) | per doubling | "
        "render, collector running | per doubling |"
    )
    print("|---|---|---|---|---|")
    prev: tuple[int, float, float] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        for kb in SCALING_KB:
            text = ((unit + "\n\n") * (kb * 1024 // len(unit) + 1))[: kb * 1024]
            f = Path(tmp) / f"t{kb}.md"
            f.write_text(text)
            times = [float("inf"), float("inf")]
            for i, mode in [(i, m) for _ in range(rounds) for i, m in enumerate(("paused", "running"))]:
                out = subprocess.run(
                    [sys.executable, "-c", SCALING_CHILD, str(ROOT / "server"), str(f), mode],
                    capture_output=True,
                    text=True,
                    timeout=1200,
                )
                if out.returncode != 0:
                    raise SystemExit(out.stderr[-2000:])
                times[i] = min(times[i], float(out.stdout.split()[0]))
            cells = []
            for i, t in enumerate(times):
                ratio = f"{per_doubling(t, prev[1 + i], kb, prev[0]):.2f}x" if prev else "-"
                cells += [f"{t * 1000:,.0f} ms", ratio]
            print(f"| {kb} KB | " + " | ".join(cells) + " |", flush=True)
            prev = (kb, times[0], times[1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
