"""What a template field asks for, and what of the draft answers it: one small vocabulary of meanings.

A PR template's heading, a bold label, a `Label:` line, an issue form's field and a key of the draft's
`template_answers` are all read into the same vocabulary, from their words, narrowest meaning first:

    motivation, changes, tests, results, user-impact, hardware, model, software, reproduction,
    alternatives, related-issues, checklist

Two things with one meaning go together: the draft's "Tests" answer reaches "How was this patch
tested?", "Test plan" and "Testing Done"; "User impact" reaches "Does this PR introduce any
user-facing change?"; the GPU reaches "Device" and "Hardware Type", the model "Model used", a
throughput figure "Decode speed"; "Experiment results" is what our results section says. Where no
meaning is found, nothing is filled by position: the field stays an open question with its prompt.
Each reading carries its evidence (the words that decided), so the result can show why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from perfkit.markdown import code_block

Meaning = str  # one of the meanings of _VOCAB

# narrowest first: 'test results' is results, 'how was this tested' is tests, 'model version' is software
_VOCAB: list[tuple[Meaning, str]] = [
    (
        "checklist",
        r"checklist|check ?list|before submitting|pre[- ]?submission|self[- ]?review|code of conduct|"
        r"contributor checklist|pr checklist",
    ),
    (
        "related-issues",
        r"related (?:issues?|prs?|pull requests?|tickets?)|linked issues?|issue (?:number|link|id)|fixes|closes|"
        r"resolves|references?|reference issues?|tickets?|which issues?",
    ),
    (
        "results",
        r"(?:test(?:ing)?|experiment(?:al)?|benchmark(?:ing)?|evaluation|eval|accuracy|perf(?:ormance)?) results?|"
        r"results?|benchmarks?|benchmarking|profil(?:e|ing)|performance(?: (?:impact|numbers|changes?|data))?|"
        r"speed ?ups?|before (?:and|&|vs) after|measurements?|(?:decode|decoding|prefill|generation|inference|"
        r"training) (?:speed|throughput|latency)|throughput|latency|tokens? (?:per|/) ?s(?:ec(?:ond)?)?|"
        r"accuracy|evaluation|metrics?|numbers",
    ),
    (
        "tests",
        r"tests?|testing|tested|test plan|test cases?|unit tests?|how (?:was|were|is|has|did) (?:this|it|these|the)"
        r"(?: \w+){0,3} (?:tested|verified|validated)|verification|validation|how to test|qa",
    ),
    (
        "user-impact",
        r"user[- ]facing|user[- ]visible|user impact|impact|for (?:the )?users|affects? (?:the )?users|"
        r"breaking(?: changes?)?|backwards?[- ]compat\w*|compatib\w*|"
        r"deprecat\w*|migration|api changes?|behaviou?r changes?|release notes?|changelog entry|upgrade",
    ),
    (
        "software",
        r"(?:software|library|framework|package|driver|cuda|rocm|torch|pytorch|python|compiler|toolkit|sdk|"
        r"os|operating system|runtime|dependenc\w*)(?: versions?)?|versions?|environment|env|collect[_ ]env",
    ),
    (
        "hardware",
        r"hardware(?: type)?|devices?(?: type| name)?|gpus?(?: type| model| name)?|accelerators?|npus?|tpus?|"
        r"machine|platform|instance(?: type)?|chips?|cpus?",
    ),
    ("model", r"models?(?: used| name| id| size)?|checkpoints?|weights|network|architecture"),
    (
        "reproduction",
        r"reproduc\w*|repro|steps to|commands?|scripts?|how to run|minimal example|code snippet|snippets?|run it",
    ),
    (
        "alternatives",
        r"alternatives?(?: considered| solutions?)?|other (?:options|approaches|solutions)|considered|rejected|"
        r"tried",
    ),
    (
        "changes",
        r"changes?|changelog|modifications?|what (?:changed|does this|this pr does)|implementation|approach|"
        r"proposed changes?|new method|method|design|details of the change|what is changed",
    ),
    (
        "motivation",
        r"motivation|why|purpose|background|context|problem|rationale|summary|description|overview|"
        r"what problem|goal|intent",
    ),
]
_RX = [(m, re.compile(rf"(?<![\w-])(?:{rx})(?![\w-])")) for m, rx in _VOCAB]


@dataclass(frozen=True)
class Reading:
    meaning: Meaning
    evidence: str  # what decided: "label 'Test plan'", "prompt '...'"


def _norm(text: str) -> str:
    t = re.sub(r"<!--.*?-->|`[^`]*`|https?://\S+", " ", text[:400])
    t = re.sub(r"[*_#>\[\]():?!.,;|\"']+", " ", t.lower())
    return re.sub(r"\s+", " ", t).strip()


def meaning_of(text: str) -> str | None:
    low = _norm(text)
    if not low:
        return None
    return next((m for m, rx in _RX if rx.search(low)), None)


def read(*sources: tuple[str, str]) -> Reading | None:
    """The first meaning found in (what, text) sources, in the order given: label, id, prompt."""
    for what, text in sources:
        if text and text.strip():
            m = meaning_of(text)
            if m:
                return Reading(m, f"{what} '{text.strip()[:80]}'")
    return None


# reworded boxes: the same promise in other words ('Have you read the contributor guidelines?' and
# 'I have read the contributing guide.')
_BOX_VOCAB: list[tuple[str, str]] = [
    ("no-ai", r"\b(?:without|no|not)\b.{0,40}\b(?:ai|llm|agent|copilot|generated)\b"),
    ("read-guide", r"\bread\b.{0,40}\b(?:contribut\w*|guidelines?|guide|docs?|code of conduct|instructions)\b"),
    (
        "tests-added",
        r"\b(?:added?|adds|wrote|written|include[sd]?|new|updated?)\b.{0,30}\btests?\b|\btests?\b.{0,30}"
        r"\b(?:added|cover\w*|included|written)\b",
    ),
    ("tests-pass", r"\btests?\b.{0,40}\b(?:pass\w*|green|succeed\w*|run)\b|\bran\b.{0,30}\btests?\b"),
    ("docs", r"\b(?:docs?|documentation|docstrings?|readme)\b"),
    ("changelog", r"\b(?:changelog|change log|release notes?)\b"),
    ("lint", r"\b(?:lint\w*|format\w*|pre-commit|style|clang-format|black|ruff)\b"),
    ("sign-off", r"\b(?:sign(?:ed)?[- ]?off|dco|signed)\b"),
    ("self-review", r"\b(?:self[- ]review\w*|reviewed my own|review(?:ed)? (?:the|my) (?:own )?code)\b"),
    ("issue-linked", r"\b(?:link\w*|reference\w*)\b.{0,30}\bissues?\b"),
    ("breaking", r"\bbreaking\b"),
    ("benchmarks", r"\b(?:benchmark\w*|performance|speed)\b"),
]
_BOX_RX = [(k, re.compile(rx, re.I)) for k, rx in _BOX_VOCAB]


def box_meaning(text: str) -> str | None:
    low = _norm(text)
    return next((k for k, rx in _BOX_RX if rx.search(low)), None)


_VERSION_RE = re.compile(
    r"(?<![\w+-])([A-Za-z][\w+]{0,30}(?:-[A-Za-z][\w+]{0,30}){0,2})\s*+(?:==|=|:)?\s*+v?\d+(?:\.\d+)+"
)


def draft_facts(d: object, issue: str | None = None) -> dict[str, tuple[str, str]]:
    """What the draft states, by the meaning of the field it answers: (text, where it comes from)."""
    facts: dict[str, tuple[str, str]] = {}
    gpu, count = getattr(d, "gpu", None), getattr(d, "gpu_count", None)
    details = getattr(d, "details", None)
    hw = (getattr(details, "hardware", None) or "").strip()
    if gpu:
        facts["hardware"] = (f"{count} x {gpu}" if count else str(gpu), "draft.gpu and draft.gpu_count")
    elif hw:
        facts["hardware"] = (hw, "draft.details.hardware")
    said = " ".join(x for x in (hw, getattr(details, "setup", None) or "") if x)
    versions = [m.group(0).strip() for m in _VERSION_RE.finditer(said) if m.group(1).lower() not in {"base", "commit"}]
    if versions:
        facts["software"] = (", ".join(dict.fromkeys(versions)), "draft.details.hardware")
    model = (getattr(details, "model", None) or "").strip()
    if model:
        facts["model"] = (model, "draft.details.model")
    cmd = (getattr(details, "command_pr", None) or "").strip()
    if cmd:
        facts["reproduction"] = (code_block(cmd, "sh"), "draft.details.command_pr")
    rejected = list(getattr(details, "rejected", None) or [])
    if rejected:
        facts["alternatives"] = ("\n".join(f"- {r}" for r in rejected), "draft.details.rejected")
    facts["results"] = ("See Speedup Result above.", "the data (read_benchmark), in Speedup Result")
    if issue:
        facts["related-issues"] = (f"#{issue}", "draft.issue_number")
    return facts
