"""Rank the hunks of a commit by how likely they are to move numerical results.

The rules are deliberately plain (token patterns on changed lines, weighted by where the file
sits and whether the line is a comment) so a reader can check why a hunk was flagged; the
table of rules and weights is documented in docs/culprit.md and must be kept in step with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from perfkit.culprit.models import Highlight, HighlightCategory
from perfkit.repo import gitrepo

_WORD_PART = 64


def _tok(words: str) -> str:
    """Tokens bounded by anything but letters and digits, so 'DT_FP16' and 'acc_dtype' match.

    '_' bounds a token too, so a match may start after any underscore of a long identifier; each
    open-ended word part is held to 64 characters so such a start reads a bounded stretch and a
    line of underscores or joined names costs linear time. Longer names are not real tokens.
    """
    bounded = words.replace(r"\w*", rf"\w{{0,{_WORD_PART}}}").replace(r"\w+", rf"\w{{1,{_WORD_PART}}}")
    return rf"(?<![A-Za-z0-9])(?:{bounded})(?![A-Za-z0-9])"


_TYPE_WORDS = (
    r"bfloat16_t|half_t|__half|__bf16|float8\w*|fp8|fp16|bf16|fp32|fp64|tf32|float16|bfloat16|float32|"
    r"float64|half(?![_\w])|f16|f32|f64|int8|uint8|int4|DT_[A-Z0-9]+"
)
_TYPE_RE = re.compile(_tok(_TYPE_WORDS), re.IGNORECASE)


@dataclass(frozen=True)
class Rule:
    category: HighlightCategory
    pattern: re.Pattern[str]
    weight: float
    why: str
    removed_only: bool = False


_I = re.IGNORECASE
_CAST = (
    r"static_cast<\s*(?:float|double|half|bfloat16_t|int8_t)\s*>|\(\s*(?:float|double|half)\s*\)"
    r"|\.(?:float|half|double|bfloat16)\(\)|\.to\(|\.astype\(|"
    + _tok(r"\w*cast\w*")
    + r"\s*[(<]|"
    + _tok(r"convert\w*|vconv\w*")
    + r"\s*\("
)
_ACCUMULATE = _tok(
    r"acc|accum\w*|acc_?dtype|acc_?type|acc_t|AccT|AccType|accumulat\w*|out_dtype|compute_dtype|"
    r"promote\w*|round_?mode\w*|RoundMode|rint|CAST_\w+"
)
_TOLERANCE = _tok(
    r"atol|rtol|eps|epsilon|tol|tolerance|FLT_EPSILON|DBL_EPSILON|allclose|isclose|assert_allclose|"
    r"threshold|ulp"
)
_LAYOUT = _tok(
    r"transpose\w*|permute|strides?|tile\w*|tiling|TILE_\w+|block_?size\w*|BLOCK_\w+|as_layout|layout\w*|"
    r"reshape|swizzle\w*|split_?k|reduce\w*|reduction\w*|allreduce\w*|cumsum|start_offset|row_?major|"
    r"col_?major"
)
_MATH = (
    _tok(
        r"exp|expf|exp2\w*|__expf|log|logf|log2\w*|log1p|sqrt\w*|rsqrt\w*|tanh\w*|erf\w*|pow|powf|sigmoid|"
        r"softmax\w*|gelu|silu|recip\w*|reciprocal|fma\w*|__fdividef"
    )
    + r"\s*\(|"
    + _tok(r"fast_?math|approx\w*|cublas\w*|cudnn\w*|mkl\w*|aclnn\w*|libm|cmath|math\.h")
)
_SELECT = r"-ffast-math|-ffp-contract\S*|-fno-fast-math|" + _tok(
    r"kernel_?(?:name|impl|select\w*|variant)|select_?kernel\w*|dispatch\w*|backend|impl_?type|algo\w*"
)
_PASSES = _tok(
    r"\w*Pass|\w*_pass|passes|pass_?manager|PassManager|add_?pass|opt_?level|OptLevel|-O[0-3s]|"
    r"optimi[sz]\w*|fuse\w*|fusion\w*|unroll\w*|vectori[sz]\w*|canonicali[sz]\w*|enable_\w+|disable_\w+"
)
_SYNC = _tok(
    r"\w*barrier\w*|__syncthreads|sync\w*|synchroni[sz]e\w*|set_?flag|wait_?flag|SetFlag|WaitFlag|"
    r"\w*fence\w*|wait\w*|notify\w*|memory_order\w*|PIPE_\w+|mutex|lock_guard|volatile"
)

RULES: list[Rule] = [
    Rule("dtype", _TYPE_RE, 5.0, "precision type {m}"),
    Rule("dtype", re.compile(_CAST), 4.0, "numeric cast {m}"),
    Rule("dtype", re.compile(_ACCUMULATE, _I), 4.0, "accumulation or rounding type {m}"),
    Rule("dtype", re.compile(_tok(r"float|double"), _I), 2.0, "floating type {m}"),
    Rule("tolerance", re.compile(_TOLERANCE, _I), 4.0, "tolerance {m}"),
    Rule("tolerance", re.compile(r"(?<![\w.])\d+(?:\.\d*)?[eE]-\d+"), 3.0, "small constant {m}"),
    Rule("layout", re.compile(_LAYOUT, _I), 3.0, "reduction order or layout {m}"),
    Rule("math_kernel", re.compile(_MATH, _I), 3.0, "math function or library {m}"),
    Rule("math_kernel", re.compile(_SELECT), 2.5, "kernel or math-mode selection {m}"),
    Rule("passes", re.compile(_PASSES), 3.0, "optimisation pass or switch {m}"),
    Rule("sync_removed", re.compile(_SYNC, _I), 5.0, "removes synchronisation {m}", removed_only=True),
]

_KIND_RE = re.compile(_tok(_TYPE_WORDS + r"|float|double"), re.IGNORECASE)
_SYNC_RE = next(r.pattern for r in RULES if r.category == "sync_removed")
_PASS_RE = next(r.pattern for r in RULES if r.category == "passes")
_DOC_EXT = {".md", ".rst", ".txt", ".adoc"}
_MAX_FILE_CHANGES = 20000
_COMMENT_WEIGHT, _DOC_WEIGHT, _TEST_WEIGHT, _CI_WEIGHT, _CORE_WEIGHT = 0.3, 0.2, 0.6, 0.2, 1.2
_CORE_RE = re.compile(r"codegen|pass|kernel|(?<![a-z])ops?(?![a-z])|backend|lower|runtime|src/", re.IGNORECASE)


def path_weight(path: str) -> tuple[float, str | None]:
    p = PurePosixPath(path)
    low = path.lower()
    build_file = p.name.lower() == "cmakelists.txt" or p.name.lower().startswith("requirements")
    if (p.suffix.lower() in _DOC_EXT and not build_file) or low.startswith(("docs/", "doc/")) or "/docs/" in low:
        return _DOC_WEIGHT, "documentation"
    if low.startswith((".github/", ".gitlab", ".ci/")) or p.name.lower() in {"dockerfile", ".gitmodules"}:
        return _CI_WEIGHT, "CI or packaging"
    if re.search(r"(^|/)tests?/|(^|/)test_|_test\.|\.test\.", low):
        return _TEST_WEIGHT, "test file"
    if _CORE_RE.search(low):
        return _CORE_WEIGHT, None
    return 1.0, None


def is_comment(text: str, path: str) -> bool:
    s = text.strip()
    if not s:
        return True
    if s.startswith(("//", "/*", "* ", "*/", '"""', "'''")) or s == "*":
        return True
    if s.startswith("#"):
        return not re.match(r"#\s*(include|define|undef|if|ifdef|ifndef|elif|else|endif|pragma)\b", s) or PurePosixPath(
            path
        ).suffix in {".py", ".sh", ".cmake", ".yml", ".yaml", ".toml", ".cfg"}
    return False


@dataclass
class _Line:
    sign: str
    text: str
    old_no: int
    new_no: int


@dataclass
class _Hunk:
    path: str
    lines: list[_Line] = field(default_factory=list)


def parse_diff(diff: str) -> list[_Hunk]:
    """Hunks of a unified diff, with line numbers on both sides; binary files and gitlinks skipped."""
    hunks: list[_Hunk] = []
    path = ""
    cur: _Hunk | None = None
    old_no = new_no = run_old = run_removed = run_added = 0
    minus_path = ""
    for raw in diff.split("\n"):
        if raw.startswith("diff --git "):
            cur, path, minus_path = None, "", ""
        elif raw.startswith("--- ") and cur is None:
            minus_path = _strip_prefix(raw[4:], "a/")
        elif raw.startswith("+++ ") and cur is None:
            plus = _strip_prefix(raw[4:], "b/")
            path = minus_path if plus == "/dev/null" else plus
        elif raw.startswith("@@ ") and path:
            m = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@", raw)
            if not m:
                continue
            old_no, new_no = int(m.group(1)), int(m.group(2))
            run_removed = run_added = 0
            cur = _Hunk(path)
            hunks.append(cur)
        elif cur is not None and raw[:1] in (" ", "+", "-"):
            sign = raw[0]
            text = raw[1:]
            if text.startswith("Subproject commit "):
                continue
            if sign == " ":
                old_no, new_no = old_no + 1, new_no + 1
                run_removed = run_added = 0
            elif sign == "-":
                if run_added:
                    run_removed = run_added = 0
                if not run_removed:
                    run_old = old_no
                cur.lines.append(_Line("-", text, old_no, new_no))
                old_no += 1
                run_removed += 1
            else:
                # a replaced line sits where the line it replaces was; an inserted one before the next old line
                at = run_old + min(run_added, run_removed - 1) if run_removed else old_no
                cur.lines.append(_Line("+", text, max(at, 1), new_no))
                new_no += 1
                run_added += 1
    return [h for h in hunks if h.lines]


def _strip_prefix(name: str, prefix: str) -> str:
    name = name.rstrip("\t")
    if len(name) >= 2 and name[0] == name[-1] == '"':
        name = _unquote(name[1:-1])
    return name[len(prefix) :] if name.startswith(prefix) else name


_ESCAPES = {"n": b"\n", "t": b"\t", '"': b'"', "\\": b"\\", "a": b"\a", "b": b"\b", "f": b"\f", "r": b"\r", "v": b"\v"}


def _unquote(body: str) -> str:
    """Undo git's C-style path quoting (octal escapes are UTF-8 bytes)."""
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567" and re.fullmatch(r"[0-7]{3}", body[i + 1 : i + 4]):
                out.append(int(body[i + 1 : i + 4], 8))
                i += 4
                continue
            out += _ESCAPES.get(nxt, nxt.encode())
            i += 2
            continue
        out += c.encode("utf-8")
        i += 1
    return out.decode("utf-8", "replace")


@dataclass
class _Hit:
    category: HighlightCategory
    score: float
    why: str
    line: _Line


def _score_hunk(hunk: _Hunk, moved: set[str]) -> tuple[float, list[_Hit], list[str]]:
    weight, place = path_weight(hunk.path)
    hits: list[_Hit] = []
    removed_sync = sum(1 for ln in hunk.lines if ln.sign == "-" for _ in _SYNC_RE.finditer(ln.text))
    added_sync = sum(1 for ln in hunk.lines if ln.sign == "+" for _ in _SYNC_RE.finditer(ln.text))
    for ln in hunk.lines:
        lw = weight * (_COMMENT_WEIGHT if is_comment(ln.text, hunk.path) else 1.0)
        seen: set[str] = set()
        for rule in RULES:
            if rule.removed_only and (ln.sign != "-" or removed_sync <= added_sync):
                continue
            m = rule.pattern.search(ln.text)
            if not m or rule.category in seen:
                continue
            seen.add(rule.category)
            hits.append(_Hit(rule.category, rule.weight * lw, rule.why.format(m=f"'{m.group().strip()}'"), ln))
        if ln.text.strip() in moved and ln.sign == "+" and _PASS_RE.search(ln.text):
            hits.append(_Hit("passes", 3.5 * lw, f"moves '{ln.text.strip()[:60]}' (pass order changed)", ln))
    extra: list[str] = []
    before = {
        t.lower()
        for ln in hunk.lines
        if ln.sign == "-" and not is_comment(ln.text, hunk.path)
        for t in _KIND_RE.findall(ln.text)
    }
    after = {
        t.lower()
        for ln in hunk.lines
        if ln.sign == "+" and not is_comment(ln.text, hunk.path)
        for t in _KIND_RE.findall(ln.text)
    }
    bonus = 0.0
    if before and after and before != after:
        bonus = 2.0 * weight
        extra.append(
            f"changes type {'/'.join(sorted(before - after) or sorted(before))} -> "
            f"{'/'.join(sorted(after - before) or sorted(after))}"
        )
    if place and hits:
        extra.append(f"weighted down: {place}")
    if not hits:
        return 0.0, [], []
    hits.sort(key=lambda h: -h.score)
    rest = sorted((h.score for h in hits[1:]), reverse=True)[:8]
    return round(hits[0].score + 0.25 * sum(rest) + bonus, 2), hits, extra


def rank(diff: str, limit: int = 15) -> tuple[list[Highlight], int]:
    """The flagged hunks of a unified diff, best first, cut to limit; and how many were flagged."""
    hunks = parse_diff(diff)
    removed: dict[str, set[str]] = {}
    added: dict[str, set[str]] = {}
    for h in hunks:
        for ln in h.lines:
            s = ln.text.strip()
            if s:
                (removed if ln.sign == "-" else added).setdefault(h.path, set()).add(s)
    out: list[Highlight] = []
    for h in hunks:
        moved = removed.get(h.path, set()) & added.get(h.path, set())
        score, hits, extra = _score_hunk(h, moved)
        if not hits:
            continue
        lines = sorted({id(x.line): x.line for x in hits}.values(), key=lambda ln: (ln.new_no, ln.sign != "-"))
        shown = lines[:6]
        excerpt = "\n".join(f"{ln.sign}{ln.text.rstrip()[:160]}" for ln in shown)
        if len(lines) > len(shown):
            excerpt += f"\n... {len(lines) - len(shown)} more flagged lines"
        cats = list(dict.fromkeys(x.category for x in hits))
        why = list(dict.fromkeys(x.why for x in hits))[:5] + extra
        top = hits[0].line
        out.append(
            Highlight(
                file=h.path,
                line=top.new_no,
                old_line=top.old_no,
                category=hits[0].category,
                categories=cats,
                score=score,
                excerpt=excerpt,
                why=why,
            )
        )
    out.sort(key=lambda x: (-x.score, x.file, x.line))
    return out[:limit], len(out)


def commit_highlights(
    repo: Path, base: str, commit: str, big_files: list[str], limit: int = 15
) -> tuple[list[Highlight], int]:
    """Highlights of base..commit, skipping files too large to be hand-written changes."""
    args = [
        "diff",
        "-U3",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-renames",
        "--ignore-submodules=all",
        base,
        commit,
        "--",
    ]
    args += ["."] + [f":(exclude,literal){p}" for p in big_files]
    return rank(gitrepo.git(repo, *args), limit)


def too_big(added: int | None, deleted: int | None) -> bool:
    return (added or 0) + (deleted or 0) > _MAX_FILE_CHANGES
