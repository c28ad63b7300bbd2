"""One list of everything still open after a render, so the agent's loop has an end it can see.

Every placeholder in either file, every kept template line that is not structure (lint's
`template-text` finding), every box not ticked, every answer that landed nowhere, and every repo rule
to follow before posting, each with the id to answer it by and what to do. An item is deliberate when
the agent handed it to the user on purpose (draft.hand_over), when only the user can do it (the issue
and PR numbers, a share link, a sign-off, a label), or when an unticked box carries its reason. The
loop stops when every item is deliberate and lint is clean.
"""

from __future__ import annotations

import re

from perfkit.publish.models import AnswerUse, CheckboxOutcome, LeftItem, Placeholder, RepoNote, TemplatePart

# placeholders only the user can fill, after posting or sharing
_AFTER_POSTING = re.compile(r"^<(?:issue|PR|share link)>$|^#<(?:issue|PR)>$")
_BOX_PH = "<tick if true, else say why not>"
_RULE_DO = {
    "sign-off": "sign each commit off (`git commit -s`) before pushing",
    "title-rule": "the title follows it (check pr_title)",
    "ai-policy": "follow it: disclose or confirm as it asks, before posting",
    "pr-rule": "make the description meet it",
}


def build(
    placeholders: list[Placeholder],
    parts: list[TemplatePart],
    boxes: list[CheckboxOutcome],
    uses: list[AnswerUse],
    notes: list[RepoNote],
    template_text: list[tuple[int, str]],
    hand_over: dict[str, str],
    disclosure: str | None,
    title: str = "",
) -> list[LeftItem]:
    """The list, in the order the agent works through it: answers, questions, boxes, text, rules."""
    out: list[LeftItem] = []
    for u in uses:
        if u.effect == "refused":
            out.append(
                LeftItem(
                    kind="answer",
                    text=f"template_answers['{u.key}'] was not placed: {u.why}",
                    do="key it by one of: " + "; ".join(u.candidates) if u.candidates else "remove the key",
                    deliberate=False,
                )
            )
    heads = {p.id: p for p in parts if p.kind == "heading"}
    by_value: dict[str, TemplatePart] = {}
    for p in parts:
        if p.fate == "question" and p.value:
            by_value.setdefault(p.value.strip(), p)
    for ph in placeholders:
        if ph.text == _BOX_PH:
            continue  # listed with its box below
        part = by_value.get(ph.text) if ph.file == "pr" else None
        # a prompt's placeholder is answered by its heading: name the heading, its meaning and its prompt
        asked = heads.get(part.heading_id or "") if part and part.kind != "field" and part.heading_id else part
        asked = asked or part
        note = _handed(hand_over, asked.id if asked else None, ph.text) or (
            _handed(hand_over, part.id, ph.text) if part else None
        )
        after = bool(_AFTER_POSTING.match(ph.text))
        out.append(
            LeftItem(
                kind="placeholder",
                file=ph.file,
                line=ph.line,
                id=asked.id if asked else None,
                meaning=asked.meaning if asked else None,
                prompt=(asked.prompt or None) if asked else None,
                text=ph.text,
                do=note or ("filled after posting: the user replaces it" if after else _ask(asked, ph.text)),
                deliberate=bool(note) or after,
            )
        )
    for line, text in template_text:
        out.append(
            LeftItem(
                kind="template-text",
                line=line,
                text=text[:200],
                do="the template's own instruction or example: remove it, or answer its part by id",
                deliberate=bool(_handed(hand_over, None, text)),
            )
        )
    for b in boxes:
        if b.ticked:
            continue
        note = _handed(hand_over, b.id, b.text)
        out.append(
            LeftItem(
                kind="box",
                id=b.id,
                text=b.text,
                do=note
                or (f"left unticked: {b.reason}" if b.reason else "tick it if true, else give the reason")
                + (f" ({b.note})" if b.note else ""),
                deliberate=bool(note or b.reason),
            )
        )
    for n in notes:
        where = f"{n.source}:{n.line}: {n.text}"
        if asks_disclosure(n) and not disclosure:
            out.append(
                LeftItem(
                    kind="rule",
                    file="repo",
                    line=n.line,
                    text=where,
                    do="set draft.ai_disclosure in the user's words; render places it where the rule says",
                    deliberate=not n.required,
                )
            )
            continue
        out.append(LeftItem(kind="rule", file="repo", line=n.line, text=where, do=_rule_do(n, title), deliberate=True))
    return out


_DISCLOSE = re.compile(r"\b(?:disclos\w*|declar\w*|state|mention|note|say|include)\b", re.I)


def asks_disclosure(note: RepoNote) -> bool:
    """An AI rule that wants a statement in the PR description."""
    if note.kind != "ai-policy":
        return False
    where = getattr(note.params, "where", [])
    return "pr-description" in where or (not where and bool(_DISCLOSE.search(note.text)))


def _rule_do(n: RepoNote, title: str) -> str:
    """What following a rule takes, with the exact text the rule gives (labels, prefixes, commands)."""
    p = n.params
    if n.kind == "labels" and p.labels:
        how = {"all": "all of", "one-of": "one of", "any": "at least one of"}.get(p.labels_mode or "", "")
        return f"add the label(s), {how} ".replace(",  ", ", ") + ", ".join(f"'{x}'" for x in p.labels)
    if n.kind == "title-rule" and title:
        allowed = f" (allowed prefixes: {', '.join(p.prefixes)})" if p.prefixes else ""
        return f"the title follows it; post it as: {title}{allowed}"
    if n.action:
        return n.action
    if p.commands:
        return "run: " + "; ".join(p.commands)
    return _RULE_DO.get(n.kind, "follow it before posting")


def _handed(hand_over: dict[str, str], pid: str | None, text: str) -> str | None:
    for key, note in hand_over.items():
        k = key.strip()
        if (pid and k == pid) or (k and k == text.strip()):
            return f"handed to the user: {note}" if note else "handed to the user"
    return None


def _ask(part: TemplatePart | None, text: str) -> str:
    if part is None:
        return "replace it with the draft's words, or hand it over (draft.hand_over)"
    asked = f" ('{part.prompt[:120]}')" if part.prompt else ""
    return f"answer template_answers['{part.id}']{asked}, remove it with an empty answer, or hand it over"
