"""A YAML issue form as GitHub posts it: `### <label>`, a blank line, the answer, for every field.

GitHub posts `_No response_` for an empty optional field, a textarea with `render:` inside a code
block of that language, and checkboxes as `- [X]` or `- [ ]`. This writes the same, so the issue
a user files with `gh issue create --body-file` reads like one filed through the form.
"""

from __future__ import annotations

from perfkit.publish.forms.assign import ORDER, assign
from perfkit.publish.forms.common import (
    HONEST,
    Answer,
    Filled,
    Material,
    box_for,
    compose,
    field_id,
    match_answers,
    one_text,
)
from perfkit.publish.forms.lines import fill_field_lines
from perfkit.publish.forms.model import FormField, IssueForm
from perfkit.publish.forms.roles import role
from perfkit.publish.models import FieldFill
from perfkit.repo.template_text import norm_heading

EMPTY = "_No response_"


def _ticks(f: FormField, answer: Answer | None, key: str) -> list[bool]:
    if answer is None:
        return [False] * len(f.options)
    if isinstance(answer, str):  # a sentence quoting whole boxes, or a part of one box
        said = norm_heading(answer)
        ticks = [bool(said) and norm_heading(o) in said for o in f.options]
        if any(ticks) or not said:
            return ticks
        answer = [answer]
    ticks = [False] * len(f.options)
    for item in answer:
        ticks[box_for(f, item, key)] = True
    return ticks


def _checkboxes(f: FormField, answer: Answer | None, key: str, m: Material) -> tuple[str, list[str]]:
    ticks = _ticks(f, answer, key)
    text = "\n".join(f"- [{'X' if t else ' '}] {o}" for o, t in zip(f.options, ticks, strict=True))
    how = ["form_answers"] if answer is not None else ["template"]
    must = set(f.required_options or (f.options if f.required else []))
    if any(not t for o, t in zip(f.options, ticks, strict=True) if o in must):
        text += "\n\n" + m.placeholder.format(what=f"tick what is true in '{f.label}'")
        how.append("placeholder")
    return text, how


def _dropdown(f: FormField, answer: Answer | None, key: str, m: Material) -> tuple[str, list[str]]:
    if answer is not None and (text := one_text(f, answer, key).strip()):
        return text, ["form_answers"]
    asks = f"{f.label} {f.id} {f.description}"
    backed = [o for o in f.options if m.facts.backs(o, asks)]
    if backed and (len(backed) == 1 or f.multiple):
        return ", ".join(backed), ["option"]
    what = f"one of: {', '.join(f.options)}" if f.options else f"answer '{f.label}'"
    return m.placeholder.format(what=what), ["placeholder"]


def _unanswered(f: FormField, r: str | None, m: Material) -> tuple[str, list[str]]:
    if r == "ai" and m.ai:
        return m.ai.strip(), ["ai_disclosure"]
    if f.kind == "input":
        fact = m.facts.value_for(f.label, f"{f.description} {f.placeholder}")
        if fact:
            return fact, ["draft"]
    if f.value:
        filled, done, _ = fill_field_lines(f.value.split("\n"), m.facts.value_for, m.placeholder)
        return "\n".join(filled), ["draft", "template"] if done else ["template"]
    if not f.required:
        return EMPTY, ["empty"]
    if r in HONEST:
        return HONEST[r], ["honest answer"]
    return m.placeholder.format(what=f"answer '{f.label}'"), ["placeholder"]


def _text(
    f: FormField, r: str | None, answer: Answer | None, key: str, keys: list[str], m: Material
) -> tuple[str, list[str]]:
    if f.kind == "checkboxes":
        return _checkboxes(f, answer, key, m)
    if f.kind == "dropdown":
        return _dropdown(f, answer, key, m)
    if answer is not None:
        text = one_text(f, answer, key).strip()
        return (text, ["form_answers"]) if text else (EMPTY, ["form_answers", "empty"])
    if keys == ["environment"] and f.value:  # the form's own list of what to say about the machine
        filled, done, _ = fill_field_lines(f.value.split("\n"), m.facts.value_for, m.placeholder)
        if done:
            return "\n".join(filled), ["draft", "template"]
    if keys:
        return compose(keys, m.contents, f.render), keys
    return _unanswered(f, r, m)


def fill(form: IssueForm, m: Material) -> Filled:
    answers, unused, keys = match_answers(form.fields, m.answers)
    roles = [role(f) for f in form.fields]
    taken = set(answers) | {i for i, f in enumerate(form.fields) if f.kind not in ("textarea", "input")}
    if m.ai:  # the draft's AI disclosure answers the fields that ask about AI use, never our paragraphs
        taken |= {i for i, r in enumerate(roles) if r == "ai"}
    placed, leftover = assign(form.fields, roles, m.contents, taken)
    out: list[str] = []
    fills: list[FieldFill] = []
    for i, f in enumerate(form.fields):
        text, how = _text(f, roles[i], answers.get(i), keys.get(i, ""), placed.get(i, []), m)
        out += [f"### {f.label}", "", text, ""]
        fills.append(
            FieldFill(
                label=f.label,
                id=field_id(f),
                kind=f.kind,
                role=roles[i],
                required=f.required,
                options=f.options,
                filled_with=how,
            )
        )
    if leftover:  # a form with no field to write into: the paragraphs follow it
        out.append(compose(sorted(leftover, key=ORDER.index), m.contents))
    return Filled(body="\n".join(out).strip(), fields=fills, unused_answers=unused)
