"""The repo's PR template merged after our own parts, from the structure parsed once at load.

The template's text is data: each part is copied line for line, answered, ticked or replaced by its
answer (template_parts/fill.py says how, per kind), and never passed through a template engine, so
a repo whose template shows `{{ }}` or `{% %}` gets those characters back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from perfkit.draft.model import Checkbox
from perfkit.publish.models import AnswerUse, CheckboxOutcome, PolicyConflict, SkippedHeading, TemplatePart
from perfkit.publish.repo_template import RepoTemplate, is_policy_box
from perfkit.publish.template_parts import fill, keys

ISSUE_PLACEHOLDER = "<issue>"


@dataclass
class Merged:
    lines: list[str]
    kept: list[str]
    skipped: list[SkippedHeading]
    boxes: list[CheckboxOutcome]
    conflicts: list[PolicyConflict]
    unused_answers: list[str]
    unused_boxes: list[str]
    parts: list[TemplatePart] = field(default_factory=list)
    enforced: dict[str, str] = field(default_factory=dict)
    uses: list[AnswerUse] = field(default_factory=list)


def merge(
    tpl: RepoTemplate,
    answers: dict[str, str | list[str]] | dict[str, str],
    decisions: list[Checkbox],
    placeholder: str,
    issue: str | None = None,
    enforced: dict[str, str] | None = None,
    facts: dict[str, tuple[str, str]] | None = None,
) -> Merged:
    """The template's parts in order, with the draft's answers and box decisions applied."""
    enforced = enforced or {}
    res = keys.resolve(tpl.parts, dict(answers), [d.text for d in decisions])
    done = fill.fill(
        tpl.parts,
        res,
        decisions,
        placeholder,
        issue or ISSUE_PLACEHOLDER,
        set(enforced),
        tpl.path or "",
        is_policy_box,
        facts,
    )
    skipped = [SkippedHeading(heading=h, line=n, reason=r) for h, n, r in done.skipped]
    unused = list(dict.fromkeys(res.key_of.get(k, k) for k in res.unused_answers))
    return Merged(
        done.lines,
        done.kept,
        skipped,
        done.boxes,
        done.conflicts,
        unused,
        res.unused_boxes,
        done.parts,
        enforced,
        res.uses,
    )
