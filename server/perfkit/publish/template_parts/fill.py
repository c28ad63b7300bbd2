"""Render a parsed template: every part in order, each kept, answered, ticked or replaced by its answer.

Rules, by kind: a question's prompt text is replaced by the answer (or one placeholder) at the place
of its first prompt, so nothing of the prompt stays beside the answer or under the next heading;
process notes, bot blocks and reviewer tags are kept verbatim with nothing under them; a covered
heading goes, with its prompts, unless the repo's checks look for it, then it stays with a one-line
pointer; an option list is answered when the draft backs one option; link lines get the issue.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from perfkit.publish import template_lines as tl
from perfkit.publish.draft_model import Checkbox
from perfkit.publish.models import FilledHow, PolicyConflict, TemplatePart
from perfkit.publish.template_parts import fill_lists, keys, links, roles, words
from perfkit.publish.template_parts.context import Ctx, Filled, rep, short
from perfkit.publish.template_parts.kinds import Part
from perfkit.repo.template_text import norm_heading

_AI_VALUE_WHY = (
    "the template asks whether AI was used; answered YES because an agent drafted this description: "
    "the user confirms before posting"
)
_OURS = {"summary", "speedup result", "correctness verification"}  # our own headings satisfy a check for them
_ISSUE_TITLE = re.compile(
    r"\b(?:issues?|related (?:issues?|prs?|to)|references?|linked|fixes|closes|resolves|tickets?)\b", re.I
)


def fill(
    parts: list[Part],
    res: keys.Resolved,
    decisions: list[Checkbox],
    placeholder: str,
    issue: str,
    enforced: set[str],
    source: str,
    is_policy_box: Callable[[str], bool],
) -> Filled:
    ctx = Ctx(parts, res, decisions, placeholder, issue, enforced, source, 0)
    for p in parts:
        if p.kind != "heading":
            ctx.under.setdefault(p.owner, []).append(p)
    heads = {p.id: p for p in parts if p.kind == "heading"}
    _route_list_answers(ctx, heads, res)
    slots = _slots(parts, heads, res)
    done: set[str] = set()
    for p in parts:
        owner = heads.get(p.owner) if p.owner else None
        if p.kind == "heading":
            if slots.get("preamble") == "end" and "preamble" not in done:
                done.add("preamble")
                _answer_end(ctx)
            _heading(ctx, p, slots)
            continue
        role = owner.role if owner else _preamble_role(parts, p)
        key = owner.id if owner else "preamble"
        if slots.get(key) == p.id and key not in done:
            done.add(key)
            _answer_at(ctx, p, owner, key)
            continue
        _part(ctx, p, owner, role, is_policy_box)
    if slots.get("preamble") == "end" and "preamble" not in done:
        _answer_end(ctx)
    while ctx.out and not ctx.out[-1].strip():
        ctx.out.pop()
    return Filled(ctx.out, ctx.report, ctx.boxes, ctx.conflicts, ctx.kept, ctx.skipped)


def _answer_end(ctx: Ctx) -> None:
    value = ctx.res.answers["preamble"]
    text = value if isinstance(value, str) else "\n".join(f"- {v}" for v in value)
    ctx.block(text.strip().split("\n"))


def _route_list_answers(ctx: Ctx, heads: dict[str, Part], res: keys.Resolved) -> None:
    """An answer keyed by a heading that holds one list and asks nothing else goes to that list."""
    for hid in [k for k in res.answers if k in heads]:
        h = heads[hid]
        if h.role == "question":
            continue
        lists = [p for p in ctx.under.get(hid, []) if p.options or p.boxes]
        if len(lists) == 1 and (isinstance(res.answers[hid], list) or lists[0].kind == "options"):
            res.answers[lists[0].id] = res.answers.pop(hid)


def _preamble_role(parts: list[Part], p: Part) -> str | None:
    return p.role if p.kind == "prompt" else None


def _slots(parts: list[Part], heads: dict[str, Part], res: keys.Resolved) -> dict[str, str]:
    """Where each question's answer goes: an empty code fence under it, else its first prompt, else right
    after the heading (the heading's own id)."""
    slots: dict[str, str] = {}
    for p in parts:
        if p.kind == "heading":
            continue
        key = p.owner or "preamble"
        owner = heads.get(p.owner) if p.owner else None
        asks = (
            (owner.role == "question" or key in res.answers) if owner else (p.role == "question" or key in res.answers)
        )
        if not asks or key in slots and not (p.kind == "code" and _empty_fence(p)):
            continue
        if p.kind == "prompt" or (p.kind == "code" and _empty_fence(p)):
            if owner is None and p.role == "covered" and key not in res.answers:
                continue
            slots[key] = p.id
    for h in heads.values():
        if h.id not in slots and (h.role == "question" or h.id in res.answers) and h.role not in ("covered", "process"):
            slots[h.id] = h.id
    if "preamble" in res.answers and "preamble" not in slots:
        slots["preamble"] = "end"
    return slots


def _empty_fence(p: Part) -> bool:
    return p.kind == "code" and len(p.lines) >= 2 and not any(ln.strip() for ln in p.lines[1:-1])


def _needs_placeholder(h: Part, under: list[Part]) -> bool:
    """A question answered by its own issue link (or AI-use line) needs nothing more from the agent."""
    if h.inline_kind == "link":
        return False
    return not any(p.kind in ("link", "ai-value") for p in under)


def _heading(ctx: Ctx, h: Part, slots: dict[str, str]) -> None:
    title = h.title or ""
    under = ctx.under.get(h.id, [])
    prompt = roles.prompts_of(h, under) or None
    base = dict(id=h.id, kind="heading", role=h.role, line=ctx.line(h), template=short(h.text), prompt=prompt)
    if h.role == "covered":
        pointer = roles.covered_by(title) or roles.SUMMARY_POINTER
        if title in ctx.enforced and norm_heading(title) not in _OURS:
            lines = [
                f"{h.lines[0].split(':')[0]}:" if h.style == "label" and ":" in h.lines[0] else ln for ln in h.lines
            ]
            if h.style == "label":
                lines = [_label_only(h)]
            ctx.emit(h, lines)
            ctx.block([f"See {pointer} above."])
            ctx.kept.append(title)
            ctx.report.append(
                TemplatePart(
                    **base,
                    filled="pointer",
                    value=f"See {pointer} above.",
                    why=f"{h.role_why}; kept because the repo's checks look for this heading in the PR body",
                )
            )
            return
        ctx.skipped.append((title, ctx.line(h), h.role_why))
        if h.id in ctx.res.answers:
            ctx.res.unused_answers.append(h.id)
        ctx.report.append(TemplatePart(**base, filled="dropped", why=f"{h.role_why}; its prompts go with it"))
        return
    ctx.kept.append(title)
    if h.role == "process" and h.id in ctx.res.answers:
        ctx.res.unused_answers.append(h.id)  # nothing is asked under a process note
    if h.style == "label" and h.inline_kind in ("prompt", "link", "ai-value"):
        line = _label_only(h)
        if h.inline_kind == "link":
            m = links.inline_link(h.inline)
            said = re.sub(r"#.*$", f"#{ctx.issue}", m.group(0)) if m else links.fill(h.inline, ctx.issue)
            line = f"{_label_head(h)} {said.strip()}"
        elif h.inline_kind == "ai-value":
            line = tl.ai_value(h.lines[0]) or (line + " " + tl.AI_ANSWER)
            ctx.conflicts.append(
                PolicyConflict(source=ctx.source, line=ctx.line(h), text=h.lines[0].strip(), why=_AI_VALUE_WHY)
            )
        ctx.emit(h, [line])
    else:
        ctx.emit(h, list(h.lines))
    if slots.get(h.id) == h.id:
        value, filled, why = _answer_value(ctx, h, h.id, under)
        if value is not None:
            ctx.block(value.split("\n"))
        ctx.report.append(TemplatePart(**base, filled=filled, value=short(value) if value else None, why=why))
        return
    how: FilledHow = "link" if h.inline_kind == "link" else "kept"
    note = h.role_why
    if h.role == "question" and slots.get(h.id):
        how, note = "kept", "its answer replaces the prompt below it (see the prompt part)"
    ctx.report.append(TemplatePart(**base, filled=how, why=note))


def _label_head(h: Part) -> str:
    """'**Which issue this PR fixes** *(optional, ...)*: fixes #' -> '**Which issue this PR fixes**:'."""
    m = re.match(r"^(\s*(?:[-*+]\s+)?(\*\*|__).+?\2)", h.lines[0])
    head = m.group(1) if m else _label_only(h)
    return head if head.rstrip().endswith(":") else head + ":"


def _label_only(h: Part) -> str:
    """The label line without the template's inline prompt: '**Collection**: [Note which ...]' -> '**Collection**:'."""
    ln = h.lines[0]
    cut = ln.rfind(h.inline) if h.inline else -1
    return ln[:cut].rstrip() if cut > 0 else ln.rstrip()


def _answer_value(ctx: Ctx, h: Part | None, key: str, under: list[Part]) -> tuple[str | None, FilledHow, str]:
    """(text to put, filled, why) for a question or an answered heading."""
    value = ctx.res.answers.get(key)
    if value is not None:
        text = value if isinstance(value, str) else "\n".join(f"- {v}" for v in value)
        return text.strip(), "answer", "draft.template_answers"
    if h is not None and not _needs_placeholder(h, under):
        return None, "link", "its issue link is the answer"
    if h is not None and _ISSUE_TITLE.search(h.title or ""):
        return f"Related to #{ctx.issue}", "link", "it asks for the issue: the companion issue (draft.issue_number)"
    name = (h.title if h else None) or "the template"
    return ctx.ph(f"answer '{name}'"), "placeholder", "the template asks the author; the draft has no answer yet"


def _answer_at(ctx: Ctx, p: Part, owner: Part | None, key: str) -> None:
    under = ctx.under.get(owner.id if owner else None, [])
    value, filled, why = _answer_value(ctx, owner, key, under)
    if p.kind == "code" and _empty_fence(p):
        ctx.emit(p, [p.lines[0], *(value.split("\n") if value else []), p.lines[-1]])
        ctx.report.append(rep(ctx, p, owner, filled, value, f"{why}; written inside the template's block"))
        return
    if value is not None:
        if p.gap and ctx.out and ctx.out[-1].strip():
            ctx.out.append("")
        ctx.block(value.split("\n"))
    ctx.report.append(rep(ctx, p, owner, "replaced", value, f"the prompt is replaced by the answer ({why})"))


def _part(ctx: Ctx, p: Part, owner: Part | None, role: str | None, is_policy_box: Callable[[str], bool]) -> None:
    if p.kind == "prompt":
        if p.hidden and role not in ("question", "covered"):
            ctx.emit(p, list(p.lines))
            ctx.report.append(
                rep(ctx, p, owner, "kept", None, "a comment under a heading that asks nothing: left as it is")
            )
        else:
            ctx.carry = ctx.carry or p.gap > 0 or bool(ctx.out and ctx.out[-1].strip())
            ctx.report.append(rep(ctx, p, owner, "dropped", None, "template prompt text: replaced, never left in"))
        return
    if p.kind == "link":
        line = links.fill(p.lines[0], ctx.issue)
        ctx.emit(p, [line, *p.lines[1:]])
        ctx.report.append(
            rep(ctx, p, owner, "link", line, "the issue this PR goes with (draft.issue_number, else a placeholder)")
        )
        return
    if p.kind == "ai-value":
        found = tl.ai_value(p.lines[0])
        answered = found if found is not None else words.strip_comments(p.text).rstrip() + " " + tl.AI_ANSWER
        ctx.conflicts.append(
            PolicyConflict(source=ctx.source, line=ctx.line(p), text=p.lines[0].strip(), why=_AI_VALUE_WHY)
        )
        ctx.emit(p, [answered])
        ctx.report.append(rep(ctx, p, owner, "answer", answered, _AI_VALUE_WHY))
        return
    if p.kind in ("checklist", "options") and p.boxes:
        fill_lists.boxes(ctx, p, owner, is_policy_box)
        return
    if p.kind == "options":
        fill_lists.comment_options(ctx, p, owner)
        return
    ctx.emit(p, list(p.lines))
    why = {
        "process": "for reviewers, CI or bots: kept verbatim, nothing asked",
        "details": "the template's markup, kept",
        "code": "the template's block, kept",
    }.get(p.kind, "the template's own words, kept")
    ctx.report.append(rep(ctx, p, owner, "kept", None, why))
