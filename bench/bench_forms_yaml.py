"""Issue forms through perfkit's bounded YAML loader, side by side with plain `yaml.safe_load`.

- The form shapes of tests/shapes/forms, each parsed once per round: the bounded loader (node
  counts, depth, YAML 1.2 booleans) against `yaml.safe_load` with the same pure-Python loader. The
  ratio is what the bounds cost on ordinary forms.
- A form of nested aliases describing 10^6 values: the bounded loader refuses it; `yaml.safe_load`
  accepts it, and serialising the result (as an MCP answer or a walk over the form would) expands it.

Usage: python bench/bench_forms_yaml.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import yaml
from perfkit.guards import safe_yaml

ROOT = Path(__file__).resolve().parents[1]


def laughs(levels: int) -> str:
    out = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    out += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "\n".join(out) + "\n"


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def fmt(s: float) -> str:
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def _refused(text: str) -> None:
    try:
        safe_yaml.load(text)
    except safe_yaml.YamlRefused:
        return
    raise AssertionError("the bounded loader accepted an alias bomb")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ns = ap.parse_args()
    repeat = 5 if ns.quick else 21
    texts = [p.read_text() for p in sorted((ROOT / "tests" / "shapes" / "forms").glob("*.yml"))]
    texts = [t for t in texts if "&a" not in t and "[What" not in t]  # the readable ones

    def bounded() -> None:
        for t in texts:
            safe_yaml.load(t)

    def plain() -> None:
        for t in texts:
            yaml.load(t, Loader=yaml.SafeLoader)  # the same pure-Python safe loader

    ta, tb = [], []
    for _ in range(repeat):  # alternate, so load on the machine hits both sides alike
        ta.append(median_time(bounded, 1))
        tb.append(median_time(plain, 1))
    a, b = statistics.median(ta), statistics.median(tb)
    bomb = laughs(7)
    tr = median_time(lambda: _refused(bomb), repeat)
    tp = median_time(lambda: json.dumps(yaml.load(bomb, Loader=yaml.SafeLoader)), 1 if ns.quick else 3)
    rows = [
        "| benchmark | perfkit | alternative | ratio |",
        "|---|---|---|---|",
        f"| {len(texts)} issue forms parsed, bounded loader, median of {repeat} | {fmt(a)} | "
        f"`yaml.safe_load`: {fmt(b)} | {a / b:.2f}x |",
        f"| a form of aliases describing 10^6 values ({len(bomb)} bytes) | refused in {fmt(tr)} | "
        f"`yaml.safe_load` then `json.dumps`: {fmt(tp)} | {tp / tr:,.0f}x faster |",
    ]
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
