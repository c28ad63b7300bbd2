"""The wording rules, one function each.

Each rule reads the masked document (perfkit.lint.markdown) and returns findings with the exact
line, column, the text as written and a one-line fix. Rules are deliberately literal: a rule
that guesses produces findings nobody trusts, so every pattern here is one a writer can see.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from perfkit.lint import direction, live_text, metric_title, title_length
from perfkit.lint import numbers as nums
from perfkit.lint.claims import rules as claim_rules
from perfkit.lint.markdown import Doc, norm_heading, paragraphs, sentences
from perfkit.lint.models import Finding

OWN_HEADINGS = ("summary", "speedup result", "correctness verification")
RESULT_HEADER = ["", "baseline", "this pr", "change"]
CHECK_HEADER = ["recorded", "baseline vs this pr", "tolerance"]


@dataclass
class Context:
    kind: str  # 'pr' or 'issue'
    figures: object | None = None  # perfkit.lint.figures.FigureSet, for truthfulness
    allowed_headings: set[str] | None = None  # normalised headings the repo's templates ask for
    issue_title_prefixes: list[str] = field(default_factory=list)
    job: str | None = None  # the draft's job: its own words ('logging hook') are not campaign vocabulary


def _find(rule: str, doc: Doc, line: int, start: int, end: int, fix: str) -> Finding:
    excerpt = doc.lines[line][start:end].strip() or doc.lines[line].strip()[:80]
    return Finding(rule=rule, line=line + 1, column=start + 1, excerpt=excerpt[:120], fix=fix)


def _scan(rule: str, doc: Doc, table: list[tuple[re.Pattern[str], str]], mask: str = "prose") -> list[Finding]:
    """Every match of every pattern, searched over the whole masked text at once (one pass per pattern)."""
    text, starts = doc.joined(mask)
    out = []
    for rx, fix in table:
        for m in rx.finditer(text):
            i = bisect.bisect_right(starts, m.start()) - 1
            out.append(_find(rule, doc, i, m.start() - starts[i], m.end() - starts[i], fix))
    return out


def _w(words: str, flags: int = re.I) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(?:" + words + r")(?![\w-])", flags)


# --- dashes ------------------------------------------------------------------------------------

_DASH_CHARS = [
    (re.compile(r"[\u2014\u2015]"), "replace the em dash with a comma, a colon, parentheses or a full stop"),
    (re.compile(r"\u2013"), "replace the en dash: 'to' for ranges, a comma or a full stop in a sentence"),
]
_HYPHEN_DASH = re.compile(r"(?<=\w )-{1,2}(?= \w)|(?<=[a-z])--(?=[a-z])")


def rule_dash(doc: Doc, ctx: Context) -> list[Finding]:
    out = []
    for i, text in enumerate(doc.code):  # dash characters count in code spans too: they break commands
        for rx, fix in _DASH_CHARS:
            out += [_find("dash", doc, i, m.start(), m.end(), fix) for m in rx.finditer(text)]
        if not doc.table[i]:
            out += [
                _find(
                    "dash", doc, i, m.start(), m.end(), "a hyphen used as a dash: use a comma, a colon or two sentences"
                )
                for m in _HYPHEN_DASH.finditer(doc.prose[i])
            ]
    return out


# --- sales and filler words --------------------------------------------------------------------

_SALES = [
    (
        _w(
            r"blazing(?:ly)?(?:[- ]fast)?|lightning[- ]fast|dramatic(?:ally)?|drastic(?:ally)?|massive(?:ly)?|"
            r"huge(?:ly)?|"
            r"tremendous(?:ly)?|incredibl[ey]|amazing(?:ly)?|awesome|stunning|remarkabl[ey]|impressive(?:ly)?|"
            r"spectacular|phenomenal|extraordinar(?:y|ily)|insane(?:ly)?|enormous(?:ly)?|"
            r"game[- ]?chang\w*|revolutionar\w*|revolutioni[sz]\w*|groundbreaking|cutting[- ]edge|"
            r"state[- ]of[- ]the[- ]art|"
            r"best[- ]in[- ]class|world[- ]class|next[- ]level|supercharg\w*|turbocharg\w*|unlock\w*|unleash\w*|"
            r"seamless(?:ly)?|effortless(?:ly)?|robust(?:ly)?|powerful|elegant(?:ly)?|superior|"
            r"greatly|vastly|substantial(?:ly)?|hugely|much faster|way faster|far faster"
        ),
        "sales word: say the number and the hardware instead",
    ),
    (
        re.compile(r"(?<!statistically )(?<!not )(?<!statistically\n)\bsignificant(?:ly)?\b", re.I),
        "'significant' claims a statistical test: give the number, or say 'statistically significant' only "
        "with the test's result",
    ),
]

_FILLER = [
    (
        _w(
            r"basically|essentially|actually|really|very|quite|simply|obviously|clearly|of course|needless to say|"
            r"interestingly|importantly|notably|arguably|honestly|literally|definitely|certainly|truly|indeed|"
            r"kind of|sort of|a bit|somewhat|fairly|pretty much"
        ),
        "filler: cut the word",
    ),
    (_w(r"in order to"), "write 'to'"),
    (_w(r"due to the fact that|owing to the fact that"), "write 'because'"),
    (
        _w(
            r"it is worth noting(?: that)?|it'?s worth noting(?: that)?|it should be noted(?: that)?|note that|"
            r"as a matter of fact|at the end of the day|in terms of|as you can see|as mentioned(?: above| earlier)?|"
            r"furthermore|moreover|additionally|in addition|in conclusion|in summary|to summari[sz]e|to sum up|overall,"
        ),
        "filler phrase: cut it and start with the point",
    ),
    (
        _w(
            r"delve[sd]?|delving|tapestry|testament|underscore[sd]?|showcas\w*|realm|landscape|leverag\w*|"
            r"harness\w*|meticulous(?:ly)?|intricate|pivotal|crucial|paramount|comprehensive|holistic|streamlin\w*|"
            r"elevat\w*|embark\w*|navigat\w*|foster\w*|empower\w*|synerg\w*|boasts?"
        ),
        "a word that reads as generated text: use a plain word or cut it",
    ),
    (
        _w(
            r"I hope this helps|let me know|feel free to|happy to (?:help|discuss|adjust)|thanks in advance|"
            r"hope (?:this|that) helps"
        ),
        "a chat phrase: cut it; the PR speaks for itself",
    ),
]


def rule_sales_word(doc: Doc, ctx: Context) -> list[Finding]:
    return _scan("sales-word", doc, _SALES)


def rule_filler(doc: Doc, ctx: Context) -> list[Finding]:
    return _scan("filler", doc, _FILLER)


# --- review words aimed at the repo ------------------------------------------------------------

_REVIEW = [
    (
        _w(r"wrong(?:ly)?|incorrect(?:ly)?|ignor(?:es|ed|ing)|ignore"),
        "a verdict on the repo: describe what the code does and what it costs, in neutral words",
    ),
    (
        _w(r"should(?:n'?t)?|must(?:n'?t)?|ought to|needs? to be fixed"),
        "prescriptive: offer the change ('this PR ...', 'one option is ...') instead of telling the repo what to do",
    ),
    (
        _w(
            r"broken|sloppy|naive(?:ly)?|careless(?:ly)?|forg[eo]t(?:s|ten)?|neglect(?:s|ed)?|fails to|failed to|"
            r"bad(?:ly)?|poor(?:ly)?|silly|stupid|terrible|inefficient(?:ly)?|wasteful(?:ly)?|unnecessar(?:y|ily)|"
            r"needless(?:ly)?|pointless(?:ly)?"
        ),
        "a judgement of the repo's code: state the measured cost instead",
    ),
]


def rule_review_word(doc: Doc, ctx: Context) -> list[Finding]:
    return _scan("review-word", doc, _REVIEW)


# --- campaign vocabulary and test names --------------------------------------------------------

_CAMPAIGN = [
    (
        re.compile(r"(?<![\w-])(?:arms?|Arms?)(?![\w-])"),
        "campaign word: say 'the baseline' or 'this PR', or name the change",
    ),
    (_w(r"candidates?|campaigns?"), "campaign word: name the commit or the change"),
    (
        _w(r"exp[-_ ]?\d+\w*|exp[-_][a-z]\w*|experiment (?:id|name)s?"),
        "an experiment name: describe the setting instead",
    ),
    (
        _w(r"parity|hooks?|gates?|gating|gated|checkpoints?"),
        "the recording tool's vocabulary: say what was recorded and compared (the loss at each step, the final "
        "weights)",
    ),
    (_w(r"sweep(?:s|ed)?|ablations?"), "campaign word: say which settings were measured"),
]

_TEST_NAME = re.compile(
    r"(?<![\w/.-])[\w./-]*\w\.py::[\w:\[\]-]+|(?<![\w/.])(?:\w+::)?test_[A-Za-z0-9_]+"
    r"(?:\[[^\]]*\])?(?!\.py|[\w/])"
)


def _job_spans(doc: Doc, job: str | None) -> list[tuple[int, int]]:
    """Where the job's name is written, as (line, column) ranges over the prose."""
    if not job or not job.strip():
        return []
    rx = re.compile(r"(?<![\w-])" + r"\s+".join(map(re.escape, job.split())) + r"(?![\w-])", re.I)
    text, _ = doc.joined("prose")
    return [(m.start(), m.end()) for m in rx.finditer(text)]


def rule_campaign_word(doc: Doc, ctx: Context) -> list[Finding]:
    found = _scan("campaign-word", doc, _CAMPAIGN)
    spans = _job_spans(doc, ctx.job)
    if not spans:
        return found
    _, starts = doc.joined("prose")

    def in_job(f: Finding) -> bool:
        pos = starts[f.line - 1] + f.column - 1
        return any(a <= pos < b for a, b in spans)

    return [f for f in found if not in_job(f)]


def rule_test_name(doc: Doc, ctx: Context) -> list[Finding]:
    return _scan(
        "test-name",
        doc,
        [(_TEST_NAME, "a test function name: name the test file and say what it checks in a few words")],
        mask="code",
    )


# --- bold --------------------------------------------------------------------------------------

_BOLD_RE = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1|<(?:b|strong)>(.+?)</(?:b|strong)>", re.I)
_ITEM_START_RE = re.compile(r"^\s*\d+[.)]\s+$")
_SPEEDUP_IN_BOLD_RE = re.compile(
    r"(?<!\d)\d++(?:\.\d++)?\s?[x×](?![A-Za-z0-9])|(?<!\d)\d++(?:\.\d++)?\s?%\s++(?:faster|less|lower|shorter)", re.I
)


def rule_bold(doc: Doc, ctx: Context) -> list[Finding]:
    out = []
    for i, text in enumerate(doc.prose):
        for m in _BOLD_RE.finditer(text):
            inner = m.group(2) or m.group(3) or ""
            if _ITEM_START_RE.match(text[: m.start()]) and m.group(1):
                continue  # a numbered change's name
            if _SPEEDUP_IN_BOLD_RE.search(inner):
                continue  # the headline speedup
            out.append(
                _find(
                    "bold",
                    doc,
                    i,
                    m.start(),
                    m.end(),
                    "bold only the numbered change names and the headline speedup; remove the markup",
                )
            )
    return out


# --- speedups without hardware -----------------------------------------------------------------

_FASTER_RE = re.compile(r"\b(?:speed-?ups?|faster|quicker|slower)\b", re.I)


_SPEEDUP_FIX = "name the hardware measured in the same sentence or table ('on 8 B200')"


def _is_speedup(f: nums.Figure, line: str) -> bool:
    """A factor or a 'faster' percentage, read from the few characters after it."""
    after = line[f.end : f.end + 40]
    if f.setup_count:
        return False
    if f.unit == "x":
        return not nums.HARDWARE_RE.match(after.lstrip())
    return f.unit == "%" and bool(re.match(r"\s*(?:faster|quicker|less time|shorter|lower step|speed)", after, re.I))


def _table_unit(doc: Doc, u: list[int], caption: list[int]) -> list[Finding]:
    """A table names its hardware in a cell, the paragraph before it, or its section heading."""
    if any(nums.HARDWARE_RE.search(doc.prose[i]) for i in u + caption):
        return []
    heading_line = next((j for j in range(u[0], -1, -1) if doc.heading[j]), None)
    if heading_line is not None and nums.HARDWARE_RE.search(doc.prose[heading_line]):
        return []
    return [
        _find("speedup-hardware", doc, i, f.start, f.end, _SPEEDUP_FIX)
        for i in u
        for f in doc.figures(i)
        if f.unit in ("x", "%") and not f.setup_count
    ]


def _sentence_figures(doc: Doc, sent: list[tuple[int, int, int]]) -> list[tuple[int, nums.Figure]]:
    """The speedups of one sentence; failing that, any result figure when the sentence says 'faster'."""
    spans = [(i, f) for i, s, e in sent for f in doc.figures_between(i, s, e)]
    found = [(i, f) for i, f in spans if _is_speedup(f, doc.prose[i])]
    if found:
        return found
    text = " ".join(doc.prose[i][s:e] for i, s, e in sent)
    if not _FASTER_RE.search(text):
        return []
    return [(i, f) for i, f in spans if not f.setup_count and not nums.is_small_count(f)]


def _prose_unit(doc: Doc, u: list[int]) -> list[Finding]:
    out = []
    for sent in sentences(doc, u):
        text = " ".join(doc.prose[i][s:e] for i, s, e in sent)
        if nums.HARDWARE_RE.search(text):
            continue
        for i, f in _sentence_figures(doc, sent)[:1]:
            out.append(_find("speedup-hardware", doc, i, f.start, f.end, _SPEEDUP_FIX))
    return out


def rule_speedup_hardware(doc: Doc, ctx: Context) -> list[Finding]:
    out: list[Finding] = []
    last_prose: list[int] = []
    last_section = -1
    for u in paragraphs(doc):
        if doc.section[u[0]] != last_section:
            last_prose, last_section = [], doc.section[u[0]]
        if doc.table[u[0]]:
            out += _table_unit(doc, u, last_prose)
            continue
        if not doc.heading[u[0]]:
            last_prose = u
        out += _prose_unit(doc, u)
    return out


# --- scope claims ------------------------------------------------------------------------------

_SCOPE = [
    (
        re.compile(
            r"\b(?:on|for|across) (?:all |any |other |most |modern |every )?(?:NVIDIA |AMD )?GPUs\b"
            r"|\b(?:all|any|every) (?:GPUs?|accelerators?|hardware|devices|platforms)\b"
            r"|\bhardware[- ]agnostic\b|\buniversal(?:ly)?\b"
        ),
        "a scope wider than measured: name the hardware you measured",
    ),
    (
        re.compile(r"\bsm_\d\w*+ (?:and|or|/) sm_\d\w*", re.I),
        "several architectures claimed: say which one was measured",
    ),
    (
        re.compile(
            r"\bmodel[- ]local\b|\bonly (?:for|affects?) (?:the )?recipe(?: users)?\b|\bno (?:side )?effects? on "
            r"other (?:callers|users)\b",
            re.I,
        ),
        "check who else reaches this code (process-wide flags, options read by constructors) and scope the claim "
        "to that",
    ),
]


def rule_scope(doc: Doc, ctx: Context) -> list[Finding]:
    return _scan("scope", doc, _SCOPE)


# --- the same number in two sections -----------------------------------------------------------


_P_VALUE_BEFORE = re.compile(r"\bp\s*[=<>]\s*$")


def rule_duplicate_number(doc: Doc, ctx: Context) -> list[Finding]:
    first: dict[str, tuple[str, int]] = {}
    out = []
    for name, rng in doc.sections():
        if name in ("(title)", "(start)"):
            continue
        seen_here: set[str] = set()
        for i in rng:
            for f in doc.figures(i):
                if (
                    f.setup_count
                    or nums.is_small_count(f)
                    or _P_VALUE_BEFORE.search(doc.prose[i][max(0, f.start - 6) : f.start])
                ):
                    continue  # a p-value names a test: the table may mark a change with the p Details reports
                key = f.numeral
                if key in first and first[key][0] != name and key not in seen_here:
                    out.append(
                        _find(
                            "duplicate-number",
                            doc,
                            i,
                            f.start,
                            f.end,
                            f"already given in '{first[key][0]}' (line {first[key][1] + 1}): say it once",
                        )
                    )
                first.setdefault(key, (name, i))
                seen_here.add(key)
    return out


# --- sections the description leaves out -------------------------------------------------------

_FORBIDDEN_HEADING = re.compile(
    r"^(?:observations?|findings|profile findings|revision(?:s| history| notes)?|"
    r"history|changelog|change ?log|changes since\b.*|what changed since\b.*|update[sd]?\b.*|"
    r"edit\b.*|v\d+\b.*|experimental\b.*|disclaimer|generated\b.*|about this pr)$",
    re.I,
)
_FORBIDDEN_TEXT = [
    (
        re.compile(
            r"\bexperimental (?:PR|pull request|change)\b|\bthis (?:PR|pull request) is (?:an? )?experiment", re.I
        ),
        "an 'experimental PR' callout: cut it; the description states what was measured",
    ),
    (
        re.compile(
            r"\bgenerated (?:with|by|using)\b|\bco-authored-by:[ \t]*(?:claude|copilot|chatgpt)|🤖|claude\.ai/|"
            r"\bsession (?:link|log)\b",
            re.I,
        ),
        "a generated-with footer or session link: cut it (an AI-assistance statement only where the repo asks)",
    ),
    (
        re.compile(r"^[ \t]*(?:\*\*|__)?(?:edit|update|revision|revised|v\d+)(?:\*\*|__)?[ \t]*(?:\(|:)", re.I | re.M),
        "a revision note: describe the PR as it is now, without its history",
    ),
]


def rule_forbidden_section(doc: Doc, ctx: Context) -> list[Finding]:
    out = []
    for i, h in enumerate(doc.heading):
        if h and i > 0 and _FORBIDDEN_HEADING.match(norm_heading(h[1])) and doc.prose[i].strip():
            what = (
                "profile findings belong in the issue"
                if re.match(r"(obs|find|prof)", norm_heading(h[1]))
                else "the description does not carry this section"
            )
            out.append(_find("forbidden-section", doc, i, 0, len(doc.lines[i]), f"remove the section: {what}"))
    return out + _scan("forbidden-section", doc, _FORBIDDEN_TEXT)


def rule_unrequested_section(doc: Doc, ctx: Context) -> list[Finding]:
    if ctx.allowed_headings is None:
        return []
    allowed = set(ctx.allowed_headings) | (set(OWN_HEADINGS) if ctx.kind == "pr" else set())
    out = []
    for i, h in enumerate(doc.heading):
        if not h or i == 0 or not doc.prose[i].strip():
            continue  # the title, or the repo's own heading carried verbatim
        if norm_heading(h[1]) not in allowed:
            where = "the repo's PR template" if ctx.kind == "pr" else "the repo's issue form"
            out.append(
                _find(
                    "unrequested-section",
                    doc,
                    i,
                    0,
                    len(doc.lines[i]),
                    f"a section {where} does not ask for: fold what matters into an existing section or cut it",
                )
            )
    return out


# --- titles ------------------------------------------------------------------------------------

PR_TITLE_RE = re.compile(
    r"^# (?:(?P<prefix>(?:\[[^\]]+\])+|[\w-]+(?:\([^)]*\))?!?:)\s+)?(?P<job>.+?) on (?P<hw>.+?): "
    r"(?P<t0>\d[\d,]*(?:\.\d+)?) ?(?P<u0>m?s|min|h) to (?P<t1>\d[\d,]*(?:\.\d+)?) ?(?P<u1>m?s|min|h) "
    r"per (?P<unit>[^,]+?)(?: at (?P<ws>[^,]+))?(?:, mostly from (?P<cause>.+?))?\s*$"
)
_ISSUE_SPEED_RE = re.compile(
    r"(?<!\d)\d++(?:\.\d++)?\s?[x×](?![A-Za-z0-9])|(?<!\d)\d++(?:\.\d++)?\s?%|\b(?:speed-?ups?|faster|slower|"
    r"quicker)\b",
    re.I,
)
_OWN_PREFIX_RE = re.compile(r"^(?:\[[^\]]*\]:?|[\w-]+(?:\([^)]*\))?!?:)\s*")


def rule_title_form(doc: Doc, ctx: Context) -> list[Finding]:
    first = doc.lines[0] if doc.lines else ""
    if not first.startswith("# "):
        return [
            Finding(
                rule="title-form",
                line=1,
                column=1,
                excerpt=first[:80],
                fix="start with the title as a level-one heading: '# ...'",
            )
        ]
    if ctx.kind == "pr":
        return _pr_title(first) + title_length.check(first)
    return _issue_title(first, ctx)


def _pr_title(first: str) -> list[Finding]:
    m = PR_TITLE_RE.match(first)
    if not m and metric_title.matches(first):
        return metric_title.check(first)
    if not m:
        return [
            Finding(
                rule="title-form",
                line=1,
                column=1,
                excerpt=first[:120],
                fix="use '# [perf] <job> on <hardware>: <t0> s to <t1> s per <unit> at <world size>, "
                "mostly from <largest cause>'",
            )
        ]
    if hardware := metric_title.hardware_check(m, "8 B200"):
        return hardware
    t0, t1 = (float(m.group(k).replace(",", "")) for k in ("t0", "t1"))
    if m.group("u0") == m.group("u1") and t1 >= t0:
        return [
            Finding(
                rule="title-form",
                line=1,
                column=m.start("t0") + 1,
                excerpt=f"{m.group('t0')} to {m.group('t1')}",
                fix="the title names a speedup: the second time must be the smaller",
            )
        ]
    return []


def _issue_title(first: str, ctx: Context) -> list[Finding]:
    out = []
    title = first[2:]
    prefix = _OWN_PREFIX_RE.match(title)
    if prefix and not any(title.startswith(p.strip()) for p in ctx.issue_title_prefixes if p.strip()):
        out.append(
            Finding(
                rule="title-form",
                line=1,
                column=3,
                excerpt=prefix.group(0).strip(),
                fix="no prefix of your own in an issue title (keep only the issue form's own prefix)",
            )
        )
    for m in _ISSUE_SPEED_RE.finditer(title):
        out.append(
            Finding(
                rule="title-form",
                line=1,
                column=m.start() + 3,
                excerpt=m.group(0),
                fix="no speed-up in the issue title: name what was observed, with the job and the GPU",
            )
        )
    if not nums.HARDWARE_RE.search(title) and "<" not in title:
        out.append(
            Finding(
                rule="title-form", line=1, column=3, excerpt=title[:80], fix="name the GPU the observation was made on"
            )
        )
    return out


# --- the description's structure ---------------------------------------------------------------


def _cells(line: str) -> list[str]:
    return [c.strip().lower() for c in line.strip().strip("|").split("|")]


def _whole_line(doc: Doc, i: int, fix: str) -> Finding:
    return _find("structure", doc, i, 0, len(doc.lines[i]), fix)


def _own_positions(doc: Doc) -> dict[str, tuple[int, int]]:
    """Line and level of the first Summary, Speedup Result and Correctness Verification headings.

    Read from the heading as a reader sees it, not the prose mask: when the repo's template has a
    Summary heading too, our heading is also a template line, and it is still our section.
    """
    pos: dict[str, tuple[int, int]] = {}
    for i, h in enumerate(doc.heading):
        if h and i > 0 and norm_heading(h[1]) in OWN_HEADINGS:
            pos.setdefault(norm_heading(h[1]), (i, h[0]))
    return pos


def _order(doc: Doc, pos: dict[str, tuple[int, int]]) -> list[Finding]:
    out = []
    last = -1
    for name, level in (("summary", 2), ("speedup result", 3), ("correctness verification", 2)):
        if name not in pos:
            fix = f"add the '{'#' * level} {name.title()}' section in its place"
            out.append(Finding(rule="structure", line=1, column=1, excerpt=name, fix=fix))
            continue
        i, lv = pos[name]
        if lv != level:
            out.append(_whole_line(doc, i, f"make it a level-{level} heading"))
        if i < last:
            order = "order: Summary, Speedup Result, Correctness Verification, the repo's sections, Details"
            out.append(_whole_line(doc, i, order))
        last = max(last, i)
    return out


def _speedup_section(doc: Doc, i: int) -> list[Finding]:
    body = [j for j in range(i + 1, len(doc.lines)) if doc.lines[j].strip()]
    end = next((j for j in body if doc.heading[j]), len(doc.lines))
    body = [j for j in body if j < end]
    out = []
    if not body or not doc.lines[body[0]].startswith("Measured on "):
        out.append(
            _whole_line(doc, body[0] if body else i, "the first line under Speedup Result is 'Measured on <n> <GPU>.'")
        )
    tables = [j for j in body if doc.table[j]]
    if tables and _cells(doc.lines[tables[0]]) != RESULT_HEADER:
        out.append(_whole_line(doc, tables[0], "the result table's header is '| | baseline | this PR | change |'"))
    after = [j for j in body if tables and j > tables[-1] and not doc.table[j]]
    if after:
        out.append(
            _whole_line(doc, after[0], "nothing after the tables in Speedup Result: move it to Summary or Details")
        )
    return out


def _checks_section(doc: Doc, i: int) -> list[Finding]:
    end = next((j for j in range(i + 1, len(doc.lines)) if doc.heading[j] or doc.details_opened(j)), len(doc.lines))
    tables = [j for j in range(i + 1, end) if doc.table[j]]
    if tables and _cells(doc.lines[tables[0]]) != CHECK_HEADER:
        return [
            _whole_line(doc, tables[0], "the checks table's header is '| recorded | baseline vs this PR | tolerance |'")
        ]
    return []


def _details_block(doc: Doc) -> list[Finding]:
    """Our Details block closes, and only the repo's own text (a bot's cut-off tail) may follow it."""
    ours = [i for i, line in enumerate(doc.lines) if doc.details_opened(i) and "Details:" in line]
    if not ours:
        fix = "end with '<details><summary>Details: hardware, model, full command, traces</summary>'"
        return [Finding(rule="structure", line=len(doc.lines), column=1, excerpt="", fix=fix)]
    close = next((j for j in range(ours[-1], len(doc.lines)) if doc.details_closed(j)), None)
    if close is None:
        return [_whole_line(doc, ours[-1], "close the block with </details>")]
    j = next((j for j in range(close + 1, len(doc.lines)) if doc.code[j].strip()), None)
    return [] if j is None else [_whole_line(doc, j, "nothing after the Details block")]


def rule_structure(doc: Doc, ctx: Context) -> list[Finding]:
    if ctx.kind != "pr":
        return []
    pos = _own_positions(doc)
    out = _order(doc, pos)
    if "speedup result" in pos:
        out += _speedup_section(doc, pos["speedup result"][0])
    if "correctness verification" in pos:
        out += _checks_section(doc, pos["correctness verification"][0])
    return out + _details_block(doc)


# --- truthfulness ------------------------------------------------------------------------------


def rule_unbacked_number(doc: Doc, ctx: Context) -> list[Finding]:
    if ctx.figures is None:
        return []
    from perfkit.lint.claims.rules import analyse

    claims = analyse(doc, ctx)
    out = [f for f in claims.findings if f.rule == "unbacked-number"]  # multipliers in words
    for i, text in enumerate(doc.prose):
        for f in nums.figures_in(i, text):
            if f.setup_count or nums.is_small_count(f):
                continue
            if not ctx.figures.backs(f) and (i, f.start) not in claims.bound:  # type: ignore[attr-defined]
                fix = claims.hints.get((i, f.start)) or (
                    "no figure in the campaign's files matches this number: take it from read_benchmark or a "
                    "report, or cut it"
                )
                out.append(_find("unbacked-number", doc, i, f.start, f.end, fix))
    return out


# --- correctness claimed with no check ----------------------------------------------------------

_CHECK_CLAIM_RE = re.compile(
    r"\btolerances? (?:were|was|are|is) (?:chosen|set|fixed|agreed)\b|\bwithin (?:the |their |its )?tolerances?\b|"
    r"\bcode that recorded\b|\b(?:all|both|every) (?:\d+ |the )?checks? (?:are|is|were|was|pass(?:ed)?)\b|"
    r"\bnumerical(?:ly)? equivalen(?:ce|t) (?:is|was) (?:shown|verified|confirmed)\b",
    re.I,
)
_PLACEHOLDER_CELL_RE = re.compile(r"^\s*(?:<[^<>]*>\s*)?$")


def rule_no_checks(doc: Doc, ctx: Context) -> list[Finding]:
    """Tolerances, recording code or passing checks claimed in Correctness Verification, with no check listed."""
    start = next(
        (i for i, h in enumerate(doc.heading) if h and i > 0 and norm_heading(h[1]) == "correctness verification"), None
    )
    if start is None:
        return []
    end = next(
        (j for j in range(start + 1, len(doc.lines)) if doc.heading[j] or "<details" in doc.lines[j]), len(doc.lines)
    )
    rows = [j for j in range(start + 1, end) if doc.table[j]][2:]  # past the header and its separator
    if any(not all(_PLACEHOLDER_CELL_RE.match(c) for c in doc.lines[j].strip().strip("|").split("|")) for j in rows):
        return []
    fix = (
        "no check is listed: list each check (what was recorded, the difference, the tolerance chosen before "
        "the runs), or say plainly that numerical equivalence was not verified"
    )
    out = []
    for i in range(start + 1, end):
        m = _CHECK_CLAIM_RE.search(doc.prose[i])
        if m:
            out.append(_find("no-checks", doc, i, m.start(), m.end(), fix))
    return out


RULES: dict[str, Callable[[Doc, Context], list[Finding]]] = {
    "dash": rule_dash,
    "sales-word": rule_sales_word,
    "filler": rule_filler,
    "review-word": rule_review_word,
    "campaign-word": rule_campaign_word,
    "test-name": rule_test_name,
    "bold": rule_bold,
    "speedup-hardware": rule_speedup_hardware,
    "scope": rule_scope,
    "duplicate-number": rule_duplicate_number,
    "forbidden-section": rule_forbidden_section,
    "unrequested-section": rule_unrequested_section,
    "title-form": rule_title_form,
    "structure": rule_structure,
    "unbacked-number": rule_unbacked_number,
    "direction": direction.rule_direction,
    "no-checks": rule_no_checks,
}
RULES.update(claim_rules.RULES)  # claims bound to the data: wrong figures, measurements, "unchanged", the cost
RULES.update(live_text.RULES)  # text that would act once posted: mentions, raw HTML, script links, hidden characters
