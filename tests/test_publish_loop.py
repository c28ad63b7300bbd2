"""The agent's loop over render_pr, driven through MCP and the CLI on eight template shapes.

A scripted agent (tests/helpers/publish_agent.py) reads only the tool's result: it answers each open
item of left_for_human from the example draft's facts, hands over what it cannot know, and renders
again. On every shape the loop ends in at most three renders with nothing open in left_for_human,
no template instruction text in the body (judged by shape, not by perfkit's parse), lint clean, and
no answer overwritten. The shapes (tests/shapes/longtail/loop/) are written for these tests.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import anyio
import pytest
from helpers import publish_agent
from helpers.gitbuild import Repo
from helpers.procs import perfkit

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent / "shapes" / "longtail" / "loop"
SHAPES = {
    d.name: {str(p.relative_to(d)): p.read_text() for p in sorted(d.rglob("*")) if p.is_file()}
    for d in sorted(HERE.iterdir())
    if d.is_dir()
}
DRAFT = json.loads((ROOT / "examples" / "publish" / "draft.json").read_text())


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    c = tmp_path_factory.mktemp("c") / "campaign"
    shutil.copytree(ROOT / "examples" / "campaign", c)
    return c


def _template(files: dict[str, str]) -> str:
    return next(v for k, v in files.items() if "pull_request_template" in k.lower())


def _mcp(campaign: Path, repo: Path, out: Path):
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    def render(draft: dict) -> tuple[dict, str]:
        async def go():
            async with Client(build_server(), mode="legacy") as c:
                return await c.call_tool(
                    "render_pr", {"campaign_dir": str(campaign), "repo": str(repo), "draft": draft, "out_dir": str(out)}
                )

        res = anyio.run(go)
        assert not res.is_error, res.content
        return res.structured_content, (out / "proposed-pr-description.md").read_text()

    return render


def _cli(campaign: Path, repo: Path, out: Path):
    """The CLI's own entry point (argument parsing, the JSON it prints), in this process: a loop of renders
    per shape as subprocesses would cost a minute each; the process boundary is tested once below."""
    import contextlib
    import io

    from perfkit.cli import main

    def render(draft: dict) -> tuple[dict, str]:
        path = out.parent / "draft.json"
        path.write_text(json.dumps(draft))
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = main(["render-pr", str(campaign), str(repo), "--draft", str(path), "--out-dir", str(out), "--json"])
        assert rc == 0
        return json.loads(buf.getvalue()), (out / "proposed-pr-description.md").read_text()

    return render


def _loop(render, template: str) -> tuple[int, dict, str, dict]:
    draft = json.loads(json.dumps(DRAFT))
    for n in range(1, 4):
        res, body = render(draft)
        nxt = publish_agent.next_draft(draft, res)
        if nxt is None:
            return n, res, body, draft
        draft = nxt
    return 4, res, body, draft


def _check_end(shape: str, n: int, res: dict, body: str, draft: dict) -> None:
    template = _template(SHAPES[shape])
    assert n <= 3, f"{shape}: the loop took more than three renders"
    open_items = [i for i in res["left_for_human"] if not i["deliberate"]]
    assert open_items == [], f"{shape}: {open_items}"
    assert res["lint_pr"] == [] and res["lint_issue"] == [], (res["lint_pr"], res["lint_issue"])
    assert publish_agent.surviving_template_text(template, body) == [], shape
    assert publish_agent.overwritten(draft, res, body) == [], shape
    for use in res["answers"]:
        assert use["effect"] in ("answered", "removed"), use  # nothing refused or sharing a place at the end


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_loop_ends_through_mcp(tmp_path, campaign, shape):
    repo = tmp_path / "repo"
    Repo(repo).commit("templates", SHAPES[shape])
    n, res, body, draft = _loop(_mcp(campaign, repo, tmp_path / "out"), _template(SHAPES[shape]))
    _check_end(shape, n, res, body, draft)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_loop_ends_through_the_cli(tmp_path, campaign, shape):
    repo = tmp_path / "repo"
    Repo(repo).commit("templates", SHAPES[shape])
    n, res, body, draft = _loop(_cli(campaign, repo, tmp_path / "out"), _template(SHAPES[shape]))
    _check_end(shape, n, res, body, draft)


def test_the_cli_process_prints_what_needs_an_answer_and_what_is_left(tmp_path, campaign):
    repo = tmp_path / "repo"
    Repo(repo).commit("templates", SHAPES["bold_labels"])
    (tmp_path / "d.json").write_text(json.dumps(DRAFT))
    human = perfkit(
        "render-pr", str(campaign), str(repo), "--draft", str(tmp_path / "d.json"), "--out-dir", str(tmp_path / "h")
    )
    assert human.returncode == 0, human.stderr
    out = human.stdout
    assert "to answer by id:" in out and "left for the human:" in out
    assert "open placeholder" in out and "Screenshots" in out  # the open question, with its heading


def test_first_drafts_list_every_open_part_with_its_prompt(tmp_path, campaign):
    """Before the agent acts, each open question is listed with its id, meaning and the template's prompt."""
    repo = tmp_path / "repo"
    Repo(repo).commit("templates", SHAPES["testing_done"])
    res, body = _mcp(campaign, repo, tmp_path / "out")(DRAFT)
    testing = next(p for p in res["template_parts"] if p["template"] == "## Testing Done")
    assert testing["role"] == "question" and testing["meaning"] == "tests"
    # the draft's 'Tests' answer reached 'Testing Done' by meaning, and the question's checklist stays
    (use,) = [u for u in res["answers"] if u["key"] == "Tests"]
    assert (use["landed"], use["how"], use["effect"]) == (testing["id"], "meaning", "answered")
    assert "## Testing Done\n\n`tests/test_bucketing.py`" in body and "- [ ] Unit tests" in body
    # an open question is listed with its id, meaning and the template's own prompt
    items = {i["id"]: i for i in res["left_for_human"] if i["kind"] == "placeholder" and i["id"]}
    description = next(p for p in res["template_parts"] if p["template"] == "## Description")
    assert description["role"] == "covered" and "## Description\n\nSee Summary above." in body
    speed = next(p for p in res["template_parts"] if p["template"] == "Decode speed: <BLANK>")
    assert speed["meaning"] == "results" and "Decode speed: See Speedup Result above." in body
    # what the draft cannot say stays open, listed with its id and the template's prompt
    assert all(i["prompt"] or i["meaning"] for i in items.values())
    # the draft's facts went where the fields ask for them, by meaning
    assert "Device: 8 x H100" in body and "Model used: Paraformer-large" in body
    # a reworded box matched by meaning: 'Have you read the contributor guidelines?' / 'I have read the ... guide.'
    assert "1. [x] Have you read the contributor guidelines?" in body
    assert "3. [ ] Did you update the docs? (not ticked: the new option is not in the docs yet)" in body
    assert "<BLANK>" not in body and "Testing Done: this is a required section" not in body


FORM_WITH_BOX = """\
name: Performance report
description: Something is slower than it could be.
body:
  - type: textarea
    id: observed
    attributes:
      label: What did you observe?
  - type: checkboxes
    id: checks
    attributes:
      label: Before submitting
      options:
        - label: I ran the nightly build.
          required: true
"""


def test_a_form_box_the_draft_cannot_back_takes_a_reason(tmp_path, campaign):
    from perfkit.publish.render import render_pr

    repo = tmp_path / "repo"
    Repo(repo).commit("forms", {".github/ISSUE_TEMPLATE/perf.yml": FORM_WITH_BOX})
    res = render_pr(str(campaign), str(repo), DRAFT, out_dir=str(tmp_path / "a"))
    assert "<tick what is true in 'Before submitting'>" in Path(res.issue_path).read_text()
    draft = json.loads(json.dumps(DRAFT))
    draft["issue"]["form_answers"] = {"checks": ["reason: I measured on the release branch, not a nightly."]}
    res = render_pr(str(campaign), str(repo), draft, out_dir=str(tmp_path / "b"))
    issue = Path(res.issue_path).read_text()
    assert "- [ ] I ran the nightly build.\n\nNot ticked: I measured on the release branch" in issue
    assert "<tick what is true" not in issue
    assert next(f for f in res.issue_form.fields if f.id == "checks").filled_with == ["form_answers", "reason"]
