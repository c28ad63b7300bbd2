"""lint_wording: run every wording rule over a description or an issue."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from perfkit.draft.argument import DraftArgument
from perfkit.errors import InputError
from perfkit.guards import limits
from perfkit.lint.models import Finding, LintResult

if TYPE_CHECKING:
    from perfkit.draft.model import Draft

CLAIM_RULES = ("wrong-figure", "two-measurements", "unchanged", "unstated-cost")
MAX_BYTES = 512 * 1024  # GitHub takes 65,536 characters in a PR or issue body; 8x that is never a draft
_TOO_BIG = "GitHub accepts at most 65,536 characters in a PR or issue body: pass one description or issue"


def check_size(text: str, field: str) -> None:
    """Refuse text over the cap before any rule runs, naming its size."""
    size = len(text.encode("utf-8", "surrogatepass")) if len(text) <= MAX_BYTES else len(text)
    if size > MAX_BYTES:
        raise InputError(
            field, f"is {size / 1024:,.0f} KB, larger than the {MAX_BYTES // 1024} KB lint reads", _TOO_BIG
        )


def detect_kind(text: str, name: str = "") -> str:
    from perfkit.lint import markdown
    from perfkit.markdown import parse_blocks

    low = Path(name).name.lower()  # the file's own name: a folder called 'issue-42' says nothing
    if "issue" in low:
        return "issue"
    if "pr-description" in low or "pull" in low:
        return "pr"
    heads = [markdown.norm_heading(b.text) for b in parse_blocks(text) if b.kind == "heading"]
    return "pr" if any(h in ("summary", "speedup result", "correctness verification") for h in heads) else "issue"


def lint_text(
    text: str,
    kind: str,
    figures: Any = None,
    repo_lines: set[str] | None = None,
    allowed_headings: set[str] | None = None,
    issue_title_prefixes: list[str] | None = None,
    job: str | None = None,
    template_text: set[str] | None = None,
) -> tuple[list[Finding], list[str], list[str]]:
    """(findings sorted by position, rules run, rules skipped with the reason). template_text: the repo
    template's lines that are not structure (normalised), which must not survive into the text."""
    from perfkit.lint import markdown, rules  # compiled patterns: loaded on first use, not at tool listing
    from perfkit.lint.template_text import rule_template_text

    doc = markdown.parse(text, repo_lines)
    ctx = rules.Context(
        kind=kind,
        figures=figures,
        allowed_headings=allowed_headings,
        issue_title_prefixes=issue_title_prefixes or [],
        job=job,
    )
    found: list[Finding] = []
    run, skipped = [], []
    for rule_id, fn in rules.RULES.items():
        if rule_id == "unbacked-number" and figures is None:
            skipped.append("unbacked-number: no campaign_dir given, so numbers were not checked against the data")
            continue
        if rule_id in CLAIM_RULES and figures is None:
            continue  # said once, under unbacked-number
        if rule_id == "unrequested-section" and allowed_headings is None:
            skipped.append("unrequested-section: no repo given, so headings were not checked against its templates")
            continue
        if rule_id in ("structure", "no-checks") and kind != "pr":
            continue
        run.append(rule_id)
        found += fn(doc, ctx)
    if template_text is not None:
        run.append("template-text")
        found += rule_template_text(doc, template_text)
    uniq = {(f.rule, f.line, f.column): f for f in found}
    return sorted(uniq.values(), key=lambda f: (f.line, f.column, f.rule)), run, skipped


def repo_context(
    repo: str | Path, kind: str, commit: str | None = None
) -> tuple[set[str], set[str], list[str], list[str]]:
    """The repo's own template lines (not linted), its headings, its issue-title prefixes, and what was refused."""
    from perfkit.repo import contribution_files, template_text

    files = contribution_files.read_repo_files(Path(repo), commit)
    if kind == "pr":
        lines, heads = template_text.pr_template_lines(files)
        return lines, heads, [], files.skipped
    lines, heads, prefixes = template_text.issue_template_lines(files)
    return lines, heads, prefixes, files.skipped


def campaign_figures(campaign_dir: str, draft: Draft | str | None = None) -> Any:
    """Every figure the campaign backs, read with the same read_benchmark options render_pr used
    (draft: the Draft, or its JSON text or file path, a relative one tried in the campaign too)."""
    from perfkit.draft.load import load_draft
    from perfkit.lint.figures import FigureSet
    from perfkit.lint.options import bench_options, draft_words

    d = load_draft(draft, campaign_dir)
    bench = bench_options(d).read(campaign_dir)  # the same options as render_pr
    arms, unit = draft_words(d)
    return FigureSet.from_campaign(campaign_dir, bench, arms, unit)


def lint_wording(
    path: Annotated[
        str | None,
        Field(description="A Markdown file to check (for example proposed-pr-description.md). Give path or text."),
    ] = None,
    text: Annotated[str | None, Field(description="Markdown text to check, instead of a file.")] = None,
    campaign_dir: Annotated[
        str | None,
        Field(
            description="The campaign folder. When given, every number in the text must match a figure of its "
            "files (read_benchmark, candidates, reports), within the rounding it is written with."
        ),
    ] = None,
    repo: Annotated[
        str | None,
        Field(
            description="The target repo. When given, lines copied from its templates are not checked (they are "
            "the repo's words) and headings its templates do not ask for are reported."
        ),
    ] = None,
    kind: Annotated[
        Literal["auto", "pr", "issue"],
        Field(
            description="Which title form and sections to check: 'pr', 'issue', or 'auto' (from the file name and "
            "headings)."
        ),
    ] = "auto",
    draft: Annotated[
        DraftArgument,
        Field(
            description="The draft given to render_pr (object, JSON text or file path), checked as render_pr checks "
            "it; its benchmark options (so the campaign's figures are read the same way), its changes' arms, its "
            "unit and its job (whose words are not campaign vocabulary) are used."
        ),
    ] = None,
    repo_commit: Annotated[
        str | None,
        Field(
            description="With repo: the commit, branch or tag whose templates the text follows (as given to "
            "render_pr). Default: HEAD."
        ),
    ] = None,
) -> LintResult:
    """Check the wording of a PR description or issue: em and en dashes, sales and filler words, review
    words aimed at the repo, campaign vocabulary and test-function names, stray bold, speedups without
    the hardware, scope wider than measured, the same number in two sections, sections the description
    leaves out, the title form and length, the description's structure, words of change the figures contradict
    ('0.86x faster'), tolerances claimed with no check, and, given the campaign, each figure bound to the datum
    its words name: numbers (and '2x', 'twice') the data does not back, another metric's, arm's or statistic's
    figure, from and to swapped, a commit's screening quoted unnamed, 'unchanged' on a significant change, a
    significant regression the Summary does not state. Each finding has a rule id, line, column, excerpt and a
    one-line fix naming the figure the data has. On the command line, exit status 1 when there are findings.
    Reads only."""
    if (path is None) == (text is None):
        raise InputError("path", "give exactly one of `path` and `text`", "pass the file to check, or its text")
    source = "<text>"
    if path is not None:
        p = Path(path).expanduser()
        if not p.is_file():
            raise InputError("path", f"'{path}' is not a file", "pass the path of a Markdown file")
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise InputError("path", f"'{path}' is {size / 1024:,.0f} KB, larger than the 512 KB lint reads", _TOO_BIG)
        data = limits.read_regular_bytes(p, "path", MAX_BYTES, _TOO_BIG)  # no /proc file, no FIFO, bounded
        if b"\0" in data:
            raise InputError("path", f"'{path}' holds NUL bytes: it is a binary file, not text", "pass a Markdown file")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                "path",
                f"'{path}' is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start})",
                "save it as UTF-8, the encoding GitHub expects",
            ) from None
        source = str(p)
    elif text is not None:
        check_size(text, "text")
    assert text is not None
    k = kind if kind != "auto" else detect_kind(text, source)
    figures = None
    if campaign_dir is not None and not Path(campaign_dir).expanduser().is_dir():
        raise InputError("campaign_dir", f"'{campaign_dir}' is not a folder", "pass the campaign folder")
    from perfkit.draft.load import load_draft
    from perfkit.lint.options import draft_job

    d = load_draft(draft, str(Path(campaign_dir or ".").expanduser()))
    if campaign_dir is not None:
        figures = campaign_figures(str(Path(campaign_dir).expanduser()), d)
    if repo_commit is not None and repo is None:
        raise InputError("repo_commit", "is given without repo", "pass repo too, or leave repo_commit out")
    repo_lines = allowed = None
    prefixes: list[str] = []
    repo_skipped: list[str] = []
    if repo is not None:
        from perfkit.repo import gitrepo

        top = gitrepo.open_repo(repo)
        repo_lines, allowed, prefixes, repo_skipped = repo_context(top, k, repo_commit)
    job = draft_job(d)
    survived = None
    if repo is not None and k == "pr":
        from perfkit.lint.template_text import instruction_lines
        from perfkit.repo import contribution_files, template_text

        files = contribution_files.read_repo_files(top, repo_commit)
        singles, folder = template_text.pr_template_paths(files)
        survived = instruction_lines([files.texts[p] for p in singles + folder])
    findings, run, skipped = lint_text(text, k, figures, repo_lines, allowed, prefixes, job, survived)
    return LintResult(
        source=source,
        kind=k,
        findings=findings,
        rules_run=run,
        rules_skipped=skipped,
        figures=len(figures) if figures is not None else 0,
        repo_skipped=repo_skipped,
    )
