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
    r"mpz|mpq|mpf|mpc|gmpy2?|mpmath|libmp\w*|from_man_exp|to_man_exp|mpf_\w+|mpfr_\w+|mpz_\w+"
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
_SELECT = tok(r"kernel_?(?:name|impl|select\w*|variant)|select_?kernel\w*|dispatch\w*|backend|impl_?type|algo\w*")
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
    ),
    Rule(
        "dtype",
        _PROSE_TYPE_RE,
        5.0,
        "precision type named in a comment or document",
        "a comment or document naming a type usually describes a type change made nearby",
        "prose",
    ),
    Rule("dtype", re.compile(_CAST), 4.0, "numeric cast", "a cast rounds the value to the target type"),
    Rule(
        "dtype",
        re.compile(_CONVERSION),
        3.5,
        "number conversion",
        "converting between number types rounds to the precision of the target",
    ),
    Rule(
        "dtype",
        re.compile(tok(r"float|double"), _I),
        2.0,
        "floating type",
        "the floating type bounds the precision of every value it holds",
    ),
    Rule("precision", re.compile(_WORKING_PRECISION, _I), 4.5, "working precision", _PRECISION_EFFECT),
    Rule(
        "precision",
        re.compile(_FP_ENVIRONMENT),
        4.0,
        "floating-point environment",
        "changes how the hardware or library rounds, flushes tiny values or traps, so the same code computes "
        "other values",
    ),
    Rule(
        "precision",
        re.compile(_FP_FLAGS),
        4.0,
        "floating-point environment flag",
        "changes the precision intermediate values are kept in",
        "text",
    ),
    Rule("rounding", re.compile(_ROUNDING_MODE, _I), 4.5, "rounding mode", _ROUNDING_EFFECT),
    Rule(
        "rounding",
        re.compile(_ROUND_VALUES),
        4.0,
        "rounding of values",
        "rounds values to fewer digits; halfway cases follow the rounding rule",
    ),
    Rule(
        "decimal",
        re.compile(_DECIMAL),
        4.0,
        "decimal, fixed-point or multiprecision number",
        "such numbers round at their own digit count; passing them through binary float, or no longer doing so, "
        "changes their digits",
    ),
    Rule(
        "formatting",
        re.compile(_PRINTF),
        4.0,
        "printf format",
        "sets the digits a number is printed with, so the output and any comparison of it change",
        "text",
    ),
    Rule(
        "formatting",
        re.compile(_FORMAT_SPEC),
        4.0,
        "format specification",
        "sets the digits a number is printed with, so the output and any comparison of it change",
        "text",
    ),
    Rule(
        "formatting",
        re.compile(_FORMAT_API),
        3.5,
        "number formatting or parsing",
        "printing or parsing a number converts between decimal and binary, which rounds",
    ),
    Rule(
        "tolerance",
        re.compile(_TOLERANCE, _I),
        4.0,
        "tolerance",
        "decides which differences count as equal, so a check can pass or fail on the same numbers",
    ),
    Rule(
        "tolerance",
        re.compile(_SMALL),
        3.0,
        "small constant",
        "a threshold at the scale of rounding error: it moves which values count as zero or as equal",
        "text",
    ),
    Rule(
        "accumulation",
        re.compile(_ACCUMULATOR_DECL),
        4.5,
        "accumulator type",
        "the accumulator's type bounds the error of every partial sum",
    ),
    Rule("accumulation", re.compile(_SUMMATION, _I), 4.0, "summation or reduction", _SUM_EFFECT),
    Rule(
        "accumulation",
        re.compile(_ACCUMULATOR, _I),
        4.0,
        "accumulation type",
        "the accumulator's type bounds the error of every partial sum",
    ),
    Rule(
        "accumulation",
        re.compile(_PARALLEL_REDUCTION),
        3.5,
        "parallel reduction",
        "threads combine partial results in an order that changes with the schedule",
    ),
    Rule(
        "math_kernel",
        re.compile(_FAST_MATH_FLAGS),
        4.5,
        "fast-math or contraction flag",
        "lets the compiler reorder, contract into FMA and drop NaN, infinity and signed-zero rules, so results "
        "change from build to build",
        "text",
    ),
    Rule(
        "math_kernel",
        re.compile(_FAST_MATH_WORDS, _I),
        4.5,
        "fast-math or contraction setting",
        "lets the compiler reorder and contract operations, which rounds differently",
    ),
    Rule(
        "math_kernel",
        re.compile(_MATH, _I),
        3.0,
        "math function",
        "math functions differ in accuracy (log(1+x) against log1p(x) near zero) and between libraries",
    ),
    Rule(
        "math_kernel",
        re.compile(_MATH_LIBRARY, _I),
        3.0,
        "math library",
        "another library computes the same function with other rounding",
    ),
    Rule(
        "math_kernel",
        re.compile(_LIBRARY_PIN, _I),
        3.0,
        "numeric library version",
        "another version of a numeric library can compute or print the same values differently",
        "text",
    ),
    Rule(
        "math_kernel",
        re.compile(_SELECT),
        2.5,
        "kernel or math-mode selection",
        "another kernel computes the same result in another order or precision",
    ),
    Rule(
        "layout",
        re.compile(_LAYOUT, _I),
        3.0,
        "layout or tiling",
        "changes the order elements are combined in",
    ),
    Rule(
        "passes",
        re.compile(_PASSES),
        3.0,
        "optimisation pass or switch",
        "changes the code the compiler generates, and with it the order of operations",
    ),
    Rule(
        "sync_removed",
        re.compile(_SYNC, _I),
        5.0,
        "removed synchronisation",
        "without it a read can see a partial result",
        removed_only=True,
    ),
]

# every rule's pattern in a module-level tuple, so tests/test_hostile_patterns.py times each one
PATTERNS = tuple(r.pattern for r in RULES)
SYNC_RE = next(r.pattern for r in RULES if r.category == "sync_removed")
PASS_RE = next(r.pattern for r in RULES if r.category == "passes")
