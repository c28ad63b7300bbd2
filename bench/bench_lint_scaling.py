"""lint_wording's time against the size of the text, beside the version before the linear rewrite.

The text is what made the old rules slow: one long paragraph of short sentences, each with a figure
("Step 12 took 1.23 s."), as a pasted log flattened into prose would give. Each size runs in its
own process (lint_text in process, every rule, no campaign), for this tree and for the rules as they
were at the commit given by --before (default: the last commit before the rewrite), which is
exported with `git archive` into a temporary folder. Times are the child's CPU time, so other load on
a shared machine does not inflate them; a run past --timeout (wall clock) is reported as such. A
linear implementation shows time doubling with size; the old one grew with the cube of a paragraph's
length. With --shape blocks the text is a document of every block kind instead (headings, a paragraph
with figures, a task list, a table, a code fence, a details block with a comment), repeated to the size:
the shape that exercises the CommonMark reading (perfkit.markdown) rather than the sentence rules.
With --campaign (and --draft), this tree runs twice instead, without and with the campaign's
figures, so every sentence is also read as claims and bound to the data (perfkit.lint.claims); the
sentences then alternate a step and a serving figure ("TTFT p99 fell from 1,583 ms to 707 ms.").
Usage: python bench/bench_lint_scaling.py [--before SHA] [--shape paragraph|blocks] [--campaign DIR [--draft FILE]]
       [--timeout S] [--out FILE]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "3d3c9c1"  # the rules before lint_wording was made linear
SIZES_KB = [0.75, 1.5, 3, 6, 12, 24, 48, 96, 192, 512, 1024, 2048]

CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
from perfkit.lint.lint import lint_text
size = int(sys.argv[2])
figures = None
if len(sys.argv) > 4:  # a campaign (and its draft): every claim is bound to its data
    from perfkit.lint.lint import campaign_figures
    figures = campaign_figures(sys.argv[4], sys.argv[5] if len(sys.argv) > 5 and sys.argv[5] else None)
lint_text("# warm up\\n\\nStep 1 took 1.23 s.\\n", "pr", figures)  # patterns compile on first use
text = "# [perf] job on 8 H100: 1.23 s to 0.98 s per step at world size 8, mostly from x\\n\\n## Summary\\n\\n"
n = length = 0
parts = []
while length < size:
    if sys.argv[3] == "blocks":
        parts.append(
            "## Part %d\\n\\nStep %d took 1.23 s on 8 H100 with `flag=%d`.\\n\\n"
            "- [ ] first box\\n- [x] second box\\n\\n"
            "| run | time |\\n|---|---|\\n| %d | 1.23 s |\\n\\n```text\\nlog line %d\\n```\\n\\n"
            "<details><summary>More</summary>\\n\\n<!-- a note -->\\nMore text.\\n\\n</details>\\n\\n" % (n, n, n, n, n)
        )
    elif figures is not None and n % 2:
        parts.append("TTFT p99 fell from 1,583 ms to 707 ms on 8 H100, %d. " % n)
    else:
        parts.append("Step %d took 1.23 s. " % n)
    length += len(parts[-1])
    n += 1
text += "".join(parts)[:size]
t = time.process_time()
lint_text(text, "pr", figures)
print(time.process_time() - t)
"""


HEADER = """\
# Performance: lint_wording against the size of the text

One paragraph of short sentences, each with a figure ("Step 12 took 1.23 s."), linted with every rule
(lint_text in process, CPU time of a child process per size), for this tree and for the rules at
`{before}`, before they were made linear. A run longer than {timeout:.0f} s (wall clock) is stopped.
lint_wording refuses texts over 512 KB (GitHub takes 65,536 characters in a body); the larger sizes
here call the rules directly to show the trend.

Reproduce with `python bench/bench_lint_scaling.py --timeout {timeout:.0f} --out docs/perf-lint-scaling.md`.

"""


def run(
    src: Path, size: int, timeout: float, shape: str = "paragraph", campaign: list[str] | None = None
) -> float | None:
    code = CHILD
    try:
        out = subprocess.run(
            [sys.executable, "-c", code, str(src), str(size), shape, *(campaign or [])],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        raise SystemExit(out.stderr[-2000:])
    return float(out.stdout.strip().splitlines()[-1])


def export(rev: str, dest: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "server/perfkit"], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest / "server"


def cell(t: float | None, timeout: float) -> str:
    return f"more than {timeout:.0f} s" if t is None else (f"{t * 1000:.0f} ms" if t < 1 else f"{t:.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", default=BEFORE, help="commit whose lint rules are the 'before' column")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds before a run counts as not finished")
    ap.add_argument("--max-kb", type=float, default=2048)
    ap.add_argument("--shape", choices=("paragraph", "blocks"), default="paragraph")
    ap.add_argument("--quick", action="store_true", help="sizes up to 96 KB and a 30 s timeout (bench/run_all.py)")
    ap.add_argument("--out", help="also write the markdown to this file")
    ap.add_argument("--campaign", help="a campaign folder: compare this tree without and with its figures")
    ap.add_argument("--draft", default="", help="with --campaign: the draft whose benchmark options to read it with")
    args = ap.parse_args()
    if args.campaign:
        return claims_table(args)
    if args.quick:
        args.max_kb, args.timeout = min(args.max_kb, 96), min(args.timeout, 30.0)
    rows = ["| text size | this tree | before (" + args.before + ") | before / now |", "|---|---|---|---|"]
    old_gave_up = False
    with tempfile.TemporaryDirectory() as tmp:
        old_src = export(args.before, Path(tmp))
        for kb in [k for k in SIZES_KB if k <= args.max_kb]:
            now = run(ROOT / "server", int(kb * 1024), args.timeout, args.shape)
            old = None if old_gave_up else run(old_src, int(kb * 1024), args.timeout, args.shape)
            old_gave_up = old is None
            ratio = f"{old / now:.2f}x" if old is not None and now else "n/a"
            rows.append(f"| {kb:g} KB | {cell(now, args.timeout)} | {cell(old, args.timeout)} | {ratio} |")
            print(rows[-1], file=sys.stderr, flush=True)
    table = "\n".join(rows) + "\n"
    if args.out:
        Path(args.out).write_text(HEADER.format(before=args.before, timeout=args.timeout) + table)
    print(table)


CLAIMS_HEADER = """\
# Performance: lint_wording with the campaign's figures against the size of the text

One paragraph of short sentences alternating a step figure ("Step 12 took 1.23 s.") and a serving
claim ("TTFT p99 fell from 1,583 ms to 707 ms on 8 H100, 13."), linted with every rule (lint_text in
process, CPU time of a child process per size), without the campaign and with `{campaign}`, whose
figures every sentence is then bound to (the claim rules). Reading the campaign is not timed.

Reproduce with `python bench/bench_lint_scaling.py --campaign {campaign} {draft}--out {out}`.

"""


def claims_table(args: argparse.Namespace) -> None:
    rows = ["| text size | no campaign | with the campaign | with / without |", "|---|---|---|---|"]
    for kb in [k for k in SIZES_KB if k <= min(args.max_kb, 512)]:
        size = int(kb * 1024)
        bare = run(ROOT / "server", size, args.timeout)
        bound = run(ROOT / "server", size, args.timeout, "paragraph", [args.campaign, args.draft])
        ratio = f"{bound / bare:.1f}x" if bare and bound is not None else "n/a"
        rows.append(f"| {kb:g} KB | {cell(bare, args.timeout)} | {cell(bound, args.timeout)} | {ratio} |")
        print(rows[-1], file=sys.stderr, flush=True)
    table = "\n".join(rows) + "\n"
    if args.out:
        draft = f"--draft {args.draft} " if args.draft else ""
        Path(args.out).write_text(CLAIMS_HEADER.format(campaign=args.campaign, draft=draft, out=args.out) + table)
    print(table)


if __name__ == "__main__":
    main()
