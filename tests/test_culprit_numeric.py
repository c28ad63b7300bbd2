"""evaluate_culprit reads numeric changes in general, in real repositories of ordinary (non-ML) code.

Each planted commit changes one line that can move numbers, in a file that also carries edits that
cannot (a rename, a reworded comment, a log call): exactly that line must be the one highlight, with
its kind and why. Each neutral commit edits numeric code without changing a number: no highlight.
"""

from __future__ import annotations

import pytest
from helpers.gitbuild import Repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.changes.diff_parse import DiffLine, FileDiff, Hunk
from perfkit.culprit.evaluate import evaluate_culprit
from perfkit.culprit.highlights import rank
from perfkit.culprit.numeric_rules import RULES

# ---- planted changes: (name, path, before, after, the planted line in `after`, category) ----------

HYPOT = """\
from .libmpf import mpf_add, mpf_mul, mpf_sqrt, mpf_abs, fzero, round_fast


def mpf_hypot(x, y, prec, rnd=round_fast):
    \"\"\"Computes the Euclidean norm sqrt(x**2+y**2) of two raw mpfs
    x and y.\"\"\"
    if y == fzero: return mpf_abs(x, prec, rnd)
    if x == fzero: return mpf_abs(y, prec, rnd)
    hypot2 = mpf_add(mpf_mul(x,x), mpf_mul(y,y), prec+4)
    return mpf_sqrt(hypot2, prec, rnd)
"""

FORMAT = """\
import warnings
from collections import namedtuple


def _format(val, valtype, floatfmt, intfmt, missingval=""):
    if val is None:
        return missingval
    if valtype is float:
        if isinstance(val, str) and "," in val:
            val = val.replace(",", "")  # handle thousands-separators
        try:
            return format(float(val), floatfmt)
        except (ValueError, TypeError):
            return f"{val}"
    return f"{val}"
"""

GEOMETRY = """\
import math


def same_point(a, b):
    # points closer than this are one point
    return all(math.isclose(p, q, rel_tol=1e-9) for p, q in zip(a, b))


def describe(a):
    return f"point {a}"
"""

STATS = """\
import logging
import math

logger = logging.getLogger(__name__)


def mean(values):
    logger.debug("mean of %d values", len(values))
    return math.fsum(values) / len(values)
"""

BILLING = """\
from decimal import ROUND_HALF_EVEN, Decimal, getcontext

getcontext().rounding = ROUND_HALF_EVEN


def total(items):
    # the invoice total, in cents
    return sum((Decimal(i.price) for i in items), Decimal(0))
"""

EXPORT = """\
def write_rows(out, rows):
    for name, value in rows:
        out.write(f"{name}\\t{value:.17g}\\n")


def header(out):
    out.write("name\\tvalue\\n")
"""

STATS_C = """\
#include <stddef.h>

/* mean of n samples */
double mean(const float *x, size_t n) {
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) {
    sum += x[i];
  }
  return sum / (double)n;
}
"""

CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(solver C)
add_library(solver src/solve.c src/io.c)
target_compile_options(solver PRIVATE -O2 -Wall)
"""

SPECIAL_C = """\
#include <math.h>

/* log(1 + x) for the survival curve */
double log_survival(double x) {
  return log(1.0 + x);
}
"""

FIXED_H = """\
#ifndef FIXED_H
#define FIXED_H
#define FRAC_BITS 16
typedef int fix_t;
#endif
"""

ROUNDING_C = """\
#include <fenv.h>

void solver_init(void) {
  fesetround(FE_TONEAREST);
}
"""

NUMPY_SETUP = """\
import numpy as np


def configure():
    np.seterr(all="raise")
    return True
"""


def _plant(name: str, path: str, before: str, edits: list[tuple[str, str]], needle: str, category: str) -> tuple:
    after = before
    for old, new in edits:
        assert old in after, old
        after = after.replace(old, new)
    return (name, path, before, after, needle, category)


DECIMAL_BRANCH = "        if isinstance(val, Decimal):\n            return format(val, floatfmt)\n        try:\n"
PLANTED = [
    _plant(
        "working precision prec+4 to prec+10, rnd",
        "mpmath/libmp/libhyp.py",
        HYPOT,
        [("mpf_mul(y,y), prec+4)", "mpf_mul(y,y), prec+10, rnd)")],
        "prec+10, rnd",
        "precision",
    ),
    _plant(
        "Decimal formatted without float",
        "tabulate/__init__.py",
        FORMAT,
        [("namedtuple\n", "namedtuple\nfrom decimal import Decimal\n"), ("        try:\n", DECIMAL_BRANCH)],
        "isinstance(val, Decimal)",
        "decimal",
    ),
    _plant("tolerance loosened", "geom/points.py", GEOMETRY, [("tol=1e-9", "tol=1e-6")], "rel_tol", "tolerance"),
    _plant(
        "fsum replaced by sum",
        "stats/mean.py",
        STATS,
        [("math.fsum(values)", "sum(values)")],
        "sum(values)",
        "accumulation",
    ),
    _plant(
        "decimal rounding mode",
        "billing/money.py",
        BILLING,
        [("= ROUND_HALF_EVEN", "= ROUND_HALF_UP"), ("ROUND_HALF_EVEN, Decimal", "ROUND_HALF_UP, Decimal")],
        "getcontext().rounding",
        "rounding",
    ),
    _plant("format spec", "io/export.py", EXPORT, [("{value:.17g}", "{value:.6g}")], "{value:.6g}", "formatting"),
    _plant(
        "C accumulator type",
        "src/mean.c",
        STATS_C,
        [("double sum = 0.0;", "float sum = 0.0f;")],
        "float sum",
        "accumulation",
    ),
    _plant("fast-math flag", "CMakeLists.txt", CMAKE, [("-Wall", "-ffast-math -Wall")], "-ffast", "math_kernel"),
    _plant("math function", "src/survival.c", SPECIAL_C, [("log(1.0 + x)", "log1p(x)")], "log1p", "math_kernel"),
    _plant("fixed point", "include/fixed.h", FIXED_H, [("FRAC_BITS 16", "FRAC_BITS 12")], "FRAC_BITS 12", "decimal"),
    _plant("C rounding mode", "src/init.c", ROUNDING_C, [("FE_TONEAREST", "FE_UPWARD")], "FE_UPWARD", "rounding"),
    _plant(
        "floating-point error handling",
        "app/setup.py",
        NUMPY_SETUP,
        [('np.seterr(all="raise")', 'np.seterr(all="ignore")')],
        "np.seterr",
        "precision",
    ),
]

# edits that ride along in every planted commit, in the same file: none of them may be flagged
NOISE = (
    "\n\ndef unrelated_helper(path):\n"
    "    # read the rows; sum them later with extra precision\n"
    '    logger.info("reading %s with precision %.3f", path, 0.5)\n'
    "    return open(path).read()\n"
)


def _line(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


@pytest.mark.parametrize("name,path,before,after,needle,category", PLANTED, ids=[p[0] for p in PLANTED])
def test_a_planted_numeric_change_is_the_top_highlight(tmp_path, name, path, before, after, needle, category):
    r = Repo(tmp_path / "repo")
    python = path.endswith(".py")
    r.commit("base", {path: before + (NOISE.replace("reading", "loading") if python else ""), "README.md": "x\n"})
    noisy_after = after + (NOISE if python else "")
    sha = r.commit(f"change: {name}", {path: noisy_after, "README.md": "Rounding and precision notes.\n"})
    res = evaluate_culprit(str(r.path), sha)
    top = res.highlights[0]
    # nothing of the noise is flagged: only the planted edit (an import it needs may be a second, weaker hunk)
    noise_from = _line(noisy_after, "def unrelated_helper") if python else 10**6
    assert all(h.file == path and h.line < noise_from for h in res.highlights), [
        (h.file, h.line) for h in res.highlights
    ]
    assert res.highlights_total <= 2 and all(h.score < top.score for h in res.highlights[1:])
    assert (top.file, top.line, top.category) == (path, _line(noisy_after, needle), category), top
    assert top.kind and top.effect and top.why  # what kind of change it is, and why it can move numbers
    text = res.human()
    assert f"{path}:{top.line}" in text and top.kind in text and top.effect in text


def test_the_working_precision_change_says_what_changed(tmp_path):
    r = Repo(tmp_path / "repo")
    r.commit("base", {"libhyp.py": HYPOT})
    sha = r.commit("Add extra precision for summation", {"libhyp.py": PLANTED[0][3]})
    top = evaluate_culprit(str(r.path), sha).highlights[0]
    assert top.kind == "working precision" and top.change == "prec+4 -> prec+10, rnd"
    assert any("rounding mode 'rnd'" in w for w in top.why)


# ---- neutral changes: numeric code edited without changing a number -------------------------------

MODULE = """\
import logging
import math
from decimal import Decimal

logger = logging.getLogger(__name__)
__version__ = "1.4.0"
CENT = Decimal("0.01")


def read_values(path):
    \"\"\"Read one value per line.

    The values are summed later with extra precision and rounding to even.
    \"\"\"
    with open(path) as fh:
        return [float(line) for line in fh]


def mean(path):
    values = read_values(path)
    # sum in order of magnitude to keep precision
    total = math.fsum(sorted(values, key=abs))
    logger.info("mean=%.3f over %d values", total / len(values), len(values))
    if not values:
        raise ValueError("precision must be positive")
    return total / len(values)


def as_money(x):
    return Decimal(x).quantize(CENT)
"""


def _edit(text: str, *edits: tuple[str, str]) -> str:
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return text


CLI_TEST = "def test_help(capsys):\n    assert main(['--help']) == 0\n    assert 'usage' in capsys.readouterr().out\n"
NEUTRAL = [
    ("rename", {"stats.py": MODULE.replace("read_values", "load_values")}),
    (
        "docs",
        {
            "README.md": "Values are rounded half to even with 28 digits of precision.\n",
            "docs/numerics.rst": "Sums use ``math.fsum``; tolerances are relative, 1e-9.\n",
        },
    ),
    ("logging", {"stats.py": _edit(MODULE, ('logger.info("mean=%.3f over %d', 'logger.debug("mean %.6f from %d'))}),
    ("test of unrelated code", {"tests/test_cli.py": CLI_TEST}),
    (
        "version string",
        {
            "stats.py": _edit(MODULE, ('"1.4.0"', '"1.4.1"')),
            "CHANGELOG.md": "## 1.4.1\n- Rounding of Decimal values in float columns fixed.\n",
        },
    ),
    (
        "comment-only",
        {
            "stats.py": _edit(
                MODULE,
                ("# sum in order of magnitude to keep precision", "# add the smallest first, so rounding errs less"),
            )
        },
    ),
    (
        "reworded message and docstring",
        {
            "stats.py": _edit(
                MODULE,
                ('"precision must be positive"', '"no values to average: the file is empty"'),
                ("with extra precision and rounding to even", "with compensated summation, rounded half to even"),
            )
        },
    ),
    ("reformatted", {"stats.py": _edit(MODULE, ("fsum(sorted(values, key=abs))", "fsum(sorted(values,  key = abs))"))}),
    (
        "formatter: lines split and joined, quotes, parentheses, sorted imports",
        {
            "stats.py": _edit(
                MODULE,
                ("import logging\nimport math\n", "import math\nimport logging\n"),
                ("math.fsum(sorted(values, key=abs))", "math.fsum(\n        sorted(values, key=abs),\n    )"),
                ('ValueError("precision must be positive")', "ValueError('precision must be positive')"),
                ("return Decimal(x).quantize(CENT)", "return (\n        Decimal(x).quantize(CENT)\n    )"),
            )
        },
    ),
    (
        "C comment and log",
        {
            "src/mean.c": _edit(
                STATS_C,
                ("/* mean of n samples */", "/* arithmetic mean of n samples, in double */"),
                ("  return sum", '  fprintf(stderr, "mean of %zu samples\\n", n);\n  return sum'),
            )
        },
    ),
]


@pytest.mark.parametrize("name,files", NEUTRAL, ids=[n for n, _ in NEUTRAL])
def test_a_neutral_change_to_numeric_code_has_no_highlight(tmp_path, name, files):
    r = Repo(tmp_path / "repo")
    r.commit("base", {"stats.py": MODULE, "src/mean.c": STATS_C, "README.md": "Stats.\n", "docs/numerics.rst": "x\n"})
    sha = r.commit(f"chore: {name}", files)
    res = evaluate_culprit(str(r.path), sha)
    assert res.highlights_total == 0, [(h.file, h.line, h.why) for h in res.highlights]
    assert "no hunk matched" in res.next_action.sentence


# ---- invariants on any input -------------------------------------------------------------------

_RULE_WORDS = ("sum", "prec", "round", "format", "float", "decimal", "tol", "eps", "exp", "log", "acc", "fix")
_NAMES = st.from_regex(r"[a-z][a-z_]{2,12}", fullmatch=True).filter(
    lambda n: not any(w in n for w in _RULE_WORDS) and n not in {"and", "for", "not", "def", "return", "import"}
)
_NUMERIC_LINES = [
    "    total = math.fsum({n}(values))",
    "    hypot2 = mpf_add(mpf_mul(x, x), {n}(y), prec+4, rnd)",
    "    return format(float({n}), floatfmt)",
    '    out.write(f"{{{n}:.17g}}")',
    "    ok = math.isclose({n}, b, rel_tol=1e-9)",
    "    getcontext().rounding = {n}",
]


def _hunk_file(path: str, removed: list[str], added: list[str]) -> FileDiff:
    """One file whose single hunk replaces removed by added at line 10 (the shape the parser yields)."""
    hunk = Hunk(10, len(removed), 10, len(added))
    hunk.removed = [DiffLine(10 + i, t, 10) for i, t in enumerate(removed)]
    hunk.added = [DiffLine(10 + i, t, 10 + min(i, len(removed) - 1)) for i, t in enumerate(added)]
    return FileDiff("M", path, path, "100644", "100644", "a" * 40, "b" * 40, hunks=[hunk])


@settings(max_examples=60, deadline=None)
@given(old=_NAMES, new=_NAMES, lines=st.lists(st.sampled_from(_NUMERIC_LINES), min_size=1, max_size=6))
def test_renaming_a_plain_name_in_numeric_lines_is_never_flagged(old, new, lines):
    before = [ln.format(n=old) for ln in lines]
    after = [ln.format(n=new) for ln in lines]
    assert rank([_hunk_file("src/stats.py", before, after)]) == ([], 0)


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(st.sampled_from(_NUMERIC_LINES), min_size=1, max_size=6),
    old=st.text(st.sampled_from("abc precision rounding sum float eps 1e-9 %.3f Decimal"), max_size=40),
    new=st.text(st.sampled_from("abc precision rounding sum float eps 1e-9 %.3f Decimal"), max_size=40),
)
def test_editing_only_comments_and_log_text_is_never_flagged(lines, old, new):
    code = [ln.format(n="v") for ln in lines]
    before = [f"{c}  # {old}" for c in code] + [f'    logger.info("{old}", v)']
    after = [f"{c}  # {new}" for c in code] + [f'    logger.info("{new}", v)']
    assert rank([_hunk_file("src/stats.py", before, after)]) == ([], 0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(st.sampled_from(_NUMERIC_LINES), min_size=1, max_size=6), digit=st.integers(2, 9))
def test_changing_a_number_on_a_numeric_line_is_always_flagged(lines, digit):
    """The other side of the rename invariant: the same lines with one value changed are flagged."""
    before = [ln.format(n="v") for ln in lines]
    after = [*before[:-1], before[-1].replace("v", f"v{digit}x", 1) + f" + {digit}"]
    found, total = rank([_hunk_file("src/stats.py", before, after)])
    assert total == 1 and found[0].line == 10 + len(lines) - 1


@pytest.mark.parametrize("rule", RULES, ids=[f"{r.category}:{r.kind}" for r in RULES])
def test_every_gate_lets_through_what_its_rule_matches(rule):
    """A gate only spares work: any text the rule's pattern matches holds one of the gate's pieces."""

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=st.from_regex(rule.pattern))
    def check(text):
        assert rule.pattern.search(text)
        assert rule.search(text, text.lower()), text

    check()
