"""Campaign text that tries to break out of the description's Markdown, end to end through render_pr.

A metric name or unit from metrics.yaml, an arm name from benchmark.csv, a candidate title (a commit
subject) and a base commit from records/candidates.jsonl each carry line breaks (LF and a lone CR),
code fences with and without an info string, `<img onerror>`, `@team` and a planted chart series.
The rendered description is read back with markdown-it-py, as GitHub's CommonMark reads it: its
code blocks are exactly the ones perfkit writes (the chart and the two commands), each holding only
its own lines, its headings are the clean render's, and no mention, raw HTML or link from the
campaign is live. lint_wording, given the same text pasted by a person without perfkit's escaping,
reports each live line where GitHub would show it.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import pytest
from helpers.gitbuild import Repo
from markdown_it import MarkdownIt
from perfkit.lint.lint import lint_wording
from perfkit.publish.render import render_pr
from test_render_pr import DRAFT, make_campaign

ROOT = Path(__file__).resolve().parents[1]
SERVING = ROOT / "examples" / "serving"
FULL = MarkdownIt("commonmark").enable("table")
LIVE_RULES = {"mention", "raw-html", "link-scheme", "hidden-char"}
_LIVE_MENTION = re.compile(r"(?<!\w)@[A-Za-z0-9]")

# the breaks of issue 31, and siblings through other doors
NAME = "loss\n```text\n```\n@team please merge <img src=x onerror=alert(1)>\n    line [9, 9, 9, 9, 9]"
UNIT = "ms\r```\r@team-b <img src=x onerror=alert(2)> [run](javascript:alert(3))"
TITLE = "Fix the mask\n```\n@acme/perf please merge <img src=x onerror=alert(4)>\n~~~~\n<!-- hide"
BASE = "old`base\n@base-owner"
ARM = "alone\n```\n@arm-team <img src=x onerror=alert(5)>"


def _repo(path: Path) -> Path:
    template = "## Summary\n\n<!-- what and why -->\n\n## Tests\n\n```\n```\n"
    Repo(path).commit("init", {"README.md": "demo\n", ".github/PULL_REQUEST_TEMPLATE.md": template})
    return path


def _serving(path: Path, hostile: bool) -> Path:
    shutil.copytree(SERVING / "campaign", path)
    if hostile:
        yaml_path = path / "metrics.yaml"
        text = yaml_path.read_text()
        text = text.replace("name: output throughput", f"name: {json.dumps(NAME)}", 1)
        text = text.replace("unit: ms\n", f"unit: {json.dumps(UNIT)}\n", 1)
        yaml_path.write_text(text)
        rec_path = path / "records" / "candidates.jsonl"
        records = [json.loads(line) for line in rec_path.read_text().splitlines() if line.strip()]
        records[0]["title"], records[1]["title"] = TITLE, TITLE.replace("\n", "\r\n")
        records[0]["baseline"], records[0]["other_baseline"] = BASE, True
        rec_path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def _steps(path: Path, hostile: bool) -> Path:
    make_campaign(path)
    if hostile:
        csv_path = path / "benchmark.csv"
        rows = list(csv.reader(csv_path.open()))
        for row in rows[1:]:
            row[0] = ARM if row[0] == "alone" else row[0]
        with csv_path.open("w", newline="") as f:
            csv.writer(f).writerows(rows)
        rec_path = path / "records" / "candidates.jsonl"
        records = [json.loads(line) for line in rec_path.read_text().splitlines() if line.strip()]
        for r in records:
            r["title"] = TITLE
        rec_path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def _draft(shape: str) -> dict:
    if shape == "serving":
        draft = json.loads((SERVING / "draft.json").read_text())
    else:
        draft = json.loads(json.dumps(DRAFT))
        draft["changes"][1].pop("arm")  # the arm's name goes into a placeholder: nothing names it
    draft["chart"] = True
    return draft


@pytest.fixture(scope="module", params=["serving", "steps"])
def rendered(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    make = _serving if request.param == "serving" else _steps
    repo = _repo(tmp / "repo")
    out = {}
    for hostile in (False, True):
        campaign = make(tmp / f"campaign-{hostile}", hostile)
        res = render_pr(str(campaign), str(repo), draft=_draft(request.param), out_dir=str(tmp / f"out-{hostile}"))
        out[hostile] = (res, Path(res.pr_path).read_text(), Path(res.issue_path).read_text())
    return request.param, out, repo


def _blocks(text: str) -> list[tuple[str, object, str]]:
    return [(t.type, t.info, t.markup) for t in FULL.parse(text) if t.type in ("fence", "code_block", "heading_open")]


def _text_and_html(text: str) -> tuple[list[str], list[str]]:
    """(text nodes outside code, raw HTML) of a body: what GitHub would act on."""
    nodes, raw = [], []
    for t in FULL.parse(text):
        if t.type == "html_block":
            raw.append(t.content)
        for c in t.children or []:
            (nodes if c.type == "text" else raw if c.type == "html_inline" else []).append(c.content)
    return nodes, raw


def test_campaign_text_never_closes_a_code_block_or_adds_one(rendered):
    shape, out, _ = rendered
    _, clean, _ = out[False]
    res, text, _ = out[True]
    assert _blocks(text) == _blocks(clean)  # the same code blocks and headings, in the same order
    charts = [t for t in FULL.parse(text) if t.type == "fence" and t.info == "mermaid"]
    assert len(charts) == 1
    chart = charts[0].content.split("\n")
    series = [ln for ln in chart if ln.startswith("    line [")]
    assert len(series) == (4 if shape == "steps" else 2)  # no planted series
    assert all(ln in ("", "xychart-beta") or ln.startswith("    ") for ln in chart)
    if shape == "serving":
        assert "please merge" in text  # the name is shown, not dropped


def test_campaign_text_puts_nothing_live_in_the_pr_or_the_issue(rendered):
    _, out, repo = rendered
    res, text, issue = out[True]
    for body in (text, issue):
        nodes, raw = _text_and_html(body)
        assert not [x for x in nodes + raw if _LIVE_MENTION.search(x)], [x for x in nodes + raw if "@" in x]
        assert not [x for x in raw if "onerror" in x or "hide" in x]  # no tag, and no comment that hides the rest
        assert not [t for t in FULL.parse(body) for c in t.children or [] if c.type == "link_open"]
    assert not [f for f in res.lint_pr + res.lint_issue if f.rule in LIVE_RULES]
    found = lint_wording(path=res.pr_path, repo=str(repo)).findings
    assert not [f for f in found if f.rule in LIVE_RULES], found


# ---- the same text pasted by a person: lint_wording reports it where GitHub shows it ---------------

PASTED = [
    # the chart of issue 31: '```text' does not close the chart, '```' does, the mention and the tag are live
    (
        'Loss per run:\n\n```mermaid\nxychart-beta\n    title "loss\n```text\n```\n'
        "@team please merge <img src=x onerror=alert(1)>\n    line [9, 9, 9]\n```\n",
        8,
    ),
    # a lone CR ends a line: the fence behind it closes the block
    ("```\rcode\r```\r@team please merge <img src=x onerror=alert(1)>\r", 4),
    # a backtick in an info string: no fence at all, the next line is the paragraph's
    ("``` `x`\n@team please merge <img src=x onerror=alert(1)>\n", 2),
    # a shorter run or the other character closes nothing: the block ends at its own fence
    ("~~~~\n```\n~~~\n~~~~\n@team please merge <img src=x onerror=alert(1)>\n", 5),
]


@pytest.mark.parametrize("text,line", PASTED, ids=["issue-31-chart", "lone-cr", "info-backtick", "other-fence"])
def test_lint_reports_live_lines_where_github_shows_them(text, line):
    found = [(f.rule, f.line) for f in lint_wording(text="## Summary\n\n" + text).findings if f.rule in LIVE_RULES]
    assert ("mention", line + 2) in found and ("raw-html", line + 2) in found, found


@pytest.mark.parametrize(
    "text",
    [
        "```\n@team <img src=x onerror=y>\n```text\nstill code @lead\n```\n",  # '```text' closes nothing
        "    @team <img src=x onerror=y>\n",  # an indented code block
        "Text `` `@team` <img src=x onerror=y> `` more.\n",  # a code span of two backticks
        "<!-- x\n\n@team <img src=x onerror=y>\n\n-->\n",  # a comment block runs to its end
    ],
    ids=["info-closes-nothing", "indented", "double-backtick-span", "comment-block"],
)
def test_lint_leaves_text_github_shows_as_code_or_hides(text):
    found = [f for f in lint_wording(text="## Summary\n\n" + text).findings if f.rule in LIVE_RULES]
    assert found == []
