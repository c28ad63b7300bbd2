"""The draft's answers and box decisions resolved to template parts: by id, by text, or by a unique part
of the text. Two parts matching one key is the agent's mistake to fix, so it is an error naming both."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from perfkit.errors import InputError
from perfkit.publish import meanings
from perfkit.publish.models import AnswerUse
from perfkit.publish.template_parts import words
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
    uses: list[AnswerUse] = field(default_factory=list)  # where each answer landed, in the draft's order


def _pick(field_name: str, key: str, hits: list[tuple[str, str]], what: str) -> str | None:
    ids = list(dict.fromkeys(i for i, _ in hits))
    if len(ids) > 1:
        names = "; ".join(f"{i} '{t[:60]}'" for i, t in dict(hits).items())
        raise InputError(
            field_name, f"'{key}' matches {len(ids)} {what}: {names}", "use the part id or more of the text"
        )
    return ids[0] if ids else None


def _label(p: Part) -> str:
    return (p.title or "") if p.kind == "heading" else (words.field_label(p.lines[0]) or "")


def _heading(parts: list[Part], key: str, field_name: str) -> tuple[str | None, str]:
    """(part id, how) for a key: a part id, a heading's or field's label, or a unique part of one."""
    m = _ID.match(key)
    if m and not m.group(2):
        hit = next((p for p in parts if p.id == m.group(1)), None)
        return (hit.id if hit else None), "id"
    want = norm_heading(key)
    if not want:
        return None, ""
    heads = [(p.id, _label(p)) for p in parts if p.kind in ("heading", "field") and _label(p)]
    exact = [(i, t) for i, t in heads if norm_heading(t) == want]
    if exact:
        return _pick(field_name, key, exact, "headings"), "label"
    part = [(i, t) for i, t in heads if len(want) >= 3 and want in norm_heading(t)]
    return _pick(field_name, key, part, "headings"), "label part"


def _by_meaning(parts: list[Part], key: str, taken: set[str]) -> tuple[str | None, list[str]]:
    """The one open question or field whose meaning is the key's ('Tests' -> 'Test plan'), else candidates."""
    said = meanings.meaning_of(key)
    if said is None:
        return None, []
    hits = [
        p
        for p in parts
        if p.meaning == said and p.id not in taken and (p.kind == "field" or p.role in ("question", "group"))
    ]
    if len(hits) == 1:
        return hits[0].id, []
    return None, [f"{p.id}: {_label(p)}" for p in hits]


def _candidates(parts: list[Part], key: str) -> list[str]:
    """Parts a refused key may have meant: those sharing a word with it, else every question."""
    want = set(norm_heading(key).split())
    asks = [p for p in parts if (p.kind == "heading" and p.role != "process") or p.kind == "field"]
    near = [p for p in asks if want & set(norm_heading(_label(p)).split())]
    return [f"{p.id}: {_label(p)}" for p in (near or asks)][:12]


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
    """Answers keyed by part id, and the box each decision names (by its index in the draft's list).

    A key lands by id, by label, by a unique part of a label, or by meaning; a key that lands nowhere
    is reported with the parts it may have meant. Two keys landing on one part are joined, never one
    dropped, and both are reported."""
    res = Resolved()
    by_id = {p.id: p for p in parts}
    later: list[tuple[str, str | list[str]]] = []
    for key, value in answers.items():
        if norm_heading(key) == "preamble":
            _land(res, "preamble", key, value, "label", None)
            continue
        pid, how = _heading(parts, key, f"draft.template_answers['{key}']")
        if pid is None:
            later.append((key, value))
            continue
        _land(res, pid, key, value, how, by_id[pid])
    explicit = set(res.answers)
    for key, value in later:  # by meaning, only where no key named the part itself
        pid, near = _by_meaning(parts, key, explicit)
        if pid is not None:
            _land(res, pid, key, value, "meaning", by_id[pid])
            continue
        res.unused_answers.append(key)
        said = meanings.meaning_of(key)
        why = (
            f"it means '{said}', which {len(near)} parts ask for: name one by id"
            if near
            else "it matches no heading, label or field of the template"
            + (f", and no open part asks for '{said}'" if said else "")
        )
        res.uses.append(
            AnswerUse(
                key=key,
                landed=None,
                how="refused",
                effect="refused",
                why=why,
                candidates=near or _candidates(parts, key),
            )
        )
    for j, text in enumerate(decisions):
        hit = _box(parts, text, f"draft.checkboxes[{j}].text") or _box_by_meaning(parts, text)
        if hit is None:
            res.unused_boxes.append(text)
        else:
            res.boxes[hit] = j
    return res


def _land(res: Resolved, pid: str, key: str, value: str | list[str], how: str, part: Part | None) -> None:
    heading = (part.title if part is not None and part.kind == "heading" else _label(part) if part else None) or None
    empty = isinstance(value, str) and not value.strip()
    if pid in res.answers:
        first = res.key_of.get(pid, pid)
        old = res.answers[pid]
        if isinstance(old, str) and isinstance(value, str):
            res.answers[pid] = "\n\n".join(x for x in (old.strip(), value.strip()) if x)
        else:
            res.answers[pid] = [
                *([old] if isinstance(old, str) else old),
                *([value] if isinstance(value, str) else value),
            ]
        res.uses.append(
            AnswerUse(
                key=key,
                landed=pid,
                heading=heading,
                how=how,
                effect="joined",
                why=f"'{first}' answers {pid} too: both answers are placed there, in the draft's order; "
                "remove one key if one answer is meant",
            )
        )
        return
    res.answers[pid] = value
    res.key_of[pid] = key
    res.uses.append(
        AnswerUse(
            key=key,
            landed=pid,
            heading=heading,
            how=how,
            effect="removed" if empty else "answered",
            why="an empty answer: the part and its placeholder are removed" if empty else "",
        )
    )


def _box_by_meaning(parts: list[Part], text: str) -> tuple[str, int] | None:
    """A reworded box: the one box of the template that makes the same promise ('read the guide')."""
    said = meanings.box_meaning(text)
    if said is None or _ID.match(text):
        return None
    hits = [(p.id, b.index) for p in parts for b in p.boxes if meanings.box_meaning(b.text) == said]
    return hits[0] if len(hits) == 1 else None


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
