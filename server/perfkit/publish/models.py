"""What render_pr returns.

The draft's own model lives in draft_model.py and is imported only when a draft is read, so that
listing the tools stays cheap.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from perfkit.guards.list_caps import ListsCapped
from perfkit.lint.models import Finding


class Placeholder(BaseModel):
    file: Literal["pr", "issue"]
    line: int
    text: str = Field(description="The placeholder as it appears, for example '<share link>'.")


class SkippedHeading(BaseModel):
    heading: str
    line: int = Field(description="Line of the heading in the repo's template file.")
    reason: str


class CheckboxOutcome(BaseModel):
    text: str
    line: int = Field(description="Line of the box in the repo's template file.")
    ticked: bool
    reason: str | None = Field(description="Why it is unticked, when the draft says; null otherwise.")
    note: str | None = Field(None, description="Anything the agent must know: template pre-ticked it, policy box.")
    id: str | None = Field(
        None, description="The box's id, e.g. 'p7.2' (box 2 of part p7): draft.checkboxes accepts it as text."
    )


FilledHow = Literal["answer", "placeholder", "kept", "dropped", "replaced", "pointer", "boxes", "option", "link"]


class TemplatePart(BaseModel):
    """One part of the repo's PR template, as it was read and what was put in its place."""

    id: str = Field(description="Stable for this template: draft.template_answers and draft.checkboxes accept it.")
    kind: str = Field(
        description="heading (a heading or bold label), prompt, checklist, options, link, ai-value, process, "
        "code, details, text or cut."
    )
    role: str | None = Field(
        None,
        description="For headings: question (answer it), process (for reviewers/CI/bots, kept, nothing asked), "
        "covered (our Summary or Speedup Result says it), group (its parts are answered one by one).",
    )
    line: int = Field(description="First line of the part in the template file.")
    heading: str | None = Field(None, description="The heading or label the part sits under.")
    template: str = Field(description="The template's text of the part (shortened).")
    prompt: str | None = Field(None, description="For headings: what the template asks under it, in its words.")
    options: list[str] = Field(default_factory=list, description="For option lists and checklists: the choices.")
    filled: FilledHow = Field(description="What the description has there.")
    value: str | None = Field(None, description="What was put there (shortened), when it is not the template's text.")
    why: str = ""


class PolicyConflict(BaseModel):
    source: str = Field(description="Repo-relative file that states the policy.")
    line: int
    text: str
    why: str


NoteKind = Literal["ai-policy", "sign-off", "title-rule", "pr-rule"]


class RepoNote(BaseModel):
    source: str
    line: int
    kind: NoteKind
    text: str


class TemplateUse(BaseModel):
    path: str | None = Field(description="Repo-relative path of the PR template used; null when the repo has none.")
    candidates: list[str] = Field(default_factory=list, description="Every PR template found.")
    why: str
    kept_headings: list[str] = Field(default_factory=list)
    skipped_headings: list[SkippedHeading] = Field(default_factory=list)
    enforced_headings: list[str] = Field(
        default_factory=list,
        description="Headings the repo's own checks look for in the PR body; kept even when our parts cover them.",
    )
    cut_line: int | None = Field(
        None,
        description="Line of the template that says a bot removes everything below it; the whole description, "
        "Details included, is placed above it.",
    )
    title_rule: str | None = Field(
        None, description="The repo's title rule the title follows, and where it is written."
    )


class FormScore(BaseModel):
    path: str
    name: str
    kind: str = Field(
        description="performance, question, feature, general or bug (chosen in that order); refactor, build, docs, "
        "ci-failure, flaky-test, tracker or security (only when none of those exists); regression (never chosen "
        "unless named: nothing regressed)."
    )
    score: int = Field(description="Higher is preferred; 0 for a form meant for automation or a regression form.")
    reason: str = Field(description="The words that gave the kind, or why the form is meant for automation.")


class UnreadableForm(BaseModel):
    path: str
    error: str = Field(description="The YAML parser's message (with its line), or why the file was not read.")


class FieldFill(BaseModel):
    label: str
    id: str = Field("", description="The key draft.issue.form_answers takes for this field (its label works too).")
    kind: str = Field(description="textarea, input, dropdown, checkboxes, or heading (Markdown template).")
    role: str | None = Field(description="What the field asks for, read from its words; null when they do not say.")
    required: bool = False
    options: list[str] = Field(default_factory=list, description="A dropdown's options or a checkbox field's boxes.")
    filled_with: list[str] = Field(
        description="What went under it: observed, logs_said, pr_note, environment, reproduce, form_answers, "
        "draft (a value the draft states), ai_disclosure, option, honest answer, template, placeholder, or empty."
    )


class IssueFormUse(BaseModel):
    path: str | None = Field(description="Repo-relative path of the issue form or template used; null for none.")
    name: str | None = None
    candidates: list[str] = Field(default_factory=list)
    why: str
    title_prefix: str | None = Field(None, description="The form's own title prefix, kept in the issue title.")
    labels: list[str] = Field(default_factory=list, description="Labels the form applies (for gh issue create).")
    scores: list[FormScore] = Field(default_factory=list, description="Every form read, best first.")
    unreadable: list[UnreadableForm] = Field(
        default_factory=list, description="Forms and templates that could not be read, with the reason."
    )
    fields: list[FieldFill] = Field(default_factory=list, description="What landed under each field of the form.")


class RenderResult(ListsCapped):
    pr_path: str
    issue_path: str
    pr_title: str
    issue_title: str
    placeholders: list[Placeholder] = Field(description="Every <placeholder> left in either file.")
    pr_template: TemplateUse
    repo_commit: str | None = Field(default=None, description="The repo commit whose templates and forms were read.")
    checkboxes: list[CheckboxOutcome] = Field(default_factory=list)
    template_parts: list[TemplatePart] = Field(
        default_factory=list,
        description="Every part of the repo's PR template with its id and kind, what was put there and why; "
        "answer questions by id in draft.template_answers, boxes by id in draft.checkboxes.",
    )
    policy_conflicts: list[PolicyConflict] = Field(default_factory=list)
    repo_notes: list[RepoNote] = Field(
        default_factory=list,
        description="Lines of CONTRIBUTING and the templates on titles, sign-off, AI use and PR rules.",
    )
    issue_form: IssueFormUse
    lint_pr: list[Finding] = Field(default_factory=list, description="lint_wording findings in the description.")
    lint_issue: list[Finding] = Field(default_factory=list, description="lint_wording findings in the issue.")
    lint_skipped: list[str] = Field(default_factory=list, description="Lint rules that did not run, and why.")
    warnings: list[str] = Field(default_factory=list)

    def human(self) -> str:
        lines = [
            f"wrote {self.pr_path}",
            f"  title: {self.pr_title}",
            f"wrote {self.issue_path}",
            f"  title: {self.issue_title}",
        ]
        t = self.pr_template
        at = f" at {self.repo_commit[:12]}" if self.repo_commit else ""
        lines.append(f"repo template: {t.path or 'none'}{at} ({t.why})")
        for s in t.skipped_headings:
            lines.append(f"  skipped '{s.heading}': {s.reason}")
        for h in t.enforced_headings:
            lines.append(f"  kept '{h}': the repo's checks require it; it points to our part")
        for part in self.template_parts:
            if part.filled == "placeholder":
                first = part.template.split("\n", 1)[0][:70]
                lines.append(f"  to answer by id: {part.id} ({part.kind}) {first}")
        if t.cut_line:
            lines.append(f"  line {t.cut_line} says a bot removes what follows: the description ends above it")
        if t.title_rule:
            lines.append(f"  title follows the repo's rule {t.title_rule}")
        lines.append(f"issue form: {self.issue_form.path or 'none'} ({self.issue_form.why})")
        lines += [
            f"  {s.score:>4} {s.path}: {s.reason}" for s in self.issue_form.scores if s.path != self.issue_form.path
        ]
        lines += [f"  not read: {u.path}: {u.error}" for u in self.issue_form.unreadable]
        lines += [  # what the draft could not fill, by the key form_answers takes
            f"  to answer: issue.form_answers['{f.id or f.label}'] ({f.label})"
            for f in self.issue_form.fields
            if "placeholder" in f.filled_with
        ]
        for n in self.repo_notes:
            lines.append(f"repo note ({n.kind}): {n.source}:{n.line}: {n.text}")
        for c in self.policy_conflicts:
            lines.append(f"policy conflict: {c.source}:{c.line}: {c.text} ({c.why})")
        if self.placeholders:
            lines.append(f"{len(self.placeholders)} placeholders left:")
            lines += [f"  {p.file}:{p.line}: {p.text}" for p in self.placeholders]
        for name, found in (("description", self.lint_pr), ("issue", self.lint_issue)):
            lines.append(f"lint {name}: {len(found)} findings")
            lines += [f"  {f.line}:{f.column} {f.rule}: {f.excerpt!r}: {f.fix}" for f in found]
        lines += [f"lint skipped: {s}" for s in self.lint_skipped]
        lines += [f"warning: {w}" for w in self.warnings]
        return "\n".join(lines)
