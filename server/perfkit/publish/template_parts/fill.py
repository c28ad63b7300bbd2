"""Render a parsed template: every part in order, each kept, answered, ticked or replaced by its answer.

Rules, by kind: a question's prompt text is replaced by the answer (or one placeholder) at the place
of its first prompt, so nothing of the prompt stays beside the answer or under the next heading;
process notes, bot blocks and reviewer tags are kept verbatim with nothing under them; a covered
heading stays (reviewers and CI checks look for the repo's headings) with a one-line pointer to our
part; an option list is answered when the draft backs one option; link lines get the issue.

Closed world: every part ends as structure (kept as written), filled (an answer, a fact, the data),
an open question (one placeholder, listed) or instruction (the template's words to the author and its
examples, never posted). Whatever the parse could not call structure is instruction.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from perfkit.draft.model import Checkbox
from perfkit.markdown import html
from perfkit.publish import template_lines as tl
from perfkit.publish.models import FilledHow, PolicyConflict, TemplatePart
from perfkit.publish.template_parts import fill_lists, keys, links, roles, words
from perfkit.publish.template_parts.context import Ctx, Filled, rep
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
    facts: dict[str, tuple[str, str]] | None = None,
) -> Filled:
    ctx = Ctx(parts, res, decisions, placeholder, issue, enforced, source, 0)
    ctx.facts = facts or {}
    for p in parts:
        if p.kind != "heading":
            ctx.under.setdefault(p.owner, []).append(p)
    heads = {p.id: p for p in parts if p.kind == "heading"}
    _route_list_answers(ctx, heads, res)
    _route_prompt_answers(ctx, heads, res)
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


def _route_prompt_answers(ctx: Ctx, heads: dict[str, Part], res: keys.Resolved) -> None:
    """An answer keyed by a prompt's id answers the question it sits under (the prompt is its place)."""
    by_id = {p.id: p for p in ctx.parts}
    for pid in [k for k in res.answers if k in by_id and by_id[k].kind in ("prompt", "text", "example", "code")]:
        p = by_id[pid]
        owner = heads.get(p.owner) if p.owner else None
        asks = owner.role == "question" if owner else p.role == "question"
        if p.kind == "code" and not _empty_fence(p):
            continue
        if p.kind != "prompt" and not asks:
            continue
        key = owner.id if owner else "preamble"
        value = res.answers.pop(pid)
        if key in res.answers and isinstance(value, str) and isinstance(res.answers[key], str):
            res.answers[key] = f"{str(res.answers[key]).strip()}\n\n{value.strip()}".strip()
        else:
            res.answers[key] = value
        res.key_of.setdefault(key, res.key_of.get(pid, pid))


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
        place = p.kind == "prompt" or (p.kind in ("text", "example") and roles.asks(p))
        if place or (p.kind == "code" and _empty_fence(p)):
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


def _head_rep(
    ctx: Ctx,
    h: Part,
    filled: FilledHow,
    value: str | None,
    why: str,
    source: str | None = None,
    facts: list[str] | None = None,
) -> TemplatePart:
    t = rep(ctx, h, None, filled, value, why, source, facts)
    t.role = h.role
    t.prompt = roles.prompts_of(h, ctx.under.get(h.id, [])) or None
    return t


def _heading(ctx: Ctx, h: Part, slots: dict[str, str]) -> None:
    title = h.title or ""
    under = ctx.under.get(h.id, [])
    if h.role == "covered":
        pointer = roles.covered_by(title) or (roles.RESULT_POINTER if h.meaning == "results" else roles.SUMMARY_POINTER)
        if norm_heading(title) in _OURS:
            ctx.skipped.append((title, ctx.line(h), f"{h.role_why}: our own heading of that name is there"))
            if h.id in ctx.res.answers:
                ctx.res.unused_answers.append(h.id)
            ctx.report.append(
                _head_rep(ctx, h, "dropped", None, f"{h.role_why}; our own '{title}' heading stands for it")
            )
            return
        lines = [_label_only(h)] if h.style == "label" else list(h.lines)
        ctx.emit(h, lines)
        ctx.kept.append(title)
        answer = ctx.res.answers.get(h.id)
        if answer is not None:
            text = answer if isinstance(answer, str) else "\n".join(f"- {v}" for v in answer)
            if text.strip():
                ctx.block(text.strip().split("\n"))
            how: FilledHow = "answer" if text.strip() else "removed"
            ctx.report.append(_head_rep(ctx, h, how, text.strip() or None, "draft.template_answers", "draft"))
            return
        said = f"See {pointer} above."
        ctx.block([said])
        checked = "; the repo's checks look for this heading in the PR body" if title in ctx.enforced else ""
        ctx.report.append(
            _head_rep(
                ctx, h, "pointer", said, f"{h.role_why}: the heading stays, pointing to our part{checked}", "ours"
            )
        )
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
        value, filled, why, source, facts = _answer_value(ctx, h, h.id, under)
        if value:
            ctx.block(value.split("\n"))
        ctx.report.append(_head_rep(ctx, h, filled, value, why, source, facts))
        return
    how = "link" if h.inline_kind == "link" else "kept"
    note = h.role_why
    if h.role == "question" and slots.get(h.id):
        how, note = "kept", "its answer replaces the prompt below it (see the prompt part)"
    ctx.report.append(_head_rep(ctx, h, how, None, note))


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


def _answer_value(
    ctx: Ctx, h: Part | None, key: str, under: list[Part]
) -> tuple[str | None, FilledHow, str, str | None, list[str]]:
    """(text to put, filled, why, source, facts) for a question or an answered heading."""
    value = ctx.res.answers.get(key)
    if value is not None:
        text = value if isinstance(value, str) else "\n".join(f"- {v}" for v in value)
        if not text.strip():
            return None, "removed", "an empty answer in draft.template_answers: no placeholder", "draft", []
        return (
            text.strip(),
            "answer",
            "draft.template_answers",
            f"draft.template_answers['{ctx.res.key_of.get(key, key)}']",
            [],
        )
    if h is not None and not _needs_placeholder(h, under):
        return None, "link", "its issue link is the answer", None, []
    if h is not None and (_ISSUE_TITLE.search(h.title or "") or h.meaning == "related-issues"):
        return (
            f"Related to #{ctx.issue}",
            "link",
            "it asks for the issue: the companion issue (draft.issue_number)",
            "draft.issue_number",
            [],
        )
    fact = ctx.facts.get(h.meaning or "") if h is not None else None
    if fact is not None and h is not None and h.meaning in _FACT_FILLS:
        return fact[0], "fact", f"it asks for {h.meaning} ({h.meaning_why}): {fact[1]}", fact[1], []
    name = (h.title if h else None) or "the template"
    known = [f"{m}: {t[:160]} ({src})" for m, (t, src) in ctx.facts.items() if h is not None and m == h.meaning]
    return (
        ctx.ph(f"answer '{name}'"),
        "placeholder",
        "the template asks the author; the draft has no answer yet",
        None,
        known,
    )


# meanings a fact answers whole, as a heading's answer (tests and user impact need the author's words)
_FACT_FILLS = {"hardware", "model", "software", "reproduction", "alternatives"}


def _answer_at(ctx: Ctx, p: Part, owner: Part | None, key: str) -> None:
    under = ctx.under.get(owner.id if owner else None, [])
    value, filled, why, source, facts = _answer_value(ctx, owner, key, under)
    if p.kind == "code" and _empty_fence(p):
        ctx.emit(p, [p.lines[0], *(value.split("\n") if value else []), p.lines[-1]])
        ctx.report.append(
            rep(ctx, p, owner, filled, value, f"{why}; written inside the template's block", source, facts)
        )
        return
    if value:
        if p.gap and ctx.out and ctx.out[-1].strip():
            ctx.out.append("")
        ctx.block(value.split("\n"))
    how: FilledHow = "removed" if filled == "removed" else "replaced"
    ctx.report.append(
        rep(ctx, p, owner, how, value, f"the template's prompt, replaced by the answer ({why})", source, facts)
    )


_KEEP_MARK = re.compile(r"\b(?:do not|don't|please don't|never) (?:remove|delete|edit|change)\b|\bkeep this\b", re.I)


def _inside(text: str) -> str:
    """A comment's words, markers dropped."""
    return text.replace("<!--", " ").replace("-->", " ")


def _own_answer(ctx: Ctx, p: Part, owner: Part | None) -> bool:
    """The draft answered this very part by its id: its text is replaced by the answer, or removed."""
    value = ctx.res.answers.get(p.id)
    if value is None or (p.kind in ("checklist", "options") and not (isinstance(value, str) and not value.strip())):
        return False
    ctx.res.answers.pop(p.id)
    text = (value if isinstance(value, str) else "\n".join(f"- {v}" for v in value)).strip()
    key = ctx.res.key_of.get(p.id, p.id)
    if not text:
        ctx.carry = ctx.carry or p.gap > 0
        ctx.report.append(
            rep(ctx, p, owner, "removed", None, f"removed by the empty answer draft.template_answers['{key}']", "draft")
        )
        return True
    ctx.emit(p, text.split("\n"))
    ctx.report.append(
        rep(ctx, p, owner, "answer", text, "replaced by the draft's answer", f"draft.template_answers['{key}']")
    )
    return True


def _part(ctx: Ctx, p: Part, owner: Part | None, role: str | None, is_policy_box: Callable[[str], bool]) -> None:
    if _own_answer(ctx, p, owner):
        return
    if p.kind == "prompt" and p.hidden and role not in ("question", "covered"):
        keep = (
            "a marker the template asks to keep"
            if _KEEP_MARK.search(p.text)
            else "a note for reviewers, CI or bots"
            if role == "process" or (not words.is_instruction(_inside(p.text)) and words.is_process(_inside(p.text)))
            else None
        )
        if keep:
            ctx.emit(p, list(p.lines))
            ctx.report.append(rep(ctx, p, owner, "kept", None, f"{keep} (invisible on GitHub): kept as written"))
            return
    if (p.kind in ("text", "example") and (p.in_details or (role == "process" and p.kind == "text"))) or (
        p.lead and not p.hidden
    ):
        ctx.emit(p, list(p.lines))
        why = (
            "belongs to the boxes it leads or explains"
            if p.lead
            else "for reviewers, CI or bots"
            if role == "process"
            else "the template's collapsed notes"
        )
        ctx.report.append(rep(ctx, p, owner, "kept", None, f"{why}: kept as written"))
        return
    if p.kind in ("prompt", "text", "example"):
        ctx.carry = ctx.carry or p.gap > 0 or bool(ctx.out and ctx.out[-1].strip())
        what = {"example": "the template's example", "text": "the template's words to the author"}.get(
            p.kind, "the template's instruction"
        )
        ctx.report.append(rep(ctx, p, owner, "dropped", None, f"{what}: never posted (answer or remove it by id)"))
        return
    if p.kind == "field":
        _field(ctx, p, owner)
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
        answered = found if found is not None else html.strip_comments(p.text).rstrip() + " " + tl.AI_ANSWER
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


def _field(ctx: Ctx, p: Part, owner: Part | None) -> None:
    """'Device: <BLANK>': the label kept, the value from the draft's facts by meaning, else a placeholder."""
    label = words.field_label(p.lines[0]) or p.lines[0].strip()
    head = p.lines[0][: p.lines[0].index(":") + 1] if ":" in p.lines[0] else p.lines[0]
    fact = ctx.facts.get(p.meaning or "")
    if fact is not None and "\n" not in fact[0]:
        ctx.emit(p, [f"{head} {fact[0]}"])
        ctx.report.append(rep(ctx, p, owner, "fact", fact[0], f"it asks for {p.meaning} ({p.meaning_why})", fact[1]))
        return
    ph = ctx.ph(label)
    ctx.emit(p, [f"{head} {ph}"])
    known = [f"{m}: {t[:160]} ({src})" for m, (t, src) in ctx.facts.items() if m == p.meaning]
    why = f"it asks for {p.meaning}; the draft does not say" if p.meaning else "no meaning read from its label"
    ctx.report.append(rep(ctx, p, owner, "placeholder", ph, why, None, known))
