"""What a change that can move numbers looks like: the rules evaluate_culprit's highlights apply to a line.

Each rule is a plain token pattern with a kind (what the line changes), an effect (why that can
move numbers) and a weight, so a reader can check why a hunk was flagged. The table is documented
in docs/culprit.md and must be kept in step with it.

Where a rule looks is part of the rule. Most look at the code of a line only, with its string
literals emptied and its trailing comment cut, so a message, a log text or a comment that says
"rounding" or "precision" is not a change of rounding or precision. Format specifications, small
constants, compiler flags and type names live inside strings (`"%.17g"`, `"1e-6"`, `"-ffast-math"`
in a build file, `dtype="float32"`), so their rules read the code of a line with its strings kept.
Named precision types (fp16, bfloat16) are also read in comments and documentation, at a low
weight: there they usually describe a type change made nearby.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from perfkit.culprit.models import HighlightCategory

_WORD_PART = 64

# prose: comments, documentation, log calls; code: a code line with its strings emptied; text: a code line with
# its strings kept (its trailing comment is cut in both)
Scope = Literal["prose", "code", "text"]


def tok(words: str) -> str:
    """Tokens bounded by anything but letters and digits, so 'DT_FP16' and 'acc_dtype' match.

    '_' bounds a token too, so a match may start after any underscore of a long identifier; each
    open-ended word part is held to 64 characters so such a start reads a bounded stretch and a
    line of underscores or joined names costs linear time. Longer names are not real tokens.
    """
    bounded = words.replace(r"\w*", rf"\w{{0,{_WORD_PART}}}").replace(r"\w+", rf"\w{{1,{_WORD_PART}}}")
    return rf"(?<![A-Za-z0-9])(?:{bounded})(?![A-Za-z0-9])"


def flag(words: str) -> str:
    """Compiler or tool flags, bounded by anything that cannot continue a flag."""
    return rf"(?<![\w-])(?:{words})(?![\w-])"


@dataclass(frozen=True)
class Rule:
    category: HighlightCategory
    pattern: re.Pattern[str]
    weight: float
    kind: str  # what the line changes, in a few words
    effect: str  # why that can move numbers
    scope: Scope = "code"
    removed_only: bool = False
    # lower-case pieces of text one of which every match holds (see gate()): a line holding none is not searched
    gate: re.Pattern[str] | None = None

    def search(self, text: str, low: str) -> re.Match[str] | None:
        """The first match in text (low is text in lower case), or None."""
        if self.gate is not None and not self.gate.search(low):
            return None
        return self.pattern.search(text)


_GATE_PIECES: dict[str, tuple[str, ...]] = {}  # each gate's pieces, by its pattern


def gate(*pieces: str) -> re.Pattern[str]:
    """Literal pieces one of which every match of a rule holds, in lower case, as one pattern.

    A rule's pattern opens with a look-behind, so the regular expression engine tries it at every
    position of a line; a pattern of literals is found by a quick scan for its first characters.
    Searching the gate first spares the rule on most lines (tests/test_culprit_numeric.py checks
    that every gate lets through whatever its rule matches)."""
    joined = "|".join(re.escape(p) for p in sorted(set(pieces)))
    _GATE_PIECES[joined] = pieces
    return re.compile(joined)


def union_gate(rules: list[Rule]) -> re.Pattern[str] | None:
    """One gate for several rules: a text it does not let through is read by none of them."""
    if any(r.gate is None for r in rules):
        return None
    return gate(*(p for r in rules for p in _GATE_PIECES[r.gate.pattern]))  # type: ignore[union-attr]


_I = re.IGNORECASE

TYPE_WORDS = (
    r"bfloat16_t|half_t|__half|__bf16|float8\w*|fp8|fp16|bf16|fp32|fp64|tf32|float16|bfloat16|float32|"
    r"float64|float80|float96|float128|longdouble|clongdouble|long\s+double|__float128|_Float(?:16|32|64|128)|"
    r"complex64|complex128|half(?![_\w])|f16|f32|f64|int8|uint8|int4|DT_[A-Z0-9]+"
)
TYPE_RE = re.compile(tok(TYPE_WORDS), _I)
# in prose 'half' is mostly English ("rounded half to even"), so a sentence is read without it
_PROSE_TYPE_RE = re.compile(tok(TYPE_WORDS.replace(r"half(?![_\w])|", "")), _I)
KIND_RE = re.compile(tok(TYPE_WORDS + r"|float|double"), _I)

_CAST = (
    r"static_cast<\s*(?:float|double|half|bfloat16_t|int8_t)\s*>|\(\s*(?:float|double|half)\s*\)"
    r"|\.(?:float|half|double|bfloat16)\(\)|\.to\(|\.astype\(|"
    + tok(r"\w*cast\w*")
    + r"\s*[(<]|"
    + tok(r"convert\w*|vconv\w*")
    + r"\s*\("
)
_CONVERSION = r"(?<![\w.])(?:float|complex|mpf|mpc|mpmathify|np\.float\d{0,3}|numpy\.float\d{0,3})\s*\("
_WORKING_PRECISION = tok(
    r"prec|dps|wp|workprec|workdps|extraprec|extradps|autoprec|guard_?bits|"
    r"\w*_prec|prec_\w*|\w*precision\w*|mpfr_set_\w*prec\w*|set_default_prec\w*|MPFR_PREC\w*|"
    r"jax_enable_x64|enable_x64|FLT_EVAL_METHOD"
)
_FP_ENVIRONMENT = tok(
    r"seterr\w*|errstate|feenableexcept|fedisableexcept|feclearexcept|fesetenv|feholdexcept|fesetexceptflag|"
    r"FE_(?:INVALID|DIVBYZERO|OVERFLOW|UNDERFLOW|INEXACT|ALL_EXCEPT)|_controlfp\w*|_FPU_SETCW|fpu_control|"
    r"\w*flush_?denormal\w*|\w*denormals?\w*|FTZ|DAZ|_MM_SET_FLUSH_ZERO_MODE|_MM_SET_DENORMALS_ZERO_MODE|"
    r"allow_tf32|allow_(?:fp16|bf16)_reduced_precision_reduction|NVIDIA_TF32_OVERRIDE|TF32_\w+"
)
_FP_FLAGS = flag(r"-mfpmath=\w{1,16}|-ffloat-store|-fexcess-precision=\w{1,16}|-fdenormal-fp-math=[\w,-]{1,32}")
_ROUNDING_MODE = tok(
    r"rnd|rounding\w*|round_?mode\w*|RoundMode|RoundingMode|(?-i:ROUND_[A-Z_]{2,20})|"
    r"round_(?:nearest|floor|ceiling|ceil|down|up|fast|half\w*|even|zero|toward\w*)|fesetround|fegetround|"
    r"FE_(?:TONEAREST|UPWARD|DOWNWARD|TOWARDZERO)|_MM_SET_ROUNDING_MODE|_MM_ROUND_\w+|MPFR_RND\w*|"
    r"float_round_style|round_to_nearest|rint|rintf|nearbyint\w*|lrint\w*|llrint\w*|__\w+_r[nzud]|(?-i:CAST_\w+)"
)
_ROUND_VALUES = r"(?<![\w])(?:round|around|roundf|lround|llround)\s*\(|\.round\s*\(|" + tok(r"quantize")
_DECIMAL = tok(
    r"Decimal|decimal|DecimalTuple|to_integral\w*|Fraction|fractions|BigDecimal|MathContext|"
    r"fixed_?point\w*|FixedPoint|fix(?:16|32|64)\w*|fxp\w*|frac_?bits|FRAC_\w+|[qQ](?:7|15|31|63)|"
    r"_Fract|_Accum|_Sat|cpp_dec_float\w*|cpp_bin_float\w*|_Decimal(?:32|64|128)|"
    r"mpf_\w+|mpfr_\w+|mpz_\w+|mpz|mpq|mpf|mpc|from_man_exp|to_man_exp"
)
_PRINTF = r"%[-+ #0']{0,5}(?:\d{1,3}|\*)?(?:\.(?:\d{1,3}|\*))?(?:ll|l|L|h)?[eEfFgGaA](?![A-Za-z0-9_])"
_FORMAT_SPEC = (
    r"\{[^{}:\n]{0,80}:[^{}\n]{0,24}[eEfFgGn%]\}"
    r"|([\"'])[<>^=]?[+\- ]?#?0?\d{0,3}[,_]?\.\d{1,3}[eEfFgGn%]\1"
)
_FORMAT_API = (
    tok(
        r"floatfmt|intfmt|float_?format\w*|float_?precision|floatmode|set_printoptions|printoptions|"
        r"array2string|format_float_\w+|float_repr\w*|repr|__repr__|__format__|setprecision|setiosflags|"
        r"hexfloat|defaultfloat|to_chars|from_chars|strto[dfl]\w*|atof|stof|stod|stold|dtoa|"
        r"LC_NUMERIC|localeconv|fromhex"
    )
    + r"|std::(?:fixed|scientific)|(?<![\w.])format\s*\("
)
_TOLERANCE = tok(
    r"atol|rtol|eps|epsilon|tol|tolerance|FLT_EPSILON|DBL_EPSILON|LDBL_EPSILON|allclose|isclose|assert_allclose|"
    r"threshold|ulps?|maxulp|nulp|max_?ulps?|assert_array_max_ulp|approx|assert_?almost_?equal\w*|"
    r"assertAlmostEqual|almost_?equal|places|finfo|numeric_limits|FLT_MIN|DBL_MIN|FLT_TRUE_MIN|"
    r"machine_?eps\w*|rel_?err\w*|abs_?err\w*"
)
_SMALL = r"(?<![\w.])\d+(?:\.\d*)?[eE]-\d+|(?<![\w.])0\.0{3,}[1-9]"
_SUMMATION = (
    tok(
        r"fsum|fmean|nansum|cumsum|cumprod|nancumsum|logsumexp|kahan\w*|neumaier\w*|pairwise\w*|compensat\w*|"
        r"two_?sum|accumulate|transform_reduce|inner_product|einsum|reduce\w*|reduction\w*|allreduce\w*"
    )
    + r"|(?<![\w])(?:sum|prod|dot|matmul|mean)\s*\(|\.(?:sum|prod|mean|dot)\s*\("
)
_ACCUMULATOR = tok(
    r"acc|accum\w*|acc_?dtype|acc_?type|acc_t|AccT|AccType|accumulat\w*|out_dtype|compute_dtype|promote\w*"
)
_ACCUMULATOR_DECL = (
    r"(?<![\w])(?:float|double|long\s+double|half|__half|__bf16|float16_t|float32_t|float64_t|auto|real|Real)"
    r"\s+(?:sum|total|acc\w{0,32}|partial\w{0,32}|running\w{0,32}|result|res|s)\s*[=;,\[{(]"
)
_PARALLEL_REDUCTION = tok(r"omp|atomicAdd|atomic_add|__shfl\w*|warp_?reduce\w*|block_?reduce\w*")
_MATH = (
    tok(
        r"exp|expm1|exp2|exp10|expf|expl|log|log1p|log2|log10|logf|logl|log1pf|expm1f|sqrt|sqrtf|cbrt|hypot\w*|"
        r"pow|powf|powl|sin|cos|tan|asin|acos|atan|atan2|sinh|cosh|tanh|asinh|acosh|atanh|erf|erfc|erfinv|"
        r"erfcx|gamma|lgamma|tgamma|loggamma|digamma|fma|fmaf|fmod|remainder|ldexp|frexp|modf|floor|ceil|trunc|"
        r"copysign|nextafter|fabs|sigmoid|softmax|log_softmax|gelu|silu|rsqrt\w*|recip\w*|reciprocal|"
        r"__expf|__logf|__fdividef|__frcp_\w+|__fsqrt_\w+"
    )
    + r"\s*\((?!\s*[\"'])"
)
_MATH_LIBRARY = tok(
    r"libm|cmath|math\.h|fenv\.h|cfenv|mkl\w*|openblas|blas|lapack\w*|cublas\w*|cudnn\w*|aclnn\w*|sleef|svml|"
    r"libmvec|crlibm|fdlibm|openlibm"
)
_LIBRARY_PIN = (
    r"(?<![\w-])(?:numpy|scipy|mpmath|gmpy2|torch|jax|jaxlib|tensorflow|sympy|numba|cupy|mkl|openblas|eigen|"
    r"boost)\s*(?:[=<>!~]=|[<>]|@)"
)
_FAST_MATH_FLAGS = flag(
    r"-ffast-math|-fno-fast-math|-Ofast|-ffp-contract=\w{1,8}|-ffp-model=\w{1,12}|-funsafe-math-optimizations|"
    r"-fassociative-math|-freciprocal-math|-fno-signed-zeros|-ffinite-math-only|-fno-math-errno|"
    r"-fno-trapping-math|-fcx-limited-range|-mfma|-mno-fma|-march=[\w.+-]{1,40}|/fp:\w{1,8}|-fp-model[= ]\w{1,8}|"
    r"--?use_fast_math|--?fmad[= ]\w{1,5}|-prec-div=\w{1,5}|-prec-sqrt=\w{1,5}|-ftz=\w{1,5}"
)
_FAST_MATH_WORDS = tok(r"__FAST_MATH__|FP_CONTRACT|fp_contract|fast_?math\w*|FENV_ACCESS|fenv_access|float_control")
_SELECT = tok(
    r"kernel_?(?:name|impl|select\w*|variant)|select_?kernel\w*|dispatch\w*|(?<!build-)backend|impl_?type|algo\w*"
)
_LAYOUT = tok(
    r"transpose\w*|permute|strides?|tile\w*|tiling|TILE_\w+|block_?size\w*|BLOCK_\w+|as_layout|layout\w*|"
    r"reshape|swizzle\w*|split_?k|start_offset|row_?major|col_?major"
)
_PASSES = tok(
    r"\w*Pass|\w*_pass|passes|pass_?manager|PassManager|add_?pass|opt_?level|OptLevel|-O[0-3s]|"
    r"optimi[sz]\w*|fuse\w*|fusion\w*|unroll\w*|vectori[sz]\w*|canonicali[sz]\w*|enable_\w+|disable_\w+"
)
_SYNC = tok(
    r"\w*barrier\w*|__syncthreads|sync\w*|synchroni[sz]e\w*|set_?flag|wait_?flag|SetFlag|WaitFlag|"
    r"\w*fence\w*|wait\w*|notify\w*|memory_order\w*|PIPE_\w+|mutex|lock_guard|volatile"
)

TYPE_GATE = ("bf", "half", "float", "fp", "tf32", "double", "complex", "f16", "f32", "f64", "int8", "int4", "dt_")
MATH_GATE = (
    *("exp", "log", "sqrt", "cbrt", "hypot", "pow", "sin", "cos", "tan", "erf", "gamma", "fma", "fmod", "remainder"),
    *("ldexp", "frexp", "modf", "floor", "ceil", "trunc", "copysign", "nextafter", "fabs", "sigmoid", "softmax"),
    *("gelu", "silu", "recip", "fdividef", "frcp"),
)
SYNC_GATE = (
    "barrier",
    "sync",
    "flag",
    "fence",
    "wait",
    "notify",
    "memory_order",
    "pipe_",
    "mutex",
    "lock_guard",
    "volatile",
)

_PRECISION_EFFECT = "sets how many digits or bits later operations keep, so every rounded result after it can change"
_ROUNDING_EFFECT = (
    "decides which neighbour an inexact result rounds to, so last digits and the sign of tiny values can change"
)
_SUM_EFFECT = (
    "floating-point addition is not associative: the order, method and accumulator of a sum change its last digits"
)

RULES: list[Rule] = [
    Rule(
        "dtype",
        TYPE_RE,
        5.0,
        "precision type",
        "a narrower or wider type keeps fewer or more bits of every value",
        "text",
        gate=gate(*TYPE_GATE),
    ),
    Rule(
        "dtype",
        _PROSE_TYPE_RE,
        5.0,
        "precision type named in a comment or document",
        "a comment or document naming a type usually describes a type change made nearby",
        "prose",
        gate=gate(*TYPE_GATE),
    ),
    Rule(
        "dtype",
        re.compile(_CAST),
        4.0,
        "numeric cast",
        "a cast rounds the value to the target type",
        gate=gate("cast", "float", "double", "half", "bfloat16", ".to(", ".astype(", "convert", "vconv"),
    ),
    Rule(
        "dtype",
        re.compile(_CONVERSION),
        3.5,
        "number conversion",
        "converting between number types rounds to the precision of the target",
        gate=gate("float", "complex", "mpf", "mpc", "mpmathify"),
    ),
    Rule(
        "dtype",
        re.compile(tok(r"float|double"), _I),
        2.0,
        "floating type",
        "the floating type bounds the precision of every value it holds",
        gate=gate("float", "double"),
    ),
    Rule(
        "precision",
        re.compile(_WORKING_PRECISION, _I),
        4.5,
        "working precision",
        _PRECISION_EFFECT,
        gate=gate("prec", "dps", "wp", "guard", "x64", "flt_eval"),
    ),
    Rule(
        "precision",
        re.compile(_FP_ENVIRONMENT),
        4.0,
        "floating-point environment",
        "changes how the hardware or library rounds, flushes tiny values or traps, so the same code computes "
        "other values",
        gate=gate(
            "seterr",
            "errstate",
            "fe",
            "_controlfp",
            "fpu",
            "denormal",
            "ftz",
            "daz",
            "_mm_set",
            "tf32",
            "reduced_precision",
        ),
    ),
    Rule(
        "precision",
        re.compile(_FP_FLAGS),
        4.0,
        "floating-point environment flag",
        "changes the precision intermediate values are kept in",
        "text",
        gate=gate("-mfpmath", "-ffloat-store", "-fexcess", "-fdenormal"),
    ),
    Rule(
        "rounding",
        re.compile(_ROUNDING_MODE, _I),
        4.5,
        "rounding mode",
        _ROUNDING_EFFECT,
        gate=gate("rnd", "round", "fe_", "rint", "nearbyint", "__", "cast_"),
    ),
    Rule(
        "rounding",
        re.compile(_ROUND_VALUES),
        4.0,
        "rounding of values",
        "rounds values to fewer digits; halfway cases follow the rounding rule",
        gate=gate("round", "quantize"),
    ),
    Rule(
        "decimal",
        re.compile(_DECIMAL),
        4.0,
        "decimal, fixed-point or multiprecision number",
        "such numbers round at their own digit count; passing them through binary float, or no longer doing so, "
        "changes their digits",
        gate=gate(
            "decimal",
            "to_integral",
            "fraction",
            "mathcontext",
            "fix",
            "fxp",
            "frac",
            "q7",
            "q15",
            "q31",
            "q63",
            "_accum",
            "_sat",
            "cpp_",
            "mp",
            "gmpy",
            "man_exp",
        ),
    ),
    Rule(
        "formatting",
        re.compile(_PRINTF),
        4.0,
        "printf format",
        "sets the digits a number is printed with, so the output and any comparison of it change",
        "text",
        gate=gate("%"),
    ),
    Rule(
        "formatting",
        re.compile(_FORMAT_SPEC),
        4.0,
        "format specification",
        "sets the digits a number is printed with, so the output and any comparison of it change",
        "text",
        gate=gate("{", '"', "'"),
    ),
    Rule(
        "formatting",
        re.compile(_FORMAT_API),
        3.5,
        "number formatting or parsing",
        "printing or parsing a number converts between decimal and binary, which rounds",
        gate=gate(
            "fmt",
            "format",
            "precision",
            "floatmode",
            "printoptions",
            "array2string",
            "repr",
            "setiosflags",
            "hexfloat",
            "defaultfloat",
            "to_chars",
            "from_chars",
            "strto",
            "atof",
            "stof",
            "stod",
            "stold",
            "dtoa",
            "lc_numeric",
            "localeconv",
            "fromhex",
            "std::",
        ),
    ),
    Rule(
        "tolerance",
        re.compile(_TOLERANCE, _I),
        4.0,
        "tolerance",
        "decides which differences count as equal, so a check can pass or fail on the same numbers",
        gate=gate(
            "tol",
            "eps",
            "close",
            "threshold",
            "ulp",
            "approx",
            "almost",
            "places",
            "finfo",
            "numeric_limits",
            "_min",
            "err",
        ),
    ),
    Rule(
        "tolerance",
        re.compile(_SMALL),
        3.0,
        "small constant",
        "a threshold at the scale of rounding error: it moves which values count as zero or as equal",
        "text",
        gate=gate("e-", "0.000"),
    ),
    Rule(
        "accumulation",
        re.compile(_ACCUMULATOR_DECL),
        4.5,
        "accumulator type",
        "the accumulator's type bounds the error of every partial sum",
        gate=gate("float", "double", "half", "bf16", "auto", "real"),
    ),
    Rule(
        "accumulation",
        re.compile(_SUMMATION, _I),
        4.0,
        "summation or reduction",
        _SUM_EFFECT,
        gate=gate(
            "sum",
            "mean",
            "prod",
            "kahan",
            "neumaier",
            "pairwise",
            "compensat",
            "accumulate",
            "reduce",
            "reduction",
            "einsum",
            "dot",
            "matmul",
        ),
    ),
    Rule(
        "accumulation",
        re.compile(_ACCUMULATOR, _I),
        4.0,
        "accumulation type",
        "the accumulator's type bounds the error of every partial sum",
        gate=gate("acc", "out_dtype", "compute_dtype", "promote"),
    ),
    Rule(
        "accumulation",
        re.compile(_PARALLEL_REDUCTION),
        3.5,
        "parallel reduction",
        "threads combine partial results in an order that changes with the schedule",
        gate=gate("omp", "atomic", "shfl", "reduce"),
    ),
    Rule(
        "math_kernel",
        re.compile(_FAST_MATH_FLAGS),
        4.5,
        "fast-math or contraction flag",
        "lets the compiler reorder, contract into FMA and drop NaN, infinity and signed-zero rules, so results "
        "change from build to build",
        "text",
        gate=gate("-f", "-o", "-m", "/fp", "-prec", "use_fast_math", "fmad"),
    ),
    Rule(
        "math_kernel",
        re.compile(_FAST_MATH_WORDS, _I),
        4.5,
        "fast-math or contraction setting",
        "lets the compiler reorder and contract operations, which rounds differently",
        gate=gate("fast_math", "fastmath", "fp_contract", "fenv_access", "float_control"),
    ),
    Rule(
        "math_kernel",
        re.compile(_MATH, _I),
        3.0,
        "math function",
        "math functions differ in accuracy (log(1+x) against log1p(x) near zero) and between libraries",
        gate=gate(*MATH_GATE),
    ),
    Rule(
        "math_kernel",
        re.compile(_MATH_LIBRARY, _I),
        3.0,
        "math library",
        "another library computes the same function with other rounding",
        gate=gate(
            "libm",
            "cmath",
            "math.h",
            "fenv.h",
            "cfenv",
            "mkl",
            "blas",
            "lapack",
            "cudnn",
            "aclnn",
            "sleef",
            "svml",
            "libmvec",
            "fdlibm",
        ),
    ),
    Rule(
        "math_kernel",
        re.compile(_LIBRARY_PIN, _I),
        3.0,
        "numeric library version",
        "another version of a numeric library can compute or print the same values differently",
        "text",
        gate=gate(
            "numpy",
            "scipy",
            "mpmath",
            "gmpy2",
            "torch",
            "jax",
            "tensorflow",
            "sympy",
            "numba",
            "cupy",
            "mkl",
            "openblas",
            "eigen",
            "boost",
        ),
    ),
    Rule(
        "math_kernel",
        re.compile(_SELECT),
        2.5,
        "kernel or math-mode selection",
        "another kernel computes the same result in another order or precision",
        gate=gate("kernel", "dispatch", "backend", "impl", "algo"),
    ),
    Rule(
        "layout",
        re.compile(_LAYOUT, _I),
        3.0,
        "layout or tiling",
        "changes the order elements are combined in",
        gate=gate(
            "transpose",
            "permute",
            "stride",
            "tile",
            "tiling",
            "block",
            "layout",
            "reshape",
            "swizzle",
            "split",
            "start_offset",
            "major",
        ),
    ),
    Rule(
        "passes",
        re.compile(_PASSES),
        3.0,
        "optimisation pass or switch",
        "changes the code the compiler generates, and with it the order of operations",
        gate=gate("pass", "opt", "-o", "fuse", "fusion", "unroll", "vectori", "canonicali", "enable_", "disable_"),
    ),
    Rule(
        "sync_removed",
        re.compile(_SYNC, _I),
        5.0,
        "removed synchronisation",
        "without it a read can see a partial result",
        removed_only=True,
        gate=gate(*SYNC_GATE),
    ),
]

# every rule's pattern in a module-level tuple, so tests/test_hostile_patterns.py times each one
PATTERNS = tuple(r.pattern for r in RULES) + tuple(r.gate for r in RULES if r.gate is not None)
SYNC_RE = next(r.pattern for r in RULES if r.category == "sync_removed")
SYNC_GATE_RE = gate(*SYNC_GATE)
TYPE_GATE_RE = gate(*TYPE_GATE)
PASS_RE = next(r.pattern for r in RULES if r.category == "passes")
