"""render_pr: the campaign's figures, the agent's draft and the repo's templates, into two files.

Everything is rendered and checked in memory first; the two files are written together at the
end, so an error leaves nothing behind. Figures come from read_benchmark only. The repo's template
text is merged as data and handed to Jinja as a finished string, so it is never evaluated.

Where text enters Markdown: every value the templates print passes perfkit.markdown.safe.finalize.
Text marked Markdown (perfkit's own wording and placeholders, the agent's draft, the repo's template
carried verbatim, sentences built from inline-safe parts) prints as it is; anything else (a metric
name, a unit, an arm name, a candidate title, a commit sha, a folder name) is made one line,
fence-safe and inert first. A value nobody marked is escaped, never trusted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from perfkit.draft.argument import DraftArgument
from perfkit.errors import InputError, ToolFailure
from perfkit.guards import campaign_walk
from perfkit.markdown.html import is_markup
from perfkit.markdown.safe import Markdown, code, code_block, finalize, inline, one_line
from perfkit.markdown.spans import code_texts
from perfkit.publish.models import IssueFormUse, Placeholder, PolicyConflict, RenderResult, RepoNote, TemplateUse
from perfkit.publish.outputs import check_out_dir, write_all

if TYPE_CHECKING:
    from jinja2.sandbox import SandboxedEnvironment

    from perfkit.benchmark.models import BenchmarkSummary
    from perfkit.draft.model import Draft
    from perfkit.lint.models import Finding
    from perfkit.publish.issue_forms import Choice
    from perfkit.publish.merge_template import Merged
    from perfkit.publish.repo_template import RepoTemplate
    from perfkit.publish.title_rule import TitleRule
    from perfkit.repo.contribution_files import RepoFiles

PH = "<{what}>"
DEFAULT_PREFIX = "[perf]"
GITHUB_BODY_CHARS = 65_536
PR_FILE = "proposed-pr-description.md"
ISSUE_FILE = "proposed-issue.md"
_PLACEHOLDER_RE = re.compile(r"<([A-Za-z#'][^<>\n]{0,160})>")


def _ph(what: str) -> Markdown:
    return Markdown(PH.format(what=what))


def _or(value: Any, what: str) -> Markdown:
    """The draft's text (Markdown the agent wrote), or a placeholder for it."""
    return Markdown(str(value).strip()) if value not in (None, "") else _ph(what)


def placeholders(text: str, file: Literal["pr", "issue"]) -> list[Placeholder]:
    """Every <placeholder> outside HTML comments, tags and autolinks."""
    from perfkit.markdown import blocks

    o = blocks.outline(text)  # comments as GitHub hides them
    out = []
    for k, raw in enumerate(o.lines):
        line, n = blocks.blank(raw, o.comments[k]), k + 1
        for m in _PLACEHOLDER_RE.finditer(line):
            inner = m.group(1)
            if is_markup(m.group(0)) or inner.startswith(("http:", "https:", "mailto:")):
                continue
            out.append(Placeholder(file=file, line=n, text=m.group(0)))
    return out


def _environment(templates: Path) -> SandboxedEnvironment:
    from jinja2 import FileSystemLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(
        loader=FileSystemLoader(str(templates)),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        finalize=finalize,  # every printed value: Markdown as it is, any other text made inline-safe
    )
    env.filters["fenced"] = code_block  # a code block no line of its text can close
    env.filters["built"] = Markdown  # a macro's output: the template's own text and values that passed finalize
    return env


def _hardware(d: Draft) -> Markdown:
    return Markdown(f"{d.gpu_count if d.gpu_count else _ph('n')} {_or(d.gpu, 'GPU')}")


def _title(b: BenchmarkSummary, d: Draft, rule: TitleRule | None = None) -> tuple[Markdown, list[str]]:
    """Our title form on one line, in the repo's own form when it has a title rule and the draft keeps the
    default prefix, within about 100 characters (perfkit.publish.title_fit); and the warnings saying what
    was left out."""
    from perfkit.publish import title_fit, title_rule
    from perfkit.publish.cells import sig

    own = d.title_prefix.strip()

    def frame(summary: str) -> str:
        if rule is not None and d.title_prefix == DEFAULT_PREFIX:
            return title_rule.apply(rule, summary)
        return f"{own} {summary}" if own else summary

    at = d.parallelism.strip() if d.parallelism and d.parallelism.strip() else None
    repeats = False
    if b.shape != "steps":
        from perfkit.publish.metric_text import span

        spans: list[str] = [span(m) for m in b.headline()]
    else:
        ws = d.world_size or d.gpu_count
        repeats = at is None and bool(ws) and ws == d.gpu_count
        at = at or f"world size {ws if ws else _ph('world size')}"
        base, pr = sig(b.arm(b.baseline).mean.value), sig(b.arm(b.candidate).mean.value)
        spans = [f"{base} s to {pr} s per {d.unit}"]
    cause = _or(d.largest_cause, "largest cause")
    title, warnings = title_fit.fit(frame, _or(d.job, "job"), _hardware(d), spans, at, cause, repeats)
    return Markdown(one_line(title)), warnings


def _changes(b: Any, d: Draft) -> list[dict[str, str]]:
    if d.changes:
        src = d.changes
        return [
            {
                "name": _or(c.name, "change name"),
                "problem": _or(c.problem, "problem"),
                "does": _or(c.does, "what the change does"),
                "limit": _or(c.limit, "limit, or how to turn it off"),
            }
            for c in src
        ]
    from perfkit.publish.cells import ships

    shipped = [c.title for c in ships(b, d.ships, d.details.shared_settings)] or [_ph("change name")]
    return [
        {
            "name": t,
            "problem": _ph("problem"),
            "does": _ph("what the change does"),
            "limit": _ph("limit, or how to turn it off"),
        }
        for t in shipped
    ]


def _check_view(d: Draft) -> dict[str, Any]:
    c = d.correctness
    checks = list(c.checks) if c else []
    ordered = [x for x in checks if x.when == "end"] + [x for x in checks if x.when == "step"]
    rows, failed = [], []
    for x in ordered:
        cell = Markdown(x.compared.strip())
        if x.exceeded:
            cell = Markdown(
                cell
                + (
                    f"; {x.exceeded} {x.exceeded_unit} above {x.tolerance}"
                    if x.when == "step"
                    else "; above the tolerance"
                )
            )
            failed.append({"recorded": Markdown(x.recorded), "cell": cell})
        rows.append({"recorded": Markdown(x.recorded), "cell": cell, "tolerance": Markdown(x.tolerance)})
    if not checks:  # nothing recorded: no tolerance, no recording code, and the user is asked
        return {
            "ran": Markdown((c.ran or "").strip()) if c else "",
            "compared": Markdown((c.compared or "").strip()) if c else "",
            "total": 0,
            "ask": _ph("confirm that no check compared the outputs of both versions, or add each check you ran"),
        }
    return {
        "ran": _or(c.ran if c else None, "what you ran: both versions on the same batches"),
        "compared": _or(c.compared if c else None, "which values you compared, and how many"),
        "recording_code": _or(c.recording_code if c else None, "fork verify branch"),
        "total": len(checks),
        "failed": failed,
        "passed": Markdown("; ".join(x.recorded for x in ordered if not x.exceeded)),
        "suspected": Markdown((c.suspected_cause or "").strip() if c else ""),
        "acceptance": Markdown((c.acceptance or "").strip() if c else ""),
        "rows": rows,
    }


def _traces(b: Any, d: Draft, campaign: Path) -> list[dict[str, Markdown]]:
    titles = {c.sha: c.title for c in b.candidates}
    shas = [c.sha for c in b.candidates if c.trace]
    for p in campaign_walk.folders(campaign, campaign / "commits"):  # a link out of the campaign is not listed
        if (p / "trace").is_dir() and campaign_walk.inside(campaign, p / "trace") and p.name not in shas:
            shas.append(p.name)
    out = []
    for sha in dict.fromkeys(shas):
        link = next((v for k, v in d.details.trace_links.items() if k and sha.startswith(k.strip().lower())), None)
        out.append(
            {
                "label": Markdown(f"{inline(titles.get(sha, 'commit'))} ({code(sha[:12])})"),
                "link": Markdown(link) if link else _ph("share link"),
                "local": Markdown(code(f"commits/{sha}/trace/")),  # a folder name in the campaign: code
            }
        )
    return out


def _details(b: Any, d: Draft, campaign: Path) -> dict[str, Any]:
    from perfkit.publish import cells

    x = d.details
    common: dict[str, Any] = {
        "hardware": _or(x.hardware, "hardware and environment"),
        "model": _or(x.model, "model and job"),
        "data": _or(x.data, "data preparation"),
        "setup": _or(x.setup, "base commit, what both versions share, data size, seed"),
        "shared": [Markdown(t) for t in x.shared_settings],
        "command_baseline": _or(x.command_baseline, "full command, baseline"),
        "command_pr": _or(x.command_pr, "full command, this PR"),
        "rejected": [Markdown(t) for t in x.rejected],
        "not_shipped": cells.not_shipped(b, d.ships, x.shared_settings),
        "traces": _traces(b, d, campaign),
        "chart": None,
    }
    if d.chart:
        from perfkit.publish.metric_text import chart

        common["chart"] = chart(b)
    if b.shape != "steps":
        from perfkit.publish import metric_text

        heads = b.headline() or b.metrics
        return common | {
            "runs_baseline": len(heads[0].baseline.per_run) if heads else 0,
            "runs_pr": len(heads[0].candidate.per_run) if heads else 0,
            "per_run": metric_text.per_run_words(b),
            "significance": metric_text.significance(b),
        }
    base, pr = b.arm(b.baseline), b.arm(b.candidate)
    steps = sorted({r.steps for a in (base, pr) for r in a.per_run})
    return common | {
        "runs_baseline": base.runs,
        "runs_pr": pr.runs,
        "steps_per_run": str(steps[0]) if len(steps) == 1 else f"{steps[0]} to {steps[-1]}",
        "warmup": b.warmup_steps,
        "significance": cells.significance(b.step_comparison()),
    }


def render_pr(
    campaign_dir: Annotated[
        str,
        Field(
            description="The campaign folder (benchmark.csv, records/candidates.jsonl, "
            "commits/<sha>/, latest-report.md)."
        ),
    ],
    repo: Annotated[
        str,
        Field(
            description="The target repo checkout: its PR template, issue forms and "
            "CONTRIBUTING are read, never changed."
        ),
    ],
    draft: Annotated[
        DraftArgument,
        Field(
            description="What only the agent can write (job, GPU, prose, changes, correctness checks, answers to the "
            "repo's headings, Details): an object, JSON text, or a .json/.yaml file path. Without it every prose "
            "slot is a visible <placeholder>; the figures are filled either way."
        ),
    ] = None,
    out_dir: Annotated[
        str | None,
        Field(
            description="Folder for the two files. Default: the folder of "
            "latest-report.md, which is the campaign folder."
        ),
    ] = None,
    pr_template: Annotated[
        str | None,
        Field(
            description="Which of the repo's PR templates to follow (file name) when it has several. Default: "
            "GitHub's default template, else the one whose name fits a performance change."
        ),
    ] = None,
    issue_form: Annotated[
        str | None,
        Field(
            description="Which issue form or template to use (file name or form name). Default: a performance "
            "form, else a question form, before a bug form."
        ),
    ] = None,
    repo_commit: Annotated[
        str | None,
        Field(
            description="The commit, branch or tag of the repo whose templates and forms to follow, e.g. the "
            "branch the PR will target (origin/main). Default: HEAD. Files are read from git, never checked out."
        ),
    ] = None,
) -> RenderResult:
    """Write proposed-pr-description.md and proposed-issue.md for a finished campaign: the title, Summary,
    Speedup Result (figures from read_benchmark only), Correctness Verification, the repo's own PR template
    sections (verbatim, covered headings skipped, boxes ticked only when the draft backs them), a collapsed
    Details block, and the companion issue under the repo's best-fitting issue form. Returns both paths and
    titles, every template part with where it went, where each answer landed, policy conflicts, the lint
    findings of both files, and left_for_human: everything still open, to answer by id or hand over.
    Overwrites those two files; pushes nothing, opens nothing."""
    from perfkit.repo import gitrepo

    campaign = Path(campaign_dir).expanduser()
    if not campaign.is_dir():
        raise InputError("campaign_dir", f"'{campaign_dir}' is not a folder", "pass the campaign folder")
    if out_dir:
        check_out_dir(Path(out_dir))
    d = _load(draft, campaign)
    top = gitrepo.open_repo(repo)
    b, warnings = _read(campaign, d)
    repo_part = _repo_part(top, d, pr_template, issue_form, repo_commit)
    warnings += repo_part.warnings
    view = _pr_view(b, d, campaign, repo_part)
    warnings += view.pop("warnings")
    pr_text, issue_text, issue_use, issue_warnings = _render_texts(b, d, view, repo_part)
    pr_text, issue_text = _inert(pr_text, issue_text, repo_part)
    warnings += issue_warnings
    lint_pr, lint_issue, skipped = _lint(campaign, b, top, repo_part, pr_text, issue_text, d)
    out = Path(out_dir).expanduser() if out_dir else (campaign / (b.latest_report or "latest-report.md")).parent
    paths = write_all(out, {PR_FILE: pr_text, ISSUE_FILE: issue_text})
    return _result(paths, pr_text, issue_text, repo_part, issue_use, lint_pr, lint_issue, skipped, warnings, d)


def _load(draft: Draft | str | None, campaign: Path) -> Draft:
    from perfkit.draft.load import load_draft

    return load_draft(draft, campaign)


def _read(campaign: Path, d: Draft) -> tuple[BenchmarkSummary, list[str]]:
    """read_benchmark with the draft's options; the draft's arms and shipped commits checked against it."""
    b = d.benchmark.read(str(campaign))
    arms = set(b.arm_names)
    for c in d.changes:
        if c.arm and c.arm not in arms:
            raise InputError(
                "draft.changes.arm",
                f"'{c.arm}' is not an arm of benchmark.csv",
                f"use one of: {', '.join(sorted(arms))}",
            )
    for prefix in d.ships:
        hits = [c for c in b.candidates if c.sha.startswith(prefix.strip().lower())]
        if len(hits) != 1 or not prefix.strip():
            raise InputError(
                "draft.ships",
                f"'{prefix}' matches {len(hits)} commits of records/candidates.jsonl",
                "use a sha prefix that names one commit: " + ", ".join(c.sha[:12] for c in b.candidates),
            )
    return b, [f"read_benchmark: {w}" for w in b.warnings]


@dataclass
class _RepoPart:
    """What the target repo contributes: its template merged, its notes, its title rule, its issue form."""

    files: RepoFiles
    tpl: RepoTemplate
    merged: Merged
    notes: list[RepoNote]
    conflicts: list[PolicyConflict]
    rule: TitleRule | None
    forms: Choice
    warnings: list[str]
    disclosure_at: str | None = None


def _repo_part(
    top: Path, d: Draft, pr_template: str | None, issue_form: str | None, commit: str | None = None
) -> _RepoPart:
    from perfkit.publish import ai_disclosure, issue_forms, merge_template, repo_notes, repo_template, title_rule
    from perfkit.repo import contribution_files

    files = contribution_files.read_repo_files(top, commit)
    tpl = repo_template.select(files, pr_template)
    enforced = _enforced(top, files.commit, tpl)
    issue = str(d.issue_number) if d.issue_number else None
    answers, boxes, ai_warnings = ai_disclosure.apply(tpl, d.template_answers, d.checkboxes, d.ai_disclosure)
    from perfkit.publish import meanings

    merged = merge_template.merge(tpl, answers, boxes, PH, issue, enforced, meanings.draft_facts(d, issue))
    notes, note_conflicts, rule_skips = repo_notes.read(top, files, tpl.path)
    placed_at, ai_warnings = _place_disclosure(d, tpl, merged, notes, ai_warnings)
    rule = title_rule.from_notes([(n.source, n.line, n.text) for n in notes if n.kind == "title-rule"], tpl.path)
    warnings = list(files.skipped) + rule_skips + ai_warnings
    refused = {u.key: u for u in merged.uses if u.effect == "refused"}
    for k in merged.unused_answers:
        u = refused.get(k)
        if u is not None:
            near = f"; it may mean {', '.join(u.candidates)}" if u.candidates else ""
            warnings.append(f"draft.template_answers['{k}'] was not placed: {u.why}{near}")
        else:
            warnings.append(
                f"draft.template_answers['{k}'] was not placed: the part it names asks nothing (a note for "
                "reviewers or CI, or a heading our own part of the same name stands for); see template_parts"
            )
    warnings += [f"draft.checkboxes '{t}' matches no box of the repo's template" for t in merged.unused_boxes]
    if rule and d.title_prefix != DEFAULT_PREFIX:
        warnings.append(
            f"the repo's title rule '{rule.pattern}' ({rule.source}) was not applied: draft.title_prefix is set"
        )
    forms = issue_forms.pick(files, issue_form)
    return _RepoPart(files, tpl, merged, notes, merged.conflicts + note_conflicts, rule, forms, warnings, placed_at)


def _place_disclosure(
    d: Draft, tpl: RepoTemplate, merged: Merged, notes: list[RepoNote], ai_warnings: list[str]
) -> tuple[str | None, list[str]]:
    """Where draft.ai_disclosure went. A rule asking for disclosure in a policy file, with no part of the
    template asking for it, puts the disclosure at the end of the description, and the result says so."""
    from perfkit.publish.left_for_human import asks_disclosure

    said = (d.ai_disclosure or "").strip()
    if not said:
        return None, ai_warnings
    asked = [p for p in merged.parts if p.value and said in p.value]
    if asked:
        return asked[0].id, ai_warnings
    rule = next((n for n in notes if asks_disclosure(n)), None)
    if rule is None:
        return None, ai_warnings
    merged.lines += ["", f"AI assistance: {said}"]
    where = f"end of the description ({rule.source}:{rule.line} asks for it)"
    return where, [w for w in ai_warnings if not w.startswith("draft.ai_disclosure is not placed")]


def _enforced(top: Path, commit: str | None, tpl: RepoTemplate) -> dict[str, str]:
    """Covered headings the repo's own checks require in the PR body (read only when there are any)."""
    from perfkit.publish.template_parts import enforced

    titles = [p.title for p in tpl.parts if p.kind == "heading" and p.role == "covered" and p.title]
    return enforced.enforced(titles, enforced.check_texts(top, commit)) if titles else {}


def _shared_settings(d: Draft) -> tuple[list[Markdown], list[str]]:
    """Settings named as applied to both versions, minus any whose code appears in only one command."""
    base, pr = d.details.command_baseline or "", d.details.command_pr or ""
    kept: list[Markdown] = []
    dropped: list[str] = []
    for setting in d.details.shared_settings:
        codes = code_texts(setting)
        one_sided = base and pr and any((c in base) != (c in pr) for c in codes)
        if one_sided:
            dropped.append(setting)
        else:
            kept.append(Markdown(setting))
    warnings = [
        f"draft.details.shared_settings '{x}' is left out of 'Applied to both versions': only one command has it"
        for x in dropped
    ]
    return kept, warnings


def _pr_view(b: BenchmarkSummary, d: Draft, campaign: Path, part: _RepoPart) -> dict[str, Any]:
    """The template's fields: the same for both campaign shapes but for the headline and the result rows."""
    from perfkit.publish import cells

    details = _details(b, d, campaign)
    details["shared"], warnings = _shared_settings(d)
    title, title_warnings = _title(b, d, part.rule)
    warnings += title_warnings
    view: dict[str, Any] = {
        "title": title,
        "summary": _or(
            d.summary, "summary: what the job loses and why, with one or two figures, and what this PR adds"
        ),
        "hardware": _hardware(d),
        "unit": d.unit,
    }
    if b.shape != "steps":
        from perfkit.publish import metric_text

        view["headline_sentence"] = metric_text.headline_sentence(b, _hardware(d))
        rows = [r.__dict__ for r in metric_text.result_rows(b, d, PH)]
    else:
        view.update(_step_speedups(b))
        rows = [r.__dict__ for r in cells.result_rows(b, d, PH)]
    from perfkit.publish.cells import cause
    from perfkit.publish.cost_text import cost_sentences

    found = cause(b, d)
    view.update(
        {
            "cost": cost_sentences(b, _hardware(d), d.unit),
            "screened": bool(found and found.get("screened")),
            "changes": _changes(b, d),
            "rows": rows,
            "commits": cells.commit_rows(b, d.ships, d.details.shared_settings),
            "check": _check_view(d),
            "repo_sections": Markdown("\n".join(part.merged.lines).strip()),  # the repo's own text, as written
            "repo_tail": Markdown("\n".join(part.tpl.tail).strip()),
            "d": details,
            "warnings": warnings,
        }
    )
    return view


def _step_speedups(b: BenchmarkSummary) -> dict[str, Any]:
    """A step campaign's headline fields: mean and median speed-up as factors, each said faster or slower."""
    from perfkit.publish import cells

    cmp = b.step_comparison()
    return {
        "headline_sentence": "",
        "speedup_mean": cells.factor(cmp.speedup_mean if cmp.speedup_mean >= 1 else 1 / cmp.speedup_mean),
        "speedup_median": cells.factor(cmp.speedup_median if cmp.speedup_median >= 1 else 1 / cmp.speedup_median),
        "faster_mean": "faster" if cmp.speedup_mean >= 1 else "slower",
        "faster_median": ""
        if (cmp.speedup_median >= 1) == (cmp.speedup_mean >= 1)
        else (" faster" if cmp.speedup_median >= 1 else " slower"),
        "show_median": cmp.show_mean_and_median,
    }


def _render_texts(
    b: BenchmarkSummary, d: Draft, view: dict[str, Any], part: _RepoPart
) -> tuple[str, str, IssueFormUse, list[str]]:
    """Both files rendered in memory; the issue's paragraphs laid under the repo's form when it has one."""
    from jinja2 import TemplateError

    from perfkit.publish.issue_render import render_issue
    from perfkit.publish.templates_dir import templates_dir

    env = _environment(templates_dir())
    try:
        pr_text = env.get_template("pr-description.md.j2").render(**view)
        issue_text, issue_use, warnings = render_issue(env, d, b, part.forms, _hardware(d), PH)
    except TemplateError as exc:
        raise ToolFailure(f"template error: {exc}") from None
    pr_text = re.sub(r"\n{3,}", "\n\n", pr_text).rstrip("\n") + "\n"
    issue_text = re.sub(r"\n{3,}", "\n\n", issue_text).rstrip("\n") + "\n"
    for name, text in (("description", pr_text), ("issue", issue_text)):
        if len(text) > GITHUB_BODY_CHARS:
            warnings.append(
                f"the {name} has {len(text):,} characters; GitHub accepts {GITHUB_BODY_CHARS:,}: shorten it"
            )
    return pr_text, issue_text, issue_use, warnings


def _inert(pr_text: str, issue_text: str, part: _RepoPart) -> tuple[str, str]:
    """Mentions, active HTML and script links written as code, hidden characters dropped (publish/inert_text)."""
    from perfkit.publish.inert_text import make_inert
    from perfkit.repo import template_text

    pr_lines, _ = template_text.pr_template_lines(part.files)
    issue_lines, _, _ = template_text.issue_template_lines(part.files)
    return make_inert(pr_text, pr_lines), make_inert(issue_text, issue_lines)


def _lint(
    campaign: Path, b: BenchmarkSummary, top: Path, part: _RepoPart, pr_text: str, issue_text: str, d: Draft
) -> tuple[list[Finding], list[Finding], list[str]]:
    from perfkit.lint.figures import FigureSet
    from perfkit.lint.lint import check_size, lint_text
    from perfkit.lint.options import draft_job, draft_words
    from perfkit.repo import template_text

    check_size(pr_text, "draft")
    check_size(issue_text, "draft")
    job = draft_job(d)
    figures = FigureSet.from_campaign(campaign, b, *draft_words(d))
    pr_lines, pr_heads = template_text.pr_template_lines(part.files)
    f_lines, f_heads, f_prefixes = template_text.issue_template_lines(part.files)
    lint_pr, _, skipped = lint_text(
        pr_text, "pr", figures, pr_lines, pr_heads, job=job, template_text=_instruction_lines(part)
    )
    lint_issue, _, _ = lint_text(issue_text, "issue", figures, f_lines, f_heads, f_prefixes, job=job)
    return lint_pr, lint_issue, skipped


def _instruction_lines(part: _RepoPart) -> set[str]:
    """The lines of the chosen template's parts that are instruction or example: never to be posted (a
    line the template also holds as structure elsewhere is left out)."""
    from perfkit.lint.markdown import norm_line

    lines = part.tpl.text.split("\n")
    dropped: set[str] = set()
    kept: set[str] = set()
    for p in part.merged.parts:
        if p.end_line is None or p.kind == "heading" or p.template.lstrip().startswith("<!--"):
            continue
        these = {norm_line(x) for x in lines[p.line - 1 : p.end_line] if len(x.strip()) >= 4}
        (dropped if p.filled in ("dropped", "replaced", "removed") else kept).update(these)
    return dropped - kept


def _result(
    paths: dict[str, Path],
    pr_text: str,
    issue_text: str,
    part: _RepoPart,
    issue_use: IssueFormUse,
    lint_pr: list[Finding],
    lint_issue: list[Finding],
    skipped: list[str],
    warnings: list[str],
    d: Draft,
) -> RenderResult:
    from perfkit.publish import left_for_human

    tpl, merged = part.tpl, part.merged
    phs = placeholders(pr_text, "pr") + placeholders(issue_text, "issue")
    survived = [(f.line, f.excerpt) for f in lint_pr if f.rule == "template-text"]
    left = left_for_human.build(
        phs,
        merged.parts,
        merged.boxes,
        merged.uses,
        part.notes,
        survived,
        d.hand_over,
        d.ai_disclosure,
        pr_text.split("\n", 1)[0].removeprefix("# "),
    )
    warnings += [
        f"draft.template_answers['{u.key}'] and another answer share {u.landed}: {u.why}"
        for u in merged.uses
        if u.effect == "joined"
    ]
    return RenderResult(
        pr_path=str(paths[PR_FILE]),
        issue_path=str(paths[ISSUE_FILE]),
        pr_title=pr_text.split("\n", 1)[0].removeprefix("# "),
        issue_title=issue_text.split("\n", 1)[0].removeprefix("# "),
        placeholders=phs,
        pr_template=TemplateUse(
            path=tpl.path,
            candidates=tpl.candidates,
            why=tpl.why,
            kept_headings=merged.kept,
            skipped_headings=merged.skipped,
            enforced_headings=[f"{h} ({p})" for h, p in merged.enforced.items()],
            cut_line=tpl.cut_at + 1 if tpl.cut_at is not None else None,
            title_rule=f"{part.rule.pattern} ({part.rule.source}:{part.rule.line})" if part.rule else None,
        ),
        repo_commit=part.files.commit,
        checkboxes=merged.boxes,
        template_parts=merged.parts,
        answers=merged.uses,
        removed=[f"{p.id}: {p.template.split(chr(10), 1)[0][:80]}" for p in merged.parts if p.filled == "removed"],
        ai_disclosure_at=part.disclosure_at,
        left_for_human=left,
        policy_conflicts=part.conflicts,
        repo_notes=part.notes,
        issue_form=issue_use,
        lint_pr=lint_pr,
        lint_issue=lint_issue,
        lint_skipped=skipped,
        warnings=warnings,
    )
