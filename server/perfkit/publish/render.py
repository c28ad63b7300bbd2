"""render_pr: the campaign's figures, the agent's draft and the repo's templates, into two files.

Everything is rendered and checked in memory first; the two files are written together at the
end, so an error leaves nothing behind. Figures come from read_benchmark only. The repo's template
text is merged as data and handed to Jinja as a finished string, so it is never evaluated.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from perfkit.errors import InputError, ToolFailure
from perfkit.publish.models import Placeholder, RenderResult, TemplateUse

if TYPE_CHECKING:
    from perfkit.publish.draft_model import Draft

PH = "<{what}>"
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


def placeholders(text: str, file: str) -> list[Placeholder]:
    """Every <placeholder> outside HTML comments, tags and autolinks."""
    masked = re.sub(r"<!--.*?-->", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    out = []
    for n, line in enumerate(masked.split("\n"), 1):
        for m in _PLACEHOLDER_RE.finditer(line):
            inner = m.group(1)
            first = re.split(r"[\s/>]", inner.lstrip("/"), maxsplit=1)[0].lower()
            if first in _HTML or inner.startswith(("http:", "https:", "mailto:")):
                continue
            out.append(Placeholder(file=file, line=n, text=m.group(0)))  # type: ignore[arg-type]
    return out


def _environment(templates: Path):
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


def _title(b: Any, d: Draft) -> str:
    from perfkit.publish.cells import sig

    ws = d.world_size or d.gpu_count
    parts = [d.title_prefix.strip()] if d.title_prefix.strip() else []
    parts.append(
        f"{_or(d.job, 'job')} on {_hardware(d)}: {sig(b.arm(b.baseline).mean.value)} s to "
        f"{sig(b.arm(b.candidate).mean.value)} s per {d.unit} at world size {ws if ws else _ph('world size')}, "
        f"mostly from {_or(d.largest_cause, 'largest cause')}"
    )
    return " ".join(parts)


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
    shipped = [c.title for c in b.candidates if c.shipped] or [_ph("change name")]
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
    commits = campaign / "commits"
    if commits.is_dir():
        shas += sorted(p.name for p in commits.iterdir() if (p / "trace").is_dir() and p.name not in shas)
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
    base, pr = b.arm(b.baseline), b.arm(b.candidate)
    steps = sorted({r.steps for a in (base, pr) for r in a.per_run})
    return {
        "hardware": _or(x.hardware, "hardware and environment"),
        "model": _or(x.model, "model and job"),
        "data": _or(x.data, "data preparation"),
        "setup": _or(x.setup, "base commit, what both versions share, data size, seed"),
        "runs_baseline": base.runs,
        "runs_pr": pr.runs,
        "steps_per_run": str(steps[0]) if len(steps) == 1 else f"{steps[0]} to {steps[-1]}",
        "warmup": b.warmup_steps,
        "significance": cells.significance(b.comparison),
        "shared": list(x.shared_settings),
        "command_baseline": _or(x.command_baseline, "full command, baseline"),
        "command_pr": _or(x.command_pr, "full command, this PR"),
        "rejected": list(x.rejected),
        "not_shipped": cells.not_shipped(b),
        "traces": _traces(b, d, campaign),
    }


def _write_both(out: Path, files: dict[str, str]) -> dict[str, Path]:
    """Write every file to a temporary name first, then move them all into place."""
    import tempfile

    out.mkdir(parents=True, exist_ok=True)
    temps: dict[str, str] = {}
    try:
        for name, text in files.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=out)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
            temps[name] = tmp
        for name, tmp in temps.items():
            os.replace(tmp, out / name)
    finally:
        for tmp in temps.values():
            if os.path.exists(tmp):
                os.unlink(tmp)
    return {name: out / name for name in files}


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
) -> RenderResult:
    """Write proposed-pr-description.md and proposed-issue.md for a finished campaign: the title, Summary,
    Speedup Result (figures from read_benchmark only), Correctness Verification, the repo's own PR template
    sections (verbatim, covered headings skipped, boxes ticked only when the draft backs them), a collapsed
    Details block, and the companion issue under the repo's best-fitting issue form. Returns both paths and
    titles, the placeholders left, skipped headings, policy conflicts and the lint findings of both files.
    Overwrites those two files; pushes nothing, opens nothing."""
    from perfkit import gitrepo, repofiles, templatetext
    from perfkit.benchmark.read import read_benchmark
    from perfkit.lint.figures import FigureSet
    from perfkit.lint.lint import lint_text
    from perfkit.publish import cells, issue_forms, repo_template
    from perfkit.publish.draft import load_draft
    from perfkit.publish.issue_render import render_issue
    from perfkit.publish.templates_dir import templates_dir

    campaign = Path(campaign_dir).expanduser()
    if not campaign.is_dir():
        raise InputError("campaign_dir", f"'{campaign_dir}' is not a folder", "pass the campaign folder")
    if out_dir and Path(out_dir).expanduser().exists() and not Path(out_dir).expanduser().is_dir():
        raise InputError(
            "out_dir", f"'{Path(out_dir).expanduser()}' is not a folder", "pass a folder for the two files"
        )
    d = load_draft(draft, campaign)
    top = gitrepo.open_repo(repo)
    o = d.benchmark
    b = read_benchmark(
        str(campaign),
        baseline=o.baseline,
        candidate=o.candidate,
        warmup_steps=o.warmup_steps,
        slow_threshold_s=o.slow_threshold_s,
    )
    warnings = [f"read_benchmark: {w}" for w in b.warnings]
    arms = {a.name for a in b.arms}
    for c in d.changes:
        if c.arm and c.arm not in arms:
            raise InputError(
                "draft.changes.arm",
                f"'{c.arm}' is not an arm of benchmark.csv",
                f"use one of: {', '.join(sorted(arms))}",
            )

    files = repofiles.read_repo_files(top)
    warnings += files.skipped
    tpl = repo_template.select(files, pr_template)
    merged = repo_template.merge(tpl, d.template_answers, d.checkboxes, PH)
    notes, note_conflicts = repo_template.repo_notes(files, tpl)
    warnings += [
        f"draft.template_answers['{k}'] matches no heading kept from the repo's template" for k in merged.unused_answers
    ]
    warnings += [f"draft.checkboxes '{t}' matches no box of the repo's template" for t in merged.unused_boxes]
    form_choice = issue_forms.pick(files, issue_form)

    hardware = _hardware(d)
    view = {
        "title": _title(b, d),
        "summary": _or(
            d.summary, "summary: what the job loses and why, with one or two figures, and what this PR adds"
        ),
        "hardware": hardware,
        "unit": d.unit,
        "speedup_mean": cells.factor(b.comparison.speedup_mean),
        "speedup_median": cells.factor(b.comparison.speedup_median),
        "show_median": b.comparison.show_mean_and_median,
        "changes": _changes(b, d),
        "rows": [r.__dict__ for r in cells.result_rows(b, d, PH)],
        "commits": cells.commit_rows(b),
        "check": _check_view(d),
        "repo_sections": "\n".join(merged.lines).strip(),
        "d": _details(b, d, campaign),
    }
    from jinja2 import TemplateError

    env = _environment(templates_dir())
    try:
        pr_text = env.get_template("pr-description.md.j2").render(**view)
        issue_text, issue_use, issue_warnings = render_issue(env, d, b, form_choice, hardware, PH)
        warnings += issue_warnings
    except TemplateError as exc:
        raise ToolFailure(f"template error: {exc}") from None
    pr_text = re.sub(r"\n{3,}", "\n\n", pr_text).rstrip("\n") + "\n"
    issue_text = re.sub(r"\n{3,}", "\n\n", issue_text).rstrip("\n") + "\n"

    figures = FigureSet.from_campaign(campaign, b)
    pr_lines, pr_heads = templatetext.pr_template_lines(files)
    f_lines, f_heads, f_prefixes = templatetext.issue_template_lines(files)
    lint_pr, _, skipped = lint_text(pr_text, "pr", figures, pr_lines, pr_heads)
    lint_issue, _, _ = lint_text(issue_text, "issue", figures, f_lines, f_heads, f_prefixes)

    out = Path(out_dir).expanduser() if out_dir else (campaign / (b.latest_report or "latest-report.md")).parent
    if out.exists() and not out.is_dir():
        raise InputError("out_dir", f"'{out}' is not a folder", "pass a folder for the two files")
    paths = _write_both(out, {PR_FILE: pr_text, ISSUE_FILE: issue_text})

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
        ),
        checkboxes=merged.boxes,
        policy_conflicts=merged.conflicts + note_conflicts,
        repo_notes=notes,
        issue_form=issue_use,
        lint_pr=lint_pr,
        lint_issue=lint_issue,
        lint_skipped=skipped,
        warnings=warnings,
    )
