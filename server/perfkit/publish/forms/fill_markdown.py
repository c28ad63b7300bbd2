"""A Markdown issue template filled in place: its structure stays, our answers replace what it asks.

Every part of the template is accounted for as the PR template's parse reads it
(perfkit.publish.template_parts): headings, checklists, option lists, links, process notes, code
blocks, fields and hidden comments are structure and stay; what asks the author for something
(prompts, example items, the template's own instruction words) is not posted, in the text before
the first heading too. "- GPU model:" style fields get the draft's values, an empty code block gets
the command (or the environment, under an environment heading), and the paragraphs whose meaning
fits a heading follow its structure. A heading left with nothing gets one placeholder.
"""

from __future__ import annotations

from perfkit.publish.forms.assign import ORDER, assign
from perfkit.publish.forms.common import (
    QUIET_ROLES,
    Answer,
    Filled,
    Material,
    box_for,
    compose,
    field_id,
    match_answers,
    one_text,
)
from perfkit.publish.forms.lines import empty_blocks, fill_block, fill_field_lines, is_field
from perfkit.publish.forms.model import FormField, IssueForm
from perfkit.publish.forms.roles import role
from perfkit.publish.models import FieldFill
from perfkit.publish.template_parts.parse import parse
from perfkit.repo.template_text import Section, norm_heading

_NOT_POSTED = ("prompt", "text", "example")


def _instruction_lines(lines: list[str]) -> set[int]:
    """The visible lines that ask the author for something: prompts, example items and the template's
    own words, as the PR template's parse reads them. Hidden comments (nobody sees them) and words
    inside <details> (the template shows them to readers) are structure."""
    out: set[int] = set()
    for part in parse("\n".join(lines)):
        if part.kind in _NOT_POSTED and not part.hidden and not part.in_details:
            out.update(range(part.start, part.start + len(part.lines)))
    return {k for k in out if not is_field(lines[k])}  # a field is answered in place, whatever its label says


def _without(lines: list[str], drop: set[int]) -> list[str]:
    """lines without those in drop, and without the blank line each removed run leaves doubled."""
    out: list[str] = []
    skip_blank = False
    for k, ln in enumerate(lines):
        if k in drop:
            skip_blank = not out or not out[-1].strip()
            continue
        if skip_blank and not ln.strip():
            continue
        skip_blank = False
        out.append(ln)
    while out and not out[-1].strip():
        out.pop()
    return out


def _into_block(body: list[str], keys: list[str], m: Material) -> tuple[list[str], str | None]:
    """The command (or, under an environment heading, the environment) into the first empty code block."""
    blocks = empty_blocks(body)
    key = next((k for k in ("reproduce", "environment") if k in keys), None)
    if not blocks or key is None:
        return body, None
    keys.remove(key)
    return fill_block(body, blocks[0], m.contents[key].strip()), key


def _tick(body: list[str], sec: Section, f: FormField, answer: Answer, key: str) -> tuple[list[str], str | None]:
    """The section's boxes ticked as a list answer names them; a string answer for a checklist is a list of one."""
    boxes = sec.boxes
    if not boxes:
        return body, one_text(f, answer, key)
    box_field = FormField(label=f.label, kind="checkboxes", options=[m.group("text") for _, m in boxes])
    if isinstance(answer, str):  # a sentence for a checklist heading is a paragraph unless it names a box
        said = norm_heading(answer)
        if not any(said and said in norm_heading(o) for o in box_field.options):
            return body, answer
    items = [answer] if isinstance(answer, str) else answer
    out = list(body)
    for item in items:
        k, m = boxes[box_for(box_field, item, key)]
        out[k] = f"{m.group('lead')}x{m.group('close')}{m.group('text')}"
    return out, None


def _section(
    f: FormField, r: str | None, answer: Answer | None, key: str, keys: list[str], m: Material
) -> tuple[list[str], list[str]]:
    sec = f.section or Section(f.label, 2, [f"## {f.label}"], [], 1, 1)
    asks = _instruction_lines(sec.body)
    body, done, left = fill_field_lines(list(sec.body), m.facts.value_for, m.placeholder)
    how = (["draft"] if done else []) + (["placeholder"] if left else [])
    text = None
    if answer is not None:
        body, text = _tick(body, sec, f, answer, key)  # in place: the lines keep their places until asks go
        how.append("form_answers")
    elif r == "ai" and m.ai:
        text = m.ai
        how.append("ai_disclosure")
    body = _without(body, asks)
    keys = list(keys)
    body, block = _into_block(body, keys, m)
    if block:
        how.append(block)
    if done and "environment" in keys:  # the field lines already say it, one value each
        keys.remove("environment")
    paras = ([text.strip()] if text and text.strip() else []) + ([compose(keys, m.contents)] if keys else [])
    how += keys
    if paras:
        body += ["", *paras]
    elif not how and not sec.boxes and r not in QUIET_ROLES:
        body += ["", m.placeholder.format(what=f"answer '{f.label}'")]
        how.append("placeholder")
    return sec.heading_lines + body, how or ["template"]


def fill(form: IssueForm, m: Material) -> Filled:
    answers, unused, answer_keys = match_answers(form.fields, m.answers)
    roles = [role(f) for f in form.fields]
    checklists = {i for i, f in enumerate(form.fields) if f.section is not None and f.section.boxes}
    taken = set(answers) | checklists
    if m.ai:
        taken |= {i for i, r in enumerate(roles) if r == "ai"}
    placed, leftover = assign(form.fields, roles, m.contents, taken)
    out: list[str] = []
    if form.preamble is not None:
        asks = _instruction_lines(form.preamble.body)
        pre, _, _ = fill_field_lines(list(form.preamble.body), m.facts.value_for, m.placeholder)
        pre = _without(pre, asks)
        out += [*pre, ""] if pre else []
    fills: list[FieldFill] = []
    for i, f in enumerate(form.fields):
        lines, how = _section(f, roles[i], answers.get(i), answer_keys.get(i, ""), placed.get(i, []), m)
        out += [*lines, ""]
        boxes = [mm.group("text") for _, mm in f.section.boxes] if f.section is not None else []
        fills.append(
            FieldFill(label=f.label, id=field_id(f), kind=f.kind, role=roles[i], options=boxes, filled_with=how)
        )
    if leftover:
        out.append(compose(sorted(leftover, key=ORDER.index), m.contents))
    return Filled(body="\n".join(out).strip(), fields=fills, unused_answers=unused)
