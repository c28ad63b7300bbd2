"""What a field asks for, read from its label, then its id, then its description and placeholder.

Roles, tried in this order so the narrow ones win: `ai` (how AI tools took part: the draft's
ai_disclosure answers it, never our paragraphs), `checklist` (the reporter's own promises),
`people` (whom to tag), `software` (the name and version of a package: the draft does not know it),
`regression` (an earlier version that was faster), `reproduce`, `build` (how the project was built:
the draft does not know), `environment`, `alternatives` (what
else was considered: the draft's words only), `solution` (the fix proposed: the pointer to the PR),
`expected` (what was expected, what the docs said), `logs`, `context` (anything else) and `problem`
(the description, the proposal, the question).
"""

from __future__ import annotations

import re

from perfkit.publish.forms.model import FormField
from perfkit.publish.forms.rank import norm
from perfkit.publish.repo_notes import mentions_ai

ROLES: list[tuple[str, str]] = [
    (
        "checklist",
        r"before (?:submitting|you (?:file|submit|post|open))|existing issues?|search(?:ed)? before|checklist|"
        r"willing to submit|code of conduct|"
        r"i agree|i confirm|terms",
    ),
    ("people", r"who can help|who should|tag|mention|cc|maintainers?|reviewers?|assignees?"),
    (
        "software",
        r"name and version|(?:package|library|framework|model|project) (?:name|version)s?|"
        r"version of (?:the )?(?:package|library|framework|project)",
    ),
    (
        "regression",
        r"regressions?|regressed|worked before|previous(?:ly)?|(?:earlier|older|last) (?:versions?|releases?)|"
        r"(?:was|were) faster|"
        r"than before|used to|last (?:known )?good|first bad(?: commit| version)?|bisect\w*",
    ),
    ("reproduce", r"reproduc\w*|repro|steps|commands?|scripts?|code|snippets?|minimal example|how to run"),
    # how the reporter built the project: the draft knows its run, not a build of the repo
    ("build", r"build(?: flags| options| command| log| output| method)?|compil\w*|cmake"),
    (
        "environment",
        r"environment|env|system|system info\w*|hardware|platform|setup|gpus?|devices?|accelerators?|cuda|os|"
        r"versions?|collect env",
    ),
    # what else was considered: only the author's own alternatives answer it, never the logs paragraph
    ("alternatives", r"alternatives?|workarounds?|other (?:options|approaches|solutions|ways)|consider(?:ed)?"),
    # the fix the reporter proposes: the pointer to the PR answers it
    ("solution", r"solutions?(?: you(?:'d| would) like)?|suggested (?:fix|change)|proposed (?:fix|solution)|pitch"),
    (
        "expected",
        r"expected|expect|docs?|documentation|would have|suggest\w*|desired|like to (?:happen|see)|"
        r"would you like|want(?:ed)? to (?:happen|see)",
    ),
    ("logs", r"logs?|log output|traceback|stack ?traces?|error messages?|outputs?|stderr|console"),
    (
        "context",
        r"additional|context|other|misc\w*|anything (?:else|more)|further|notes?|links?|references?|related|"
        r"discussion|comments?",
    ),
    (
        "problem",
        r"problem|issue|describe|description|bug|what happened|observ\w*|performance|perf|proposals?|propose|"
        r"motivation|summary|details|question|feature|report|behaviou?r|improve\w*|slow\w*|speed|faster|ideas?",
    ),
]
_ROLE_RE = [(role, re.compile(rf"\b(?:{rx})\b")) for role, rx in ROLES]
_AI_USE_RE = re.compile(
    r"\b(?:use[ds]?|usage|using|assist\w*|help\w*|generat\w*|tools?|disclos\w*|wrote|written)\b", re.I
)


def _match(text: str) -> str | None:
    if mentions_ai(text) and _AI_USE_RE.search(text):  # "AI assistance", not "Lumen-AI" or "model (an LLM)"
        return "ai"
    low = norm(text)
    return next((role for role, rx in _ROLE_RE if rx.search(low)), None)


def role(f: FormField) -> str | None:
    """The field's role, or None when none of its words says."""
    for text in (f.label, f.id.replace("-", " ").replace("_", " "), f"{f.description} {f.placeholder}"):
        r = _match(text) if text.strip() else None
        if r:
            return r
    return None
