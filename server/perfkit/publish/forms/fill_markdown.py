"""A Markdown issue template filled in place: its own text stays, our answers go where it asks.

Each heading keeps its lines (prompts, comments, checklists). Its "- GPU model:" style fields get
the draft's values, its empty code block gets the command (or the environment, under an
environment heading), and the paragraphs whose meaning fits the heading follow its text.
"""

from __future__ import annotations

from perfkit.publish.forms.assign import ORDER, assign
from perfkit.publish.forms.common import QUIET_ROLES, Filled, Material, compose, match_answers
from perfkit.publish.forms.lines import empty_blocks, fill_block, fill_field_lines
from perfkit.publish.forms.model import FormField, IssueForm
from perfkit.publish.forms.roles import role
from perfkit.publish.models import FieldFill
from perfkit.templatetext import Section


def _into_block(body: list[str], keys: list[str], m: Material) -> tuple[list[str], str | None]:
    """The command (or, under an environment heading, the environment) into the first empty code block."""
    blocks = empty_blocks(body)
    key = next((k for k in ("reproduce", "environment") if k in keys), None)
    if not blocks or key is None:
        return body, None
    keys.remove(key)
    return fill_block(body, blocks[0], m.contents[key].strip()), key


def _section(
    f: FormField, r: str | None, answer: str | None, keys: list[str], m: Material
) -> tuple[list[str], list[str]]:
    sec = f.section or Section(f.label, 2, [f"## {f.label}"], [], 1, 1)
    body, done, left = fill_field_lines(list(sec.body), m.facts.value_for, m.placeholder)
    how = (["draft"] if done else []) + (["placeholder"] if left else [])
    keys = list(keys)
    body, block = _into_block(body, keys, m)
    if block:
        how.append(block)
    if done and "environment" in keys:  # the field lines already say it, one value each
        keys.remove("environment")
    paras = ([answer.strip()] if answer else []) + ([compose(keys, m.contents)] if keys else [])
    how += (["form_answers"] if answer else []) + keys
    if paras:
        body += ["", *paras]
    elif not how and not sec.boxes and r not in QUIET_ROLES:
        body += ["", m.placeholder.format(what=f"answer '{f.label}'")]
        how.append("placeholder")
    return sec.heading_lines + body, how or ["template"]


def fill(form: IssueForm, m: Material) -> Filled:
    answers, unused = match_answers(form.fields, m.answers)
    roles = [role(f) for f in form.fields]
    checklists = {i for i, f in enumerate(form.fields) if f.section is not None and f.section.boxes}
    placed, leftover = assign(form.fields, roles, m.contents, set(answers) | checklists)
    out: list[str] = []
    if form.preamble is not None:
        pre, _, _ = fill_field_lines(list(form.preamble.body), m.facts.value_for, m.placeholder)
        out += [*pre, ""]
    fills: list[FieldFill] = []
    for i, f in enumerate(form.fields):
        lines, how = _section(f, roles[i], answers.get(i), placed.get(i, []), m)
        out += [*lines, ""]
        fills.append(FieldFill(label=f.label, kind=f.kind, role=roles[i], filled_with=how))
    if leftover:
        out.append(compose(sorted(leftover, key=ORDER.index), m.contents))
    return Filled(body="\n".join(out).strip(), fields=fills, unused_answers=unused)
