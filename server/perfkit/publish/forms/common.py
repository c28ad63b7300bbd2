"""What both fillers share: the draft's material, answers keyed by label or id, and honest short answers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from perfkit.errors import InputError
from perfkit.markdown.safe import code_block
from perfkit.publish.forms.facts import Facts
from perfkit.publish.forms.model import FormField
from perfkit.publish.models import FieldFill
from perfkit.repo.template_text import norm_heading

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
    answers: dict[str, str | list[str]]
    facts: Facts
    placeholder: str
    ai: str = ""  # the draft's AI disclosure, for the fields that ask about AI use


@dataclass
class Filled:
    body: str
    fields: list[FieldFill] = field(default_factory=list)
    unused_answers: list[str] = field(default_factory=list)


Answer = str | list[str]


def field_id(f: FormField) -> str:
    """The id an agent answers the field by: the form's own id, else the label as a slug."""
    return f.id or re.sub(r"[^a-z0-9]+", "-", f.label.lower()).strip("-")


def _one_field(fields: list[FormField], key: str) -> int | None:
    """The field a form_answers key names: an id, a label, or a part of one label only; None for no field."""
    want = norm_heading(key)
    if not want:
        return None
    by_id = [i for i, f in enumerate(fields) if key.strip() in (f.id, field_id(f))]
    by_label = [i for i, f in enumerate(fields) if want in (norm_heading(f.label), norm_heading(f.id))]
    for hits in (by_id, by_label):
        if len(hits) == 1:
            return hits[0]
    whole = re.compile(rf"(?<!\w){re.escape(want)}(?!\w)")  # whole words: "quantized", never "ized"
    parts = [i for i, f in enumerate(fields) if whole.search(norm_heading(f.label))]
    if len(parts) > 1:
        names = ", ".join(f"'{fields[i].label}' (id {field_id(fields[i])})" for i in parts)
        raise InputError(
            f"draft.issue.form_answers['{key}']",
            f"'{key}' is part of {len(parts)} field labels: {names}",
            "key the answer by the field's id or its whole label",
        )
    return parts[0] if parts else None


def match_answers(
    fields: list[FormField], answers: dict[str, Answer]
) -> tuple[dict[int, Answer], list[str], dict[int, str]]:
    """(field index -> the draft's answer, answer keys that name no field, field index -> its key).

    A key is a field's id, its label, or a part of one label only."""
    got: dict[int, Answer] = {}
    keys: dict[int, str] = {}
    unused: list[str] = []
    for key, value in answers.items():
        i = _one_field(fields, key)
        if i is None:
            unused.append(key)
            continue
        if i in got:
            raise InputError(
                f"draft.issue.form_answers['{key}']",
                f"'{key}' and '{keys[i]}' both answer the field '{fields[i].label}'",
                "keep one of them",
            )
        got[i], keys[i] = value, key
    return got, unused, keys


def one_text(f: FormField, answer: Answer, key: str = "") -> str:
    """A single-valued field's answer; a list is refused unless the field takes several values."""
    if isinstance(answer, str):
        return answer
    if f.kind == "dropdown" and f.multiple:
        return ", ".join(a.strip() for a in answer)
    if len(answer) == 1:
        return answer[0]
    raise InputError(
        f"draft.issue.form_answers['{key or f.label}']",
        f"the field '{f.label}' ({f.kind}) takes one answer, got a list of {len(answer)}",
        "give one string, or a list only for a checkbox field or a dropdown with multiple choices",
    )


def box_for(f: FormField, item: str, key: str) -> int:
    """The box one listed answer names: its text, or a part of one box's text only."""
    want = norm_heading(item)
    whole = re.compile(rf"(?<!\w){re.escape(want)}(?!\w)")
    exact = [k for k, o in enumerate(f.options) if norm_heading(o) == want]
    parts = exact or [k for k, o in enumerate(f.options) if want and whole.search(norm_heading(o))]
    if len(parts) == 1:
        return parts[0]
    where = f"draft.issue.form_answers['{key}']"
    if parts:
        names = "; ".join(f"'{f.options[k]}'" for k in parts)
        raise InputError(where, f"'{item}' is part of {len(parts)} boxes of '{f.label}': {names}", "quote more of one")
    raise InputError(where, f"'{item}' matches no box of '{f.label}'", "use one of: " + "; ".join(f.options))


def compose(keys: list[str], contents: dict[str, str], render: str = "") -> str:
    """The content under one field, paragraphs in order; the command always in a code block."""
    parts = []
    for k in sorted(keys, key=SHOWN.index):
        text = contents[k]
        parts.append(code_block(text.strip(), render or "bash") if k == "reproduce" and not render else text)
    body = "\n\n".join(parts)
    return code_block(body.strip(), render) if render else body
