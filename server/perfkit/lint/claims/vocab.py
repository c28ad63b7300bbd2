"""The words a claim is made of: metric families, statistics, arms, comparison forms, multipliers.

Every pattern here is a literal a writer can see, compiled once and searched in one pass over a
sentence. Metric names come from the campaign (perfkit.lint.claims.data); this module holds the
words every campaign shares: the long forms of serving metrics (TTFT is "time to first token"),
the statistics (mean, median, p99, "99th percentile"), the words a description uses for the
baseline and for this PR, and the multipliers written as words ("twice", "seven times",
"halves").
"""

from __future__ import annotations

import re

# Long forms and other names of metric families, keyed by the family as perfkit names it. A family
# absent from the data still counts as named, so "mean TPOT rose 3.3%" is read as a claim about TPOT.
FAMILY_ALIASES: dict[str, tuple[str, ...]] = {
    "ttft": ("time to first token", "time-to-first-token", "first-token latency", "first token latency"),
    "tpot": ("time per output token", "time-per-output-token"),
    "itl": ("inter-token latency", "inter token latency", "intertoken latency"),
    "end-to-end latency": ("e2el", "e2e latency", "end to end latency", "request latency"),
    "output throughput": ("output token throughput", "output tokens/s", "output tok/s", "generation throughput"),
    "request throughput": ("requests/s", "requests per second", "req/s", "request rate achieved"),
    "total throughput": ("total token throughput", "total tokens/s"),
    "peak memory": ("peak mem", "memory peak", "peak GPU memory", "GPU memory", "memory"),
    "first step": ("one-time cost", "first-step time", "the first step"),
    "slow steps": ("slow step", "slower steps"),
}
# Words that name several families at once: a claim through them binds to any family they cover.
GENERIC = {
    "throughput": ("throughput",),
    "tokens/s": ("output throughput", "total throughput"),
    "tok/s": ("output throughput", "total throughput"),
    "tokens per second": ("output throughput", "total throughput"),
    "latency": ("ttft", "tpot", "itl", "end-to-end latency", "latency"),
    "latencies": ("ttft", "tpot", "itl", "end-to-end latency", "latency"),
}
KNOWN_FAMILIES = tuple(FAMILY_ALIASES)

# A statistic next to a family: "p99 TTFT", "TTFT p99", "mean ITL", "the 99th percentile TTFT".
STAT_RE = re.compile(
    r"(?<![\w.-])(?:(?P<mean>mean|average|avg)|(?P<median>median|p50|50th[ -]percentile)"
    r"|p(?P<p>\d{1,2}(?:\.\d)?)|(?P<pc>\d{1,2}(?:\.\d)?)(?:st|nd|rd|th)[ -]percentile|(?P<tail>tail))(?![\w-])",
    re.I,
)
# "mean over runs", "the mean of the per-run values": how runs are pooled, not which statistic.
OVER_RUNS_RE = re.compile(
    r"\b(?:mean|average|averaged?)\s+(?:over|of|across)\s+(?:the\s+)?(?:\d+\s+|five\s+|all\s+)?"
    r"(?:per-run|runs?\b|run-level)",
    re.I,
)


# Which figure of a percentile: pooled over every request, or the mean of the runs' own percentiles.
POOLED_RE = re.compile(
    r"\bpooled\b|\b(?:over|across) (?:all|every) (?:the )?(?:\d[\d,]* )?requests\b|\bof all requests\b", re.I
)
RUNS_BASIS_RE = re.compile(
    r"\b(?:mean|average)\s+(?:of|over|across)\s+(?:the\s+)?(?:\d+\s+|five\s+)?(?:per-run|runs'?|run-level)\b"
    r"|\baveraged over (?:the )?(?:\d+ )?runs\b",
    re.I,
)


def stat_of(m: re.Match[str]) -> str:
    """The statistic a STAT_RE match names: 'mean', 'p50' or 'pNN'."""
    if m.group("mean"):
        return "mean"
    if m.group("median"):
        return "p50"
    if m.group("tail"):
        return "tail"
    return "p" + (m.group("p") or m.group("pc") or "")


# The words for each side. Longer phrases first: "before this PR" is the baseline.
_BASELINE = (
    r"before (?:this|the) (?:PR|change|pull request)|without (?:this|the) (?:PR|change|pull request)|"
    r"baseline(?:'s)?|upstream|(?:the )?main branch|before|previously|the old (?:code|version)"
)
_PR = (
    r"after (?:this|the) (?:PR|change|pull request)|with (?:this|the) (?:PR|change|pull request)|"
    r"this PR(?:'s)?|the PR(?:'s)?|this pull request(?:'s)?|after|now|the new (?:code|version)|with it"
)
ARM_RE = re.compile(r"(?<![\w-])(?:(?P<baseline>" + _BASELINE + r")|(?P<pr>" + _PR + r"))(?![\w-])", re.I)

# The same change measured twice: the commit's screening, or the confirmation runs of the PR.
MEASUREMENT_RE = re.compile(
    r"\b(?:(?P<screening>screening|screened|screen run|measured (?:alone|on its own|by itself|separately)|"
    r"per-commit)|(?P<confirmation>confirmation|confirming|confirmed in))\b",
    re.I,
)

# up, down, good and bad words of change, in that order of groups (one literal, so the audit times it)
CHANGE_WORD_RE = re.compile(
    r"(?<![\w-])(?:"
    r"(?P<up>rose|rises|risen|rising|increase[sd]?|increasing|grew|grows|grown|higher|gains?|gained|went up|"
    r"raises|raised|climb(?:s|ed)?|(?:is|are|was|were|goes|go|comes?|came) up)"
    r"|(?P<down>fell|falls|fallen|falling|drop(?:s|ped)?|decrease[sd]?|decreasing|declined?|declines|"
    r"lower(?:s|ed)?|shrank|shrinks|loss(?:es)?|lost|went down|cuts?|reduce[sd]?|reduces|reducing|reductions?|"
    r"(?:is|are|was|were|goes|go|comes?|came) down)"
    r"|(?P<good>faster|quicker|speed-?ups?|improve[sd]?|improving|improvements?|better)"
    r"|(?P<bad>slower|slowdowns?|regress(?:ed|es|ions?)?|worse|worsen(?:s|ed|ing)?|degrade[sd]?|degradations?)"
    r")(?![\w-])",
    re.I,
)
# Words of no change, and claims of (no) statistical significance.
UNCHANGED_RE = re.compile(
    r"(?<![\w-])(?:unchanged|flat|did not change|does not change|didn't change|doesn't change|no change|"
    r"stay(?:s|ed)? (?:the same|put|level|flat)|remain(?:s|ed)? (?:the same|level|flat|unchanged)|"
    r"(?:is|was|are|were) the same|(?:held|holds|stays|stayed|remains|remained) steady|within (?:the )?noise|on par|"
    r"unaffected|not affected|no (?:measurable |visible |significant )?(?:change|difference|effect))(?![\w-])",
    re.I,
)
SIGNIFICANT_RE = re.compile(
    r"(?<![\w-])(?P<neg>not |no |in)?(?:statistically )?significant(?:ly)?(?![\w-])",
    re.I,
)

# Multipliers and number words: figures too ("2x" is a factor of 2.0, "twice" as well).
_NUMBER_WORDS = {
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_COMPARATIVE = r"(?:faster|slower|quicker|higher|lower|more|less|larger|smaller|bigger|better|worse|as\b|the\b)"
MULTIPLIER_RE = re.compile(
    r"(?<![\w.-])(?:"
    r"(?P<n>two|three|four|five|six|seven|eight|nine|ten|\d+(?:\.\d+)?)(?:[ -]?fold|\s+times(?=\s+"
    + _COMPARATIVE
    + r"))"
    r"|(?P<twice>twice|thrice)(?=\s+" + _COMPARATIVE + r")"
    r"|(?:by )?a factor of (?P<f>two|three|four|five|six|seven|eight|nine|ten|\d+(?:\.\d+)?)"
    r"|(?P<order>an order of magnitude)"
    r"|(?P<up2>doubl(?:es|ed|ing|e))|(?P<up3>tripl(?:es|ed|ing|e))|(?P<up4>quadrupl(?:es|ed|ing|e))"
    r"|(?P<down2>halv(?:es|ed|ing|e)|in half|by half)"
    r")(?![\w-])",
    re.I,
)


def multiplier(m: re.Match[str]) -> tuple[float, str]:
    """(the factor a MULTIPLIER_RE match states, 'up', 'down' or '' for the direction it says)."""
    if m.group("n"):
        n = m.group("n").lower()
        return float(_NUMBER_WORDS.get(n, 0) or float(n)), ""
    if m.group("order"):
        return 10.0, ""
    if m.group("f"):
        n = m.group("f").lower()
        return float(_NUMBER_WORDS.get(n, 0) or float(n)), ""
    if m.group("twice"):
        return (2.0 if m.group("twice").lower() == "twice" else 3.0), ""
    for group, value, way in (("up2", 2.0, "up"), ("up3", 3.0, "up"), ("up4", 4.0, "up"), ("down2", 2.0, "down")):
        if m.group(group):
            return value, way
    return 0.0, ""


# A unitless figure followed by a noun counts things ("1,000 prompts", "200 requests"): not a level.
COUNT_NOUN_RE = re.compile(
    r"^\s*(?:of\s+\d[\d,]*\s+)?(?:prompts?|requests?|runs?|steps?|(?:input |output )?tokens?|tensors?|"
    r"batches|batch|values?|samples?|commits?|checks?|GPUs?|ranks?|nodes?|iterations?|utterances?|sequences?|"
    r"layers?|kernels?|times|per|each|in flight|concurrent)(?![\w/])",
    re.I,
)

# Clause boundaries inside a sentence (a figure's metric and arm are read within its clause).
CLAUSE_RE = re.compile(r";\s++|,\s++(?!\d)|(?<!\s)\s++(?:and|but|while|whereas)\s++|:\s++")
# Between the two figures of "A to B" ("1,583 ms to 707 ms", "2,387 to 2,789"): A is the baseline's.
TO_BETWEEN_RE = re.compile(r"^\s*+(?:[A-Za-zµ/%]++\s++){0,3}(?:to|->|→)\s*+$", re.I)
