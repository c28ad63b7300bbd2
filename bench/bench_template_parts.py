"""Reading and filling a PR template as parts, against the section merger it replaced, by template size.

The templates are the test shapes of tests/shapes/pr_templates/ laid end to end until the size is
reached (a real template is a few KB; the sizes up to the 1 MiB cap show the growth). Both run in
their own process on the same text: this tree's parse + role + fill (what render_pr does), and the
merge as it was at --before (split into sections, answer under each), exported with `git archive`.
Times are the child's CPU time, best of three, so load on a shared machine does not inflate them.
With --scaling, it times what render_pr does with a template of each size, in this tree only: parse
and fill, then lint of the filled text with the template's lines as the repo's (the check that was
quadratic when each line was compared with every template line), at 128 KB to 1 MB, and prints the
ratio per doubling (linear is 2.0).
With --before-reads parts the before column runs the same parts reader at --before, to compare two
versions of it (for example across the move onto perfkit.markdown).
Usage: python bench/bench_template_parts.py [--before SHA] [--before-reads sections|parts] [--quick] [--scaling]
"""

from __future__ import annotations

import argparse
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
    ns = ap.parse_args()
    if ns.scaling:
        return scaling()
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
import sys, time, resource
sys.path.insert(0, sys.argv[1])
text = open(sys.argv[2]).read()
from perfkit.publish.repo_template import RepoTemplate
from perfkit.publish.merge_template import merge
from perfkit.publish.template_parts import parse, roles
from perfkit.lint.lint import lint_text
lines = {ln for ln in text.split("\\n") if ln.strip()}
def once():
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


def scaling() -> int:
    unit = shapes_text()
    print("| template size | render (parse, fill, lint with repo) | ratio to half the size |")
    print("|---|---|---|")
    prev = None
    with tempfile.TemporaryDirectory() as tmp:
        for kb in (128, 256, 512, 1024):
            text = ((unit + "\n\n") * (kb * 1024 // len(unit) + 1))[: kb * 1024]
            f = Path(tmp) / f"t{kb}.md"
            f.write_text(text)
            out = subprocess.run(
                [sys.executable, "-c", SCALING_CHILD, str(ROOT / "server"), str(f)],
                capture_output=True,
                text=True,
                timeout=1200,
            )
            if out.returncode != 0:
                raise SystemExit(out.stderr[-2000:])
            t = float(out.stdout.split()[0])
            ratio = f"{t / prev:.2f}x" if prev else "-"
            print(f"| {kb} KB | {t * 1000:,.0f} ms | {ratio} |")
            prev = t
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
