"""Option lists and checklists filled: the option the draft backs or names, each box decided on its own."""

from __future__ import annotations

import re
from collections.abc import Callable

from perfkit.publish.models import CheckboxOutcome, FilledHow, PolicyConflict
from perfkit.publish.template_parts import keys, options
from perfkit.publish.template_parts.context import Ctx, rep
from perfkit.publish.template_parts.kinds import Box, Part
from perfkit.repo.template_text import BOX_RE

_POLICY_WHY = (
    "the box asserts the PR is not written with AI or agent help; it stays unticked, so tell the user before they post"
)
_REVIEWER_BOX = re.compile(r"^\W*(?:for )?(?:the )?(?:reviewers?|maintainers?)\b\W", re.I)


def _chosen(ctx: Ctx, p: Part, owner: Part | None) -> tuple[list[int], str]:
    for key in (p.id, owner.id if owner else None):
        if key and key in ctx.res.answers and (key == p.id or owner is not None and _only_list(ctx, owner, p)):
            value = ctx.res.answers.pop(key)
            return keys.pick_options(p, value, f"draft.template_answers['{key}']"), "draft.template_answers"
    return options.backed(p.options) if p.kind == "options" else ([], "")


def _only_list(ctx: Ctx, owner: Part, p: Part) -> bool:
    lists = [q for q in ctx.under.get(owner.id, []) if q.kind == "options"]
    return lists == [p]


def comment_options(ctx: Ctx, p: Part, owner: Part | None) -> None:
    picked, why = _chosen(ctx, p, owner)
    if picked:
        values = [p.options[k] for k in picked]
        slash = all(v.startswith("/") for v in values)
        lines = (
            [p.lines[k] for k in picked]  # bullets: the chosen ones stay, as written
            if not p.hidden
            else values
            if slash
            else [", ".join(values)]
        )
        ctx.emit(p, lines)
        ctx.report.append(rep(ctx, p, owner, "option", "\n".join(lines), why))
        return
    ctx.emit(p, list(p.lines))
    ctx.block([ctx.ph("pick from the options listed above" if p.hidden else "delete the options that do not apply")])
    ctx.report.append(
        rep(ctx, p, owner, "placeholder", None, "no option is backed by the draft; the agent picks one by id")
    )


def boxes(ctx: Ctx, p: Part, owner: Part | None, policy: Callable[[str], bool]) -> None:
    lines = list(p.lines)
    picked, why = _chosen(ctx, p, owner) if p.kind == "options" or p.id in ctx.res.answers else ([], "")
    one_of = p.kind == "options" or why == "draft.template_answers"
    reviewers = owner is not None and owner.role == "process"
    for b in p.boxes:
        _box(ctx, p, b, lines, picked, one_of or reviewers or bool(_REVIEWER_BOX.match(b.text)), policy, why)
    ctx.emit(p, lines)
    if p.kind == "options" and not picked and not any(ctx.res.boxes.get((p.id, b.index)) is not None for b in p.boxes):
        ctx.block([ctx.ph("tick the option that applies")])
        filled: FilledHow = "placeholder"
    else:
        filled = "boxes"
    ctx.report.append(
        rep(
            ctx,
            p,
            owner,
            filled,
            None,
            why
            or ("boxes for the reviewers: left to them" if reviewers else "")
            or ("one to pick" if one_of else "each box decided on its own"),
        )
    )


def _box(
    ctx: Ctx,
    p: Part,
    b: Box,
    lines: list[str],
    picked: list[int],
    quiet: bool,  # no placeholder on an unticked box: one of a list, or a box for the reviewers
    is_policy: Callable[[str], bool],
    why: str,
) -> None:
    k = b.line - p.start
    m = BOX_RE.match(lines[k])
    if m is None:
        return
    j = ctx.res.boxes.get((p.id, b.index))
    d = ctx.decisions[j] if j is not None else None
    tick = d.tick if d else b.index in picked
    reason = d.reason if d else None
    note = None
    if m.group("mark") in "xX" and not tick:
        note = "the template had it ticked; unticked because the draft does not back it"
    line_no = ctx.line(p) + k
    if is_policy(b.text):
        if tick:
            note = "the draft asked to tick it; left unticked: the description is drafted with an agent"
        tick = False
        ctx.conflicts.append(PolicyConflict(source=ctx.source, line=line_no, text=b.text, why=_POLICY_WHY))
    if tick and d is None and picked:
        note = why
    lines[k] = m.group("lead") + ("x" if tick else " ") + m.group("close") + m.group("text")
    end = b.end - p.start
    if not tick and (reason or not quiet):
        lines[end] = lines[end].rstrip() + (
            f" ({reason})" if reason else f" {ctx.ph('tick if true, else say why not')}"
        )
    ctx.boxes.append(
        CheckboxOutcome(
            text=b.text,
            line=line_no,
            ticked=tick,
            reason=reason if not tick else None,
            note=note,
            id=f"{p.id}.{b.index + 1}",
        )
    )
