"""What filling a template keeps track of: the output so far, the report of every part, the boxes."""

from __future__ import annotations

from dataclasses import dataclass, field

from perfkit.draft.model import Checkbox
from perfkit.publish.models import CheckboxOutcome, Fate, FilledHow, PolicyConflict, TemplatePart
from perfkit.publish.template_parts import keys
from perfkit.publish.template_parts.kinds import Part

_SHORT = 300


def short(text: str) -> str:
    return text if len(text) <= _SHORT else text[: _SHORT - 3] + "..."


@dataclass
class Filled:
    lines: list[str]
    parts: list[TemplatePart]
    boxes: list[CheckboxOutcome]
    conflicts: list[PolicyConflict]
    kept: list[str]
    skipped: list[tuple[str, int, str]]  # (heading, 1-based line, reason)


@dataclass
class Ctx:
    parts: list[Part]
    res: keys.Resolved
    decisions: list[Checkbox]
    placeholder: str
    issue: str
    enforced: set[str]
    source: str
    offset: int  # template line of parts' line 0, 0-based
    under: dict[str | None, list[Part]] = field(default_factory=dict)  # owner id -> its parts, built once
    carry: bool = False  # a dropped part stood apart: the next one kept does too
    out: list[str] = field(default_factory=list)
    report: list[TemplatePart] = field(default_factory=list)
    boxes: list[CheckboxOutcome] = field(default_factory=list)
    conflicts: list[PolicyConflict] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    skipped: list[tuple[str, int, str]] = field(default_factory=list)
    facts: dict[str, tuple[str, str]] = field(default_factory=dict)  # meaning -> (text, where it comes from)

    def ph(self, what: str) -> str:
        return self.placeholder.format(what=what)

    def emit(self, p: Part, lines: list[str]) -> None:
        if (p.gap or self.carry) and self.out and self.out[-1].strip():
            self.out.append("")
        self.out += lines
        self.carry = False

    def block(self, lines: list[str]) -> None:
        """An answer: its own paragraph."""
        if self.out and self.out[-1].strip():
            self.out.append("")
        self.out += lines
        self.out.append("")

    def line(self, p: Part) -> int:
        return self.offset + p.start + 1


_FATE: dict[str, Fate] = {
    "answer": "filled",
    "fact": "filled",
    "option": "filled",
    "link": "filled",
    "pointer": "filled",
    "replaced": "filled",
    "placeholder": "question",
    "kept": "structure",
    "boxes": "structure",
    "dropped": "instruction",
    "removed": "removed",
}


def fate_of(filled: FilledHow, value: str | None, placeholder: str) -> Fate:
    """Where a part's lines went, from what was put there: a value that is our placeholder is a question."""
    if filled in ("replaced", "answer", "fact") and (value is None or _is_placeholder(value, placeholder)):
        return "question" if value else "instruction"
    return _FATE[filled]


def _is_placeholder(value: str, placeholder: str) -> bool:
    head, _, tail = placeholder.partition("{what}")
    v = value.strip()
    return v.startswith(head) and v.endswith(tail) and "\n" not in v


def rep(
    ctx: Ctx,
    p: Part,
    owner: Part | None,
    filled: FilledHow,
    value: str | None,
    why: str,
    source: str | None = None,
    facts: list[str] | None = None,
) -> TemplatePart:
    return TemplatePart(
        id=p.id,
        kind=p.kind,
        line=ctx.line(p),
        end_line=ctx.line(p) + len(p.lines) - 1,
        heading=owner.title if owner else None,
        heading_id=owner.id if owner else None,
        template=short(p.text),
        options=list(p.options),
        filled=filled,
        value=short(value) if value else None,
        why=why,
        fate=fate_of(filled, value, ctx.placeholder),
        meaning=p.meaning,
        meaning_why=p.meaning_why or None,
        source=source,
        facts=facts or [],
    )
