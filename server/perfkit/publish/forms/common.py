"""What both fillers share: the draft's material, answers keyed by label or id, and honest short answers."""

from __future__ import annotations

from dataclasses import dataclass, field

from perfkit.publish.forms.facts import Facts
from perfkit.publish.forms.model import FormField
from perfkit.publish.models import FieldFill
from perfkit.templatetext import norm_heading

# Required fields the draft has nothing for, where a short true sentence beats a placeholder.
HONEST = {
    "logs": "No error or log output to add; the measurements are in this issue and in the linked PR.",
    "regression": "I did not measure an earlier version, so I cannot say whether this is a regression.",
}
SHOWN = ["observed", "reproduce", "logs_said", "environment", "pr_note"]  # order within one field
QUIET_ROLES = ("logs", "regression", "software", "people", "checklist")


@dataclass
class Material:
    """What the draft gives the issue: paragraphs by content key, answers by field, and short facts."""

    contents: dict[str, str]
    answers: dict[str, str]
    facts: Facts
    placeholder: str


@dataclass
class Filled:
    body: str
    fields: list[FieldFill] = field(default_factory=list)
    unused_answers: list[str] = field(default_factory=list)


def match_answers(fields: list[FormField], answers: dict[str, str]) -> tuple[dict[int, str], list[str]]:
    """(field index -> the draft's answer, answer keys that match no field), keyed by label or id."""
    keys = {norm_heading(k): k for k in answers}
    got: dict[int, str] = {}
    for i, f in enumerate(fields):
        for name in (f.label, f.id):
            k = keys.get(norm_heading(name)) if name else None
            if k is not None and i not in got:
                got[i] = answers[k]
                keys.pop(norm_heading(name))
    return got, list(keys.values())


def fenced(text: str, lang: str) -> str:
    return f"```{lang}\n{text.strip()}\n```"


def compose(keys: list[str], contents: dict[str, str], render: str = "") -> str:
    """The content under one field, paragraphs in order; the command always in a code block."""
    parts = []
    for k in sorted(keys, key=SHOWN.index):
        text = contents[k]
        parts.append(fenced(text, render or "bash") if k == "reproduce" and not render else text)
    body = "\n\n".join(parts)
    return fenced(body, render) if render else body
