"""The companion issue: its title, its three paragraphs, and the repo's issue form they go under.

render_pr calls `render_issue` with the Jinja environment it already built; the paragraphs are
macros of `issue.md.j2`, so their wording lives in the template, not here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from perfkit.markdown.safe import Markdown, one_line
from perfkit.publish import issue_forms
from perfkit.publish.forms.common import Filled
from perfkit.publish.forms.facts import Facts
from perfkit.publish.models import FormScore, IssueFormUse, UnreadableForm

if TYPE_CHECKING:
    from jinja2 import Environment

    from perfkit.benchmark.models import BenchmarkSummary
    from perfkit.draft.model import Draft


def _or(value: str | None, placeholder: str, what: str) -> Markdown:
    """The draft's text (Markdown the agent wrote), or a placeholder for it."""
    return Markdown(value.strip() if value and value.strip() else placeholder.format(what=what))


def issue_title(d: Draft, form: issue_forms.IssueForm | None, placeholder: str) -> Markdown:
    """The draft's title, after the form's own prefix ("[Bug]: ") when the form has one, on one line."""
    title = _or(d.issue.title, placeholder, "what was observed, with the job and the GPU")
    prefix = form.title_prefix if form else ""
    if not prefix.strip() or title.startswith(prefix.strip()):
        return Markdown(one_line(title))
    return Markdown(one_line(prefix + title if prefix.endswith(" ") else f"{prefix} {title}"))


def _facts(d: Draft) -> Facts:
    x = d.details
    return Facts(
        gpu=(d.gpu or "").strip(),
        gpu_count=d.gpu_count,
        world_size=d.world_size,
        hardware=(x.hardware or "").strip(),
        model=(x.model or "").strip(),
        job=(d.job or "").strip(),
        command=(x.command_baseline or "").strip(),  # upstream runs the baseline; the PR's options may not exist yet
        details="\n".join(t.strip() for t in (x.setup or "", *x.shared_settings) if t.strip()),
    )


def _use(choice: issue_forms.Choice, filled: Filled | None) -> IssueFormUse:
    form = choice.form
    return IssueFormUse(
        path=form.path if form else None,
        name=form.name if form else None,
        candidates=choice.candidates,
        why=choice.why,
        title_prefix=(form.title_prefix.strip() or None) if form else None,
        labels=form.labels if form else [],
        scores=[
            FormScore(path=s.form.path, name=s.form.name, kind=s.kind, score=s.score, reason=s.reason)
            for s in choice.scores
        ],
        unreadable=[UnreadableForm(path=u.path, error=u.error) for u in choice.unreadable],
        fields=filled.fields if filled else [],
    )


def render_issue(
    env: Environment,
    d: Draft,
    b: BenchmarkSummary,
    choice: issue_forms.Choice,
    hardware: str,
    placeholder: str,
) -> tuple[str, IssueFormUse, list[str]]:
    """(the issue's text, which form was used and how, warnings)."""
    from perfkit.publish import cells

    i = d.issue
    view: dict[str, Any] = {
        "title": issue_title(d, choice.form, placeholder),
        "hardware": hardware,
        "unit": d.unit,
        "cause": cells.cause(b, d),
        "issue": {
            "observed": _or(
                i.observed, placeholder, "what you ran, and the largest cause the profile showed, with its file"
            ),
            "logs_said": _or(
                i.logs_said,
                placeholder,
                "what the logs or docs said at the time, and the one line that would have saved the profile",
            ),
            "pr": (i.pr or "").strip().lstrip("#") or Markdown(placeholder.format(what="PR")),
        },
        "form_body": None,
    }
    tpl = env.get_template("issue.md.j2")
    filled = None
    warnings = list(choice.warnings)
    if choice.form is not None:
        mod: Any = tpl.make_module(vars=view)  # the template's macros are attributes Jinja adds at run time
        contents = {"observed": str(mod.observed()), "logs_said": str(mod.logs_said()), "pr_note": str(mod.pr_note())}
        if d.details.hardware:
            contents["environment"] = d.details.hardware.strip()
        if d.details.command_baseline:  # the issue reproduces what upstream runs, not the PR's command
            contents["reproduce"] = d.details.command_baseline.strip()
        material = issue_forms.Material(contents, i.form_answers, _facts(d), placeholder, d.ai_disclosure or "")
        filled = issue_forms.fill(choice.form, material)
        warnings += [
            f"draft.issue.form_answers['{k}'] matches no field of {choice.form.path}" for k in filled.unused_answers
        ]
        view["form_body"] = Markdown(filled.body)  # the repo's form with the draft's text and ours in it
    return tpl.render(**view), _use(choice, filled), warnings
