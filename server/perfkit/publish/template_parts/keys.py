"""The draft's answers and box decisions resolved to template parts: by id, by text, or by a unique part
of the text. Two parts matching one key is the agent's mistake to fix, so it is an error naming both."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from perfkit.errors import InputError
from perfkit.publish.template_parts.kinds import Part
from perfkit.repo.template_text import norm_heading

_ID = re.compile(r"^\s*(p\d+)(?:\.(\d+))?\s*$")


def box_key(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[*_`]", "", text)).strip().lower()


@dataclass
class Resolved:
    answers: dict[str, str | list[str]] = field(default_factory=dict)  # part id (or 'preamble') -> answer
    boxes: dict[tuple[str, int], int] = field(default_factory=dict)  # (part id, box) -> index in draft.checkboxes
    unused_answers: list[str] = field(default_factory=list)
    unused_boxes: list[str] = field(default_factory=list)
    key_of: dict[str, str] = field(default_factory=dict)  # part id -> the draft's own key


def _pick(field_name: str, key: str, hits: list[tuple[str, str]], what: str) -> str | None:
    ids = list(dict.fromkeys(i for i, _ in hits))
    if len(ids) > 1:
        names = "; ".join(f"{i} '{t[:60]}'" for i, t in dict(hits).items())
        raise InputError(
            field_name, f"'{key}' matches {len(ids)} {what}: {names}", "use the part id or more of the text"
        )
    return ids[0] if ids else None


def _heading(parts: list[Part], key: str, field_name: str) -> str | None:
    m = _ID.match(key)
    if m and not m.group(2):
        hit = next((p for p in parts if p.id == m.group(1)), None)
        if hit is None or hit.kind == "heading" or hit.boxes or hit.options:
            return hit.id if hit else None
        return hit.owner or "preamble"  # a prompt or block answers for the heading it sits under
    want = norm_heading(key)
    if not want:
        return None
    heads = [(p.id, p.title or "") for p in parts if p.kind == "heading"]
    exact = [(i, t) for i, t in heads if norm_heading(t) == want]
    if exact:
        return _pick(field_name, key, exact, "headings")
    part = [(i, t) for i, t in heads if len(want) >= 3 and want in norm_heading(t)]
    return _pick(field_name, key, part, "headings")


def _box(parts: list[Part], text: str, field_name: str) -> tuple[str, int] | None:
    m = _ID.match(text)
    if m:
        p = next((p for p in parts if p.id == m.group(1) and p.boxes), None)
        if p is None:
            return None
        if m.group(2) is None:
            if len(p.boxes) != 1:
                raise InputError(
                    field_name, f"'{text}' has {len(p.boxes)} boxes", f"name one: {p.id}.1 to {p.id}.{len(p.boxes)}"
                )
            return p.id, 0
        k = int(m.group(2)) - 1
        return (p.id, k) if 0 <= k < len(p.boxes) else None
    want = box_key(text)
    if not want:
        return None
    boxes = [(f"{p.id}.{b.index + 1}", b.text) for p in parts for b in p.boxes]
    exact = [(i, t) for i, t in boxes if box_key(t) == want]
    hit = _pick(field_name, text, exact, "boxes") if exact else None
    if hit is None and not exact:
        hit = _pick(field_name, text, [(i, t) for i, t in boxes if want in box_key(t)], "boxes")
    if hit is None:
        return None
    pid, idx = hit.split(".")
    return pid, int(idx) - 1


def resolve(parts: list[Part], answers: dict[str, str | list[str]], decisions: list[str]) -> Resolved:
    """Answers keyed by part id, and the box each decision names (by its index in the draft's list)."""
    res = Resolved()
    for key, value in answers.items():
        pid = (
            "preamble" if norm_heading(key) == "preamble" else _heading(parts, key, f"draft.template_answers['{key}']")
        )
        if pid == "preamble":
            res.answers["preamble"] = value
            continue
        if pid is None:
            m = _ID.match(key)
            pid = m.group(1) if m and any(p.id == m.group(1) and (p.boxes or p.options) for p in parts) else None
        if pid is None:
            res.unused_answers.append(key)
        else:
            res.answers[pid] = value
            res.key_of[pid] = key
    for j, text in enumerate(decisions):
        hit = _box(parts, text, f"draft.checkboxes[{j}].text")
        if hit is None:
            res.unused_boxes.append(text)
        else:
            res.boxes[hit] = j
    return res


def pick_options(part: Part, value: str | list[str], field_name: str) -> list[int]:
    """Indexes of a list's options an answer names: by box id ('p7.2'), exact text, or a unique part of it."""
    out: list[int] = []
    for v in [value] if isinstance(value, str) else value:
        m = _ID.match(v)
        if m and m.group(1) == part.id and m.group(2):
            k = int(m.group(2)) - 1
            if 0 <= k < len(part.options):
                out.append(k)
                continue
        want = box_key(v)
        exact = [k for k, o in enumerate(part.options) if box_key(o) == want]
        hits = exact or [k for k, o in enumerate(part.options) if want and want in box_key(o)]
        if len(hits) != 1:
            found = "no option" if not hits else "options " + ", ".join(f"'{part.options[k]}'" for k in hits)
            raise InputError(
                field_name, f"'{v}' matches {found} of {part.id}", "use one of: " + "; ".join(part.options[:20])
            )
        out.append(hits[0])
    return out
