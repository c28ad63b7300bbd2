"""What render_pr returns. The draft it takes is perfkit.draft's model."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from perfkit.base_model import Model
from perfkit.guards.list_caps import ListsCapped
from perfkit.lint.models import Finding


class Placeholder(Model):
    file: Literal["pr", "issue"]
    line: int
    text: str = Field(description="The placeholder as it appears, for example '<share link>'.")


class SkippedHeading(Model):
    heading: str
    line: int = Field(description="Line of the heading in the repo's template file.")
    reason: str


class CheckboxOutcome(Model):
    text: str
    line: int = Field(description="Line of the box in the repo's template file.")
    ticked: bool
    reason: str | None = Field(description="Why it is unticked, when the draft says; null otherwise.")
    note: str | None = Field(None, description="Anything the agent must know: template pre-ticked it, policy box.")
    id: str | None = Field(
        None, description="The box's id, e.g. 'p7.2' (box 2 of part p7): draft.checkboxes accepts it as text."
    )


FilledHow = Literal[
    "answer", "placeholder", "kept", "dropped", "replaced", "pointer", "boxes", "option", "link", "fact", "removed"
]
Fate = Literal["structure", "filled", "question", "instruction", "removed"]


class TemplatePart(Model):
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
    heading_id: str | None = Field(None, description="The id of that heading or label.")
    template: str = Field(description="The template's text of the part (shortened).")
    prompt: str | None = Field(None, description="For headings: what the template asks under it, in its words.")
    options: list[str] = Field(default_factory=list, description="For option lists and checklists: the choices.")
    filled: FilledHow = Field(description="What the description has there.")
    value: str | None = Field(None, description="What was put there (shortened), when it is not the template's text.")
    why: str = ""
    fate: Fate = Field(
        "structure",
        description="Where the part's lines went: structure (kept as written: heading, box, link line, process or "
        "legal note, code), filled (with the answer, a fact or the data), question (open: a placeholder is listed "
        "in left_for_human), instruction (the template's instruction or example: never posted), removed (by the "
        "draft's empty answer).",
    )
    end_line: int | None = Field(None, description="Last line of the part in the template file.")
    meaning: str | None = Field(
        None,
        description="What the heading, label or field asks for: motivation, changes, tests, results, user-impact, "
        "hardware, model, software, reproduction, alternatives, related-issues, checklist; null when its words "
        "do not say.",
    )
    meaning_why: str | None = Field(None, description="The words that gave the meaning (label, prompt).")
    source: str | None = Field(
        None, description="Where a filled value came from: the draft key, draft.details.hardware, the data."
    )
    facts: list[str] = Field(
        default_factory=list, description="For an open question: what perfkit knows that may answer it."
    )


class AnswerUse(Model):
    """Where one of the draft's template_answers landed, or why it did not."""

    key: str = Field(description="The key as the draft wrote it.")
    landed: str | None = Field(description="The part id it answers; null when it was not placed.")
    heading: str | None = Field(None, description="The heading or label of that part.")
    how: str = Field(description="id, label, label part, meaning, or refused.")
    effect: str = Field(description="answered, removed (an empty answer), joined (two answers share it), refused.")
    why: str = ""
    candidates: list[str] = Field(
        default_factory=list, description="When refused: the parts it might have meant, as 'id: heading'."
    )


class LeftItem(Model):
    """One thing the human (or the agent, on their behalf) still has to do before posting."""

    kind: Literal["placeholder", "template-text", "box", "rule", "answer"] = Field(
        description="placeholder (a <...> left in a file), template-text (a kept template line that is not "
        "structure), box (a box not ticked), rule (a repo rule to follow before posting), answer (an answer "
        "that was not placed)."
    )
    file: Literal["pr", "issue", "repo"] = "pr"
    line: int | None = Field(None, description="Line in the rendered file, or in the repo's file for a rule.")
    id: str | None = Field(None, description="The template part or box id to answer it by, when there is one.")
    meaning: str | None = Field(None, description="What the part asks for (the field vocabulary), when known.")
    prompt: str | None = Field(None, description="The template's own words asking for it.")
    text: str
    do: str = Field(description="What to do: the answer asked for, or the exact text the rule wants.")
    deliberate: bool = Field(
        False,
        description="True when it is the user's on purpose: handed over in draft.hand_over, filled only after "
        "posting (issue and PR numbers, share links), a box left unticked with its reason, a rule the user follows.",
    )


class PolicyConflict(Model):
    source: str = Field(description="Repo-relative file that states the policy.")
    line: int
    text: str
    why: str


NoteKind = Literal["ai-policy", "sign-off", "cla", "title-rule", "labels", "tests", "pr-rule"]
Where = Literal[
    "pr-description", "pr-template", "pr-title", "pr-label", "pr-comment", "commit-message", "commit-trailer"
]


class RuleParams(Model):
    """What an agent needs to follow one rule, read from its sentence, the lines under it, or the check.

    Every field is empty unless the repo wrote it; values are copied exactly as the repo writes them.
    - prefixes: title rules: the allowed title prefixes ("[Bugfix]", "[Kernel]"), for "use one of ..." lists.
    - pattern: title rules: the title pattern as written ("[{modules}] {type}: {description}").
    - slots: title rules: each slot of the pattern with the values the repo lists for it
      ({"type": ["feat", "fix"]}).
    - closed: true when the values are the only ones allowed ("one of", "must", a CI check), false when
      they are examples ("e.g.", "such as"), null when the text does not say.
    - labels, labels_mode: labels rules: the label names, and whether the PR needs all of them ("all"),
      exactly one ("one-of") or at least one ("any"); null when the text does not say.
    - where: AI disclosure and sign-off: where the statement goes (PR description, commit trailer, ...).
    - trailer: the commit trailer the rule names ("Signed-off-by", "Assisted-by", "Co-authored-by").
    - names_tool: AI disclosure: the disclosure must name the tool or model used.
    - commands: commands the rule gives (`git commit -s`, `make test`, `pre-commit run --all-files`).
    - checked_by: the workflow or script that checks the rule on every PR, when one does.
    """

    prefixes: list[str] = Field(default_factory=list)
    pattern: str | None = None
    slots: dict[str, list[str]] = Field(default_factory=dict)
    closed: bool | None = None
    labels: list[str] = Field(default_factory=list)
    labels_mode: Literal["all", "one-of", "any"] | None = None
    where: list[Where] = Field(default_factory=list)
    trailer: str | None = None
    names_tool: bool = False
    commands: list[str] = Field(default_factory=list)
    checked_by: str | None = None


class RepoRule(Model):
    """One rule of the target repo for contributors, found where it is written (perfkit.publish.repo_notes).

    - kind: ai-policy (AI use and disclosure), sign-off (DCO, `git commit -s`), cla (a contributor license
      agreement to sign), title-rule (the PR title's form), labels (labels the PR must carry), tests
      (tests to add or run before posting), pr-rule (another rule on what a PR holds or how it is opened).
    - source, line: the file and the 1-based line the sentence starts on (for a check, the line of the
      list or pattern it checks against).
    - text: the sentence as the repo wrote it (quoted data, cut at 300 characters).
    - via: how the file was reached from a start file (CONTRIBUTING, an AI policy, an agent file, the PR
      template, the README's contributing section): each link as 'FILE:LINE', or 'LINK -> TARGET' for a
      committed symlink; empty for a start file.
    - required: the sentence requires or forbids ("must", "will not be accepted", a box, a CI check);
      false for advice ("we recommend", "AI tools are welcome").
    - params: what following it needs (RuleParams).
    - action: what to do to follow it, in perfkit's words, for the agent's list of what is left.
    """

    source: str
    line: int
    kind: NoteKind
    text: str
    via: list[str] = Field(default_factory=list)
    required: bool = False
    params: RuleParams = Field(default_factory=RuleParams)
    action: str = ""


RepoNote = RepoRule  # the name render_pr's `repo_notes` field was first typed with


class TemplateUse(Model):
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


class FormScore(Model):
    path: str
    name: str
    kind: str = Field(
        description="performance, question, feature, general or bug (chosen in that order); refactor, build, docs, "
        "ci-failure, flaky-test, tracker or security (only when none of those exists); regression (never chosen "
        "unless named: nothing regressed)."
    )
    score: int = Field(description="Higher is preferred; 0 for a form meant for automation or a regression form.")
    reason: str = Field(description="The words that gave the kind, or why the form is meant for automation.")


class UnreadableForm(Model):
    path: str
    error: str = Field(description="The YAML parser's message (with its line), or why the file was not read.")


class FieldFill(Model):
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


class IssueFormUse(Model):
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
    answers: list[AnswerUse] = Field(
        default_factory=list,
        description="Each of draft.template_answers: the part it landed on and how, or why not and the candidates.",
    )
    removed: list[str] = Field(
        default_factory=list, description="Template parts removed by an empty answer, as 'id: text'."
    )
    policy_conflicts: list[PolicyConflict] = Field(default_factory=list)
    repo_notes: list[RepoRule] = Field(
        default_factory=list,
        description="The repo's rules for contributors, each with its kind, file and line, how the file was "
        "reached, and the parameters to follow it (allowed title prefixes, label names, where a disclosure goes); "
        "read from CONTRIBUTING, AI policy files, agent files (AGENTS.md, CLAUDE.md...), the PR template, the "
        "README's contributing section, the guides they link to, and the workflows that check PRs.",
    )
    issue_form: IssueFormUse
    lint_pr: list[Finding] = Field(default_factory=list, description="lint_wording findings in the description.")
    lint_issue: list[Finding] = Field(default_factory=list, description="lint_wording findings in the issue.")
    lint_skipped: list[str] = Field(default_factory=list, description="Lint rules that did not run, and why.")
    warnings: list[str] = Field(default_factory=list)
    ai_disclosure_at: str | None = Field(
        None, description="Where draft.ai_disclosure was placed: the template part, or 'end of the description'."
    )
    left_for_human: list[LeftItem] = Field(
        default_factory=list,
        description="Everything still open, in one list: every placeholder, every kept template line that is not "
        "structure, every box not ticked, every repo rule to follow before posting. Answer each (by its id in "
        "draft.template_answers or draft.checkboxes), or hand it to the user on purpose; then render again.",
    )

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
            if part.fate == "question":
                first = (part.prompt or part.template).split("\n", 1)[0][:70]
                lines.append(f"  to answer by id: {part.id} ({part.heading or part.kind}) {first}")
        for u in self.answers:
            if u.effect != "answered":
                at = f" -> {u.landed} ({u.heading})" if u.landed else ""
                lines.append(f"  answer '{u.key}'{at}: {u.effect}" + (f": {u.why}" if u.why else ""))
        if self.ai_disclosure_at:
            lines.append(f"  ai_disclosure placed at: {self.ai_disclosure_at}")
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
            if n.action:
                lines.append(f"  to follow: {n.action}")
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
        lines += _left_lines(self.left_for_human)
        return "\n".join(lines)


def _left_lines(items: list[LeftItem]) -> list[str]:
    """The loop's worklist, open items first: what the agent answers next, then what the user settles."""
    open_, handed = [i for i in items if not i.deliberate], [i for i in items if i.deliberate]
    out = [f"left for the human: {len(open_)} open, {len(handed)} deliberate"]
    for i in open_ + handed:
        where = f"{i.file}:{i.line}" if i.line else i.file
        ident = f" [{i.id}]" if i.id else ""
        mark = "deliberate" if i.deliberate else "open"
        out.append(f"  {mark} {i.kind}{ident} {where}: {i.text[:100]} -> {i.do[:160]}")
    return out
