"""Which field gets which of our paragraphs, by the role each field's words give it.

The observation (with its largest cause) goes to the field that asks for the problem or proposal,
or, failing one, to the first free-text field no narrower role claims, else to the reproduction
field (a bug form that asks only for steps and expectations), else to an 'additional context' field;
never to a field shown as code and never to a regression field. A field the draft answers in
form_answers (by id or label) is the draft's: the observation moves to the next field that fits.
What the logs said goes to an 'expected' or 'documentation' field, the pointer to the PR to a field
asking for the solution wanted, else to an 'additional context' field; without those they join the
observation. The environment and the
command go only where a field asks for them: both are in the PR's Details anyway. Logs go nowhere: the draft holds none.
"""

from __future__ import annotations

from perfkit.publish.forms.model import FormField

ORDER = ["observed", "logs_said", "pr_note", "environment", "reproduce"]
_OWN_HOME = {"logs_said": "expected", "pr_note": "context", "environment": "environment", "reproduce": "reproduce"}
# never "regression": nothing regressed, and a maintainer reads that field as "it was faster before"
_FALLBACK_HOMES: list[str | None] = ["problem", None, "reproduce", "context", "expected"]


def _free(fields: list[FormField], taken: set[int]) -> list[int]:
    return [i for i, f in enumerate(fields) if f.kind in ("textarea", "heading") and i not in taken]


def assign(
    fields: list[FormField], roles: list[str | None], contents: dict[str, str], taken: set[int]
) -> tuple[dict[int, list[str]], list[str]]:
    """(field index -> content keys, content keys with no field: they go after the form)."""
    free = _free(fields, taken)
    placed: dict[int, list[str]] = {}

    def first(role: str | None, prose: bool = False) -> int | None:
        return next(
            (i for i in free if roles[i] == role and i not in placed and not (prose and fields[i].render)), None
        )

    home = None
    if contents.get("observed"):  # prose never goes where GitHub shows the answer as code
        home = next((i for r in _FALLBACK_HOMES if (i := first(r, prose=True)) is not None), None)
        if home is not None:
            placed[home] = ["observed"]
    leftover = [] if home is not None or not contents.get("observed") else ["observed"]
    for key, role in _OWN_HOME.items():
        if not contents.get(key):
            continue
        slot = home if key == "reproduce" and home is not None and roles[home] == role else first(role)
        if key == "pr_note" and (wanted := first("solution")) is not None:
            slot = wanted  # the PR is the fix proposed: a field asking for one takes it before 'anything else'
        if slot is not None:
            placed.setdefault(slot, []).append(key)
        elif key in ("logs_said", "pr_note"):
            if home is not None:
                placed[home].append(key)
            else:
                leftover.append(key)
    return placed, leftover
