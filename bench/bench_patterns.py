"""The patterns issue 24 found super-linear, before and after, on the lines that exposed them.

Each row times the pattern perfkit shipped before (written out here) and the one it ships now
(read from the package), on the same line at growing lengths, in one run. The figure to read is how
each grows per doubling: about 2x is linear, 4x quadratic, 8x cubic. The old patterns stop before a
length that could take over 2 s (quartic growth assumed), so none can hold the run.

Usage: python bench/bench_patterns.py [--sizes 250,500,1000,2000,4000,8000,16000]
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable

from perfkit.changes import recipes
from perfkit.markdown.blocks import BOX_RE, parse_blocks

OLD_JSON = re.compile(r"\"([A-Za-z_][\w.\-]*)\"\s*:\s*([^,{\[]+?|\{|\[)\s*,?\s*$")
OLD_PARAM = re.compile(
    r"(?:^|[(,])\s*([a-z_]\w*)\s*(?::\s*[\w\[\]., |\"']+?)?\s*=\s*"
    r"(True|False|None|-?\d[\w.]*|\"[^\"]*\"|'[^']*')\s*(?=[,)]|$)"
)
OLD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
OLD_BOX = re.compile(r"^(?P<lead>\s*(?:[-*+]\s+)?\[)(?P<mark>[ xX])(?P<close>\]\s+)(?P<text>.*?)\s*$")

Reader = re.Pattern[str] | Callable[[str], object]
CASES: list[tuple[str, Callable[[int], str], re.Pattern[str], Reader, str]] = [
    ('JSON config `"lr": x` + spaces', lambda n: '"lr": x' + " " * n + "\x01", OLD_JSON, recipes._JSON_RE, "search"),
    ("`def f(a: ` + spaces", lambda n: "(a: " + " " * n, OLD_PARAM, recipes._PARAM_RE, "finditer"),
    # headings are read by perfkit.markdown's CommonMark parser now: the whole block pass is timed
    ("heading `# x` + #s", lambda n: "# x " + "#" * n + "\x01", OLD_HEADING, parse_blocks, "match"),
    ("checkbox `- [ ] x` + spaces", lambda n: "- [ ] x" + " " * n + "\x01", OLD_BOX, BOX_RE, "match"),
]


def _time(rx: Reader, how: str, text: str) -> float:
    start = time.process_time()
    if not isinstance(rx, re.Pattern):
        rx(text)
    elif how == "finditer":
        sum(1 for _ in rx.finditer(text))
    else:
        getattr(rx, how)(text)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="250,500,1000,2000,4000,8000,16000")
    sizes = [int(s) for s in parser.parse_args().sizes.split(",")]
    print(f"{'line':<34} {'chars':>7} {'before s':>10} {'now s':>10} {'before/now':>11}")
    for name, make, old, new, how in CASES:
        last = 0.0
        for n in sizes:
            text = make(n)
            now = _time(new, how, text)
            # the old pattern runs only while a quartic growth from its last time stays under 2 s
            before = float("nan") if last * 16 > 2.0 else _time(old, how, text)
            last = before if before == before else float("inf")
            ratio = before / now if now > 0 and before == before else float("nan")
            print(f"{name:<34} {n:>7} {before:>10.4f} {now:>10.6f} {ratio:>11.0f}", flush=True)


if __name__ == "__main__":
    main()
