"""What each heading and bold label of a template asks, from its words and what sits under it.

question: the author answers under it (its prompts are replaced by the answer).
process: addressed to reviewers, CI, merge rules or bots; kept verbatim, nothing asked.
covered: our own Summary, Speedup Result or Correctness Verification already says it.
group: it holds checklists, option lists, sub-headings or the template's own words; its parts are
answered one by one and nothing is added under the heading itself.
"""

from __future__ import annotations

import re

from perfkit.markdown import html
from perfkit.publish import meanings
from perfkit.publish.template_parts import words
from perfkit.publish.template_parts.kinds import Part, Role
from perfkit.repo.template_text import norm_heading

SUMMARY_POINTER = "Summary"
RESULT_POINTER = "Speedup Result and Correctness Verification"

_SUMMARY = re.compile(
    r"^(?:pr |pull request )?(?:summary|purpose|motivation|description|overview|context|background|why|what|"
    r"motivation and context|description and motivation|"
    r"what (?:does )?this (?:pr|pull request|change|patch) (?:do|does)(?: and why)?"
    r"(?: why (?:do |is )?(?:we|it) need(?:ed)? it)?|"
    r"what this (?:pr|pull request|change) does(?: why we need it)?|"
    r"what (?:is|was) (?:changed|the change)|what changed|what changes were proposed.*|proposed changes?|"
    r"changes?(?: made| proposed| introduced| in this pr)?|modifications?|changelog|change ?log|"
    r"description of (?:the )?changes?|"
    r"(?:summary|description) of (?:the )?(?:pr|pull request|change)s?|about|details|the change|"
    r"what does this (?:implement|pr implement)(?: fix)?.*|what does this implement fix.*|"
    r"problem|problem statement|issue|what problem does this (?:pr|change) solve)$"
)
_RESULT = re.compile(
    r"^(?:test(?:ing)? results?|test(?:ing)? result s|results?|benchmarks?(?: results)?|benchmarking|"
    r"benchmark (?:and|&) profiling|benchmarking and profiling|accuracy tests?|"
    r"profil(?:e|ing)(?: results)?|performance(?: results| numbers| impact| changes?)?|"
    r"perf(?: results| numbers)?|speed ?ups?|before (?:and|&|vs) after|accuracy(?: results)?|correctness|"
    r"numerical (?:equivalence|accuracy|correctness)|verification(?: results)?|evaluation(?: results)?|"
    r"measurements?)$"
)
_OUR_MEANINGS = {"results": RESULT_POINTER}  # 'Experiment results', 'Decode speed': what our results say
_DESCRIPTION_ASK = re.compile(
    r"\b(?:pr description|description of (?:the|this|your) (?:change|pr)|describe (?:the|this|your) (?:change|pr)|"
    r"summary of (?:the|this|your) change|what this pr does|what (?:the|this) (?:pr|change) does)\b",
    re.I,
)


def covered_by(title: str) -> str | None:
    """Which of our parts covers a heading, or None."""
    name = _name(title)
    if _RESULT.match(name):
        return RESULT_POINTER
    if _SUMMARY.match(name):
        return SUMMARY_POINTER
    # 'Benchmark & Profiling', 'Motivation and Context': covered when every piece is
    pieces = [_name(x) for x in re.split(r"&|/|\+|,|\band\b", title[:300], flags=re.I) if x.strip()]
    if len(pieces) < 2:
        return None
    kinds = {RESULT_POINTER if _RESULT.match(x) else SUMMARY_POINTER if _SUMMARY.match(x) else None for x in pieces}
    if None in kinds:
        return None
    return kinds.pop() if len(kinds) == 1 else f"{SUMMARY_POINTER}, {RESULT_POINTER}"


def _name(title: str) -> str:
    """A heading compared without case, markup or numbering: '1. Summary' -> 'summary'."""
    return re.sub(r"^(?:\d+(?:\.\d+)*|[a-z]|[ivx]+)\s+(?=\w)", "", norm_heading(title)[:300])


def assign(parts: list[Part]) -> None:
    """Set owner on every part and role on every heading and label."""
    owner: Part | None = None
    owned: dict[str, list[Part]] = {}
    preamble: list[Part] = []
    for p in parts:
        if p.kind == "heading":
            owner = p
            owned[p.id] = []
            continue
        p.owner = owner.id if owner else None
        (owned[owner.id] if owner else preamble).append(p)
    heads = [p for p in parts if p.kind == "heading"]
    for n, h in enumerate(heads):
        nxt = heads[n + 1] if n + 1 < len(heads) else None
        parent = nxt is not None and not owned[h.id] and nxt.level > h.level
        h.role, h.role_why = _role(h, owned[h.id], parent)
        r = meanings.read(("label", h.title or ""), ("prompt", prompts_of(h, owned[h.id])))
        if r:
            h.meaning, h.meaning_why = r.meaning, r.evidence
    for p in parts:
        if p.kind == "field":
            label = words.field_label(p.lines[0]) or ""
            r = meanings.read(("label", label))
            if r:
                p.meaning, p.meaning_why = r.meaning, r.evidence
    if preamble and not heads:
        _preamble_role(preamble)


def _role(h: Part, under: list[Part], parent: bool) -> tuple[Role, str]:
    title = h.title or ""
    norm = norm_heading(title)[:300]
    if words.is_process_heading(norm):
        return "process", "addressed to reviewers, CI or bots: kept as it is, nothing asked"
    pointer = covered_by(title)
    if pointer:
        return "covered", f"covered by {pointer}"
    said = meanings.meaning_of(title)
    if said in _OUR_MEANINGS and not any(p.kind in ("checklist", "options") for p in under):
        return "covered", f"covered by {_OUR_MEANINGS[said]} (the heading asks for {said})"
    if parent:
        return "group", "holds the headings below it"
    lists = [p for p in under if p.kind in ("checklist", "options")]
    content = lists + [p for p in under if p.kind in ("details", "process", "field")]
    content += [p for p in under if p.kind == "code" and not _empty_fence(p)]
    if h.inline_kind == "text":
        return "group", "the label carries the template's own words"
    asked = [p for p in under if asks(p)]
    if asked and lists:
        return "question", "asks the author (its prompt is answered in place) and holds a list, kept below the answer"
    if not lists and content and any(words.asks_to_write(t) for t in _prompts(h, under)):
        return "question", "asks the author; the template's own notes under it stay"
    if content:
        kinds = sorted({p.kind for p in content})
        return "group", "holds " + ", ".join(kinds) + ": each is answered in place"
    if h.inline_kind == "link" or (any(p.kind in ("link", "ai-value") for p in under) and not _prompts(h, under)):
        return "question", "answered by its issue link"
    return "question", "asks the author"


_ABOUT_LIST = re.compile(
    r"\b(?:box(?:es)?|check(?:ed|list|box\w*)?|tick\w*|mark\w*|select\w*|choose|apply|applies|applicable|"
    r"items?|options?|the following|below|all that|\[x\])",
    re.I,
)


def asks(p: Part) -> bool:
    """A visible prompt, example or instruction asking for words, not one about the list beside it."""
    if p.in_details or p.lead:
        return False  # collapsed help and list leads are the template's structure
    if p.kind == "example":
        return True
    if p.kind not in ("prompt", "text") or p.hidden:
        return False
    return not _ABOUT_LIST.search(html.strip_comments(p.text))


def _prompts(h: Part, under: list[Part]) -> list[str]:
    out = [h.inline] if h.inline_kind == "prompt" else []
    return out + [p.text for p in under if p.kind in ("prompt", "text", "example")]


def _empty_fence(p: Part) -> bool:
    inner = [ln for ln in p.lines[1:-1] if ln.strip()]
    return len(p.lines) >= 2 and not inner


def _preamble_role(preamble: list[Part]) -> None:
    """A template without headings: its prompts ask for the description itself when they say so."""
    lists = any(p.kind in ("checklist", "options") for p in preamble)
    for p in preamble:
        if p.kind == "prompt":
            if _DESCRIPTION_ASK.search(p.text):
                p.role = "covered"
            elif not lists and words.asks_to_write(p.text):
                p.role = "question"  # with boxes, the instructions are about the boxes


def prompts_of(h: Part, under: list[Part]) -> str:
    """The template's own prompt for a heading, for the agent to read."""
    return "\n".join(_prompts(h, under)).strip()[:600]
