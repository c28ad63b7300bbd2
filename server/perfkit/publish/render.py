"""render_pr: the campaign's figures, the agent's draft and the repo's templates, into two files.

Everything is rendered and checked in memory first; the two files are written together at the
end, so an error leaves nothing behind. Figures come from read_benchmark only. The repo's template
text is merged as data and handed to Jinja as a finished string, so it is never evaluated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from perfkit.errors import InputError, ToolFailure
from perfkit.guards import campaign_walk
from perfkit.publish.models import IssueFormUse, Placeholder, PolicyConflict, RenderResult, RepoNote, TemplateUse
from perfkit.publish.outputs import check_out_dir, write_all

if TYPE_CHECKING:
    from jinja2.sandbox import SandboxedEnvironment

    from perfkit.benchmark.models import BenchmarkSummary
    from perfkit.lint.models import Finding
    from perfkit.publish.draft_model import Draft
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
_HTML = {
    "details",
    "summary",
    "br",
    "p",
    "div",
    "span",
    "sub",
    "sup",
    "b",
    "i",
    "em",
    "strong",
    "code",
    "pre",
    "kbd",
    "img",
    "a",
    "hr",
    "table",
    "tr",
    "td",
    "th",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "picture",
    "source",
    "video",
    "input",
    "dl",
    "dt",
    "dd",
    "tbody",
    "thead",
}


def _ph(what: str) -> str:
    return PH.format(what=what)


def _or(value: Any, what: str) -> str:
    return str(value).strip() if value not in (None, "") else _ph(what)


def placeholders(text: str, file: Literal["pr", "issue"]) -> list[Placeholder]:
    """Every <placeholder> outside HTML comments, tags and autolinks."""
    masked = re.sub(r"<!--.*?-->", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    out = []
    for n, line in enumerate(masked.split("\n"), 1):
        for m in _PLACEHOLDER_RE.finditer(line):
            inner = m.group(1)
            first = re.split(r"[\s/>]", inner.lstrip("/"), maxsplit=1)[0].lower()
            if first in _HTML or inner.startswith(("http:", "https:", "mailto:")):
                continue
            out.append(Placeholder(file=file, line=n, text=m.group(0)))
    return out


def _environment(templates: Path) -> SandboxedEnvironment:
    from jinja2 import FileSystemLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(
        loader=FileSystemLoader(str(templates)),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def _hardware(d: Draft) -> str:
    return f"{d.gpu_count if d.gpu_count else _ph('n')} {_or(d.gpu, 'GPU')}"


def _title(b: BenchmarkSummary, d: Draft, rule: TitleRule | None = None) -> str:
    """Our title form; in the repo's own form when it has a title rule and the draft keeps the default prefix."""
    from perfkit.publish import title_rule
    from perfkit.publish.cells import sig

    if b.shape != "steps":
        from perfkit.publish.metric_text import title_summary

        summary = title_summary(b, d, _or(d.job, "job"), _hardware(d), _or(d.largest_cause, "largest cause"))
        if rule is not None and d.title_prefix == DEFAULT_PREFIX:
            return title_rule.apply(rule, summary)
        return f"{d.title_prefix.strip()} {summary}" if d.title_prefix.strip() else summary
    ws = d.world_size or d.gpu_count
    at = d.parallelism.strip() if d.parallelism and d.parallelism.strip() else None
    at = at or f"world size {ws if ws else _ph('world size')}"
    summary = (
        f"{_or(d.job, 'job')} on {_hardware(d)}: {sig(b.arm(b.baseline).mean.value)} s to "
        f"{sig(b.arm(b.candidate).mean.value)} s per {d.unit} at {at}, "
        f"mostly from {_or(d.largest_cause, 'largest cause')}"
    )
    if rule is not None and d.title_prefix == DEFAULT_PREFIX:
        return title_rule.apply(rule, summary)
    return f"{d.title_prefix.strip()} {summary}" if d.title_prefix.strip() else summary


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
        cell = x.compared.strip()
        if x.exceeded:
            cell += (
                f"; {x.exceeded} {x.exceeded_unit} above {x.tolerance}" if x.when == "step" else "; above the tolerance"
            )
            failed.append({"recorded": x.recorded, "cell": cell})
        rows.append({"recorded": x.recorded, "cell": cell, "tolerance": x.tolerance})
    if not rows:
        rows = [{"recorded": _ph("what was recorded"), "cell": _ph("difference found"), "tolerance": _ph("tolerance")}]
    return {
        "ran": _or(c.ran if c else None, "what you ran: both versions on the same batches"),
        "compared": _or(c.compared if c else None, "which values you compared, and how many"),
        "recording_code": _or(c.recording_code if c else None, "fork verify branch"),
        "total": len(checks),
        "failed": failed,
        "passed": [x.recorded for x in ordered if not x.exceeded],
        "suspected": (c.suspected_cause or "").strip() if c else "",
        "acceptance": (c.acceptance or "").strip() if c else "",
        "rows": rows,
    }


def _traces(b: Any, d: Draft, campaign: Path) -> list[dict[str, str]]:
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
                "label": f"{titles.get(sha, 'commit')} (`{sha[:12]}`)",
                "link": link or _ph("share link"),
                "local": f"commits/{sha}/trace/",
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
        "shared": list(x.shared_settings),
        "command_baseline": _or(x.command_baseline, "full command, baseline"),
        "command_pr": _or(x.command_pr, "full command, this PR"),
        "rejected": list(x.rejected),
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
        dict[str, Any] | str | None,
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
    titles, the placeholders left, skipped headings, policy conflicts and the lint findings of both files.
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
    lint_pr, lint_issue, skipped = _lint(campaign, b, top, repo_part, pr_text, issue_text, d.job)
    out = Path(out_dir).expanduser() if out_dir else (campaign / (b.latest_report or "latest-report.md")).parent
    paths = write_all(out, {PR_FILE: pr_text, ISSUE_FILE: issue_text})
    return _result(paths, pr_text, issue_text, repo_part, issue_use, lint_pr, lint_issue, skipped, warnings)


def _load(draft: dict[str, Any] | str | None, campaign: Path) -> Draft:
    from perfkit.publish.draft import load_draft

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
    merged = merge_template.merge(tpl, answers, boxes, PH, issue, enforced)
    notes, note_conflicts = repo_notes.read(files, tpl.path, tpl.text)
    rule = title_rule.from_notes([(n.source, n.line, n.text) for n in notes if n.kind == "title-rule"], tpl.path)
    warnings = list(files.skipped) + ai_warnings
    warnings += [
        f"draft.template_answers['{k}'] was not placed: it matches no part of the repo's template that asks "
        "something (a covered heading, a note for reviewers or CI, or no part at all); see template_parts"
        for k in merged.unused_answers
    ]
    warnings += [f"draft.checkboxes '{t}' matches no box of the repo's template" for t in merged.unused_boxes]
    if rule and d.title_prefix != DEFAULT_PREFIX:
        warnings.append(
            f"the repo's title rule '{rule.pattern}' ({rule.source}) was not applied: draft.title_prefix is set"
        )
    forms = issue_forms.pick(files, issue_form)
    return _RepoPart(files, tpl, merged, notes, merged.conflicts + note_conflicts, rule, forms, warnings)


def _enforced(top: Path, commit: str | None, tpl: RepoTemplate) -> dict[str, str]:
    """Covered headings the repo's own checks require in the PR body (read only when there are any)."""
    from perfkit.publish.template_parts import enforced

    titles = [p.title for p in tpl.parts if p.kind == "heading" and p.role == "covered" and p.title]
    return enforced.enforced(titles, enforced.check_texts(top, commit)) if titles else {}


def _shared_settings(d: Draft) -> tuple[list[str], list[str]]:
    """Settings named as applied to both versions, minus any whose code appears in only one command."""
    base, pr = d.details.command_baseline or "", d.details.command_pr or ""
    kept: list[str] = []
    dropped: list[str] = []
    for setting in d.details.shared_settings:
        codes = re.findall(r"`([^`]+)`", setting)
        one_sided = base and pr and any((c in base) != (c in pr) for c in codes)
        (dropped if one_sided else kept).append(setting)
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
    view: dict[str, Any] = {
        "title": _title(b, d, part.rule),
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
    view.update(
        {
            "changes": _changes(b, d),
            "rows": rows,
            "commits": cells.commit_rows(b, d.ships, d.details.shared_settings),
            "check": _check_view(d),
            "repo_sections": "\n".join(part.merged.lines).strip(),
            "repo_tail": "\n".join(part.tpl.tail).strip(),
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
    campaign: Path, b: BenchmarkSummary, top: Path, part: _RepoPart, pr_text: str, issue_text: str, job: str | None
) -> tuple[list[Finding], list[Finding], list[str]]:
    from perfkit.lint.figures import FigureSet
    from perfkit.lint.lint import check_size, lint_text
    from perfkit.repo import template_text

    check_size(pr_text, "draft")
    check_size(issue_text, "draft")
    figures = FigureSet.from_campaign(campaign, b)
    pr_lines, pr_heads = template_text.pr_template_lines(part.files)
    f_lines, f_heads, f_prefixes = template_text.issue_template_lines(part.files)
    lint_pr, _, skipped = lint_text(pr_text, "pr", figures, pr_lines, pr_heads, job=job)
    lint_issue, _, _ = lint_text(issue_text, "issue", figures, f_lines, f_heads, f_prefixes, job=job)
    return lint_pr, lint_issue, skipped


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
) -> RenderResult:
    tpl, merged = part.tpl, part.merged
    return RenderResult(
        pr_path=str(paths[PR_FILE]),
        issue_path=str(paths[ISSUE_FILE]),
        pr_title=pr_text.split("\n", 1)[0].removeprefix("# "),
        issue_title=issue_text.split("\n", 1)[0].removeprefix("# "),
        placeholders=placeholders(pr_text, "pr") + placeholders(issue_text, "issue"),
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
        policy_conflicts=part.conflicts,
        repo_notes=part.notes,
        issue_form=issue_use,
        lint_pr=lint_pr,
        lint_issue=lint_issue,
        lint_skipped=skipped,
        warnings=warnings,
    )
