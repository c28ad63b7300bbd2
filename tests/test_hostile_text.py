"""Text written by others reaches drafts inert, and lint names what would act once posted.

Candidate titles (campaign records) and the draft carry an `@org/team` mention, `<img onerror=...>`,
a `javascript:` link, a right-to-left override and a zero-width space, the way a hostile commit
subject or a careless copy would. render_pr must write none of them live (as code, or dropped for
hidden characters), and lint_wording must flag each one in a hand-written draft at its place, but
not the look-alikes that are harmless: an e-mail address, a mention inside code, `<details>`,
a placeholder in angle brackets, a "Data:" label, a web link.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers.gitbuild import Repo
from perfkit.lint.lint import lint_wording
from perfkit.publish.render import render_pr
from test_render_pr import DRAFT, make_campaign

LIVE_RULES = {"mention", "raw-html", "link-scheme", "hidden-char"}
HOSTILE_TITLES = [
    "Cache the mask (thanks @acme/perf-team)",
    "Pad batches <img src=x onerror=alert(1)>",
    "Channels-last [docs](javascript:alert(1)) \u202eevil\u200b",
]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("text")
    campaign = make_campaign(tmp / "campaign")
    path = campaign / "records" / "candidates.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for record, title in zip(records, HOSTILE_TITLES, strict=False):
        record["title"] = title
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    repo = Repo(tmp / "repo")
    repo.commit("init", {"README.md": "demo\n", ".github/PULL_REQUEST_TEMPLATE.md": "## Summary\n\ncc @maintainers\n"})
    draft = json.loads(json.dumps(DRAFT))
    res = render_pr(str(campaign), str(repo.path), draft=draft, out_dir=str(tmp / "out"))
    return res, repo


def test_render_pr_writes_no_live_mention_html_link_or_hidden_character(rendered):
    res, repo = rendered
    for path in (res.pr_path, res.issue_path):
        text = Path(path).read_text()
        assert "\u202e" not in text and "\u200b" not in text
        found = lint_wording(path=path, repo=str(repo.path)).findings
        assert not [f for f in found if f.rule in LIVE_RULES], found
    text = Path(res.pr_path).read_text()
    # every title is still there, its active part as code and its hidden characters dropped: the two
    # shipped ones in the per-commit table, the third under what was tried and not kept
    assert "| Cache the mask (thanks `@acme/perf-team`) |" in text
    assert "| Pad batches `<img src=x onerror=alert(1)>` |" in text
    # the link is shown as code; a backslash the escaping put before its ']' shows inside the code span
    # (cosmetic, inert either way: the page shows text, never a link)
    assert re.search(r"- Channels-last `\[docs\\?\]\(javascript:alert\(1\)\)` evil: ", text), text
    for live in ("thanks @acme", "batches <img", "last [docs]"):
        assert live not in text, live
    assert "cc @maintainers" in text  # the repository's own template text stays as the template has it


PLANTED = [
    ("Thanks @alice for the trace.", "mention", "@alice"),
    ("Found first by @acme/perf-team.", "mention", "@acme/perf-team"),
    ("See <img src=x onerror=alert(1)> here.", "raw-html", "<img src=x onerror=alert(1)>"),
    ("See <svg/onload=alert(1)> here.", "raw-html", "<svg/onload=alert(1)>"),
    ('A <a href="javascript:alert(1)">link</a>.', "raw-html", '<a href="javascript:alert(1)">'),
    ("See [the log](javascript:alert(1)) here.", "link-scheme", "[the log](javascript:alert(1))"),
    ("See <vbscript:run> here.", "link-scheme", "<vbscript:run>"),
    ("An image data:text/html;base64,PHNjcmlwdD4= here.", "link-scheme", "data:text/html;"),
    ("The loader \u202eis fixed.", "hidden-char", "\u202e"),
    ("The loader \u2066is\u2069 fixed.", "hidden-char", "\u2066"),
    ("The\u200bloader is fixed.", "hidden-char", "\u200b"),
    ("The loader `is\u202e` fixed.", "hidden-char", "\u202e"),  # in code too: it changes what code reads
]


@pytest.mark.parametrize("sentence,rule,excerpt", PLANTED, ids=[f"{r}-{i}" for i, (_, r, _) in enumerate(PLANTED)])
def test_lint_flags_text_that_acts_once_posted_where_it_sits(sentence, rule, excerpt):
    text = f"## Summary\n\nThe loader was slow.\n\n{sentence}\n"
    found = [f for f in lint_wording(text=text).findings if f.rule in LIVE_RULES]
    assert [(f.rule, f.line) for f in found][:1] == [(rule, 5)], found
    f = found[0]
    assert f.excerpt == excerpt
    assert text.split("\n")[f.line - 1][f.column - 1 :].startswith(excerpt)
    assert f.fix and "\n" not in f.fix


HARMLESS = [
    "Write to perf@example.com for access.",
    "The flag is `@torch.compile` in code.",
    "```\n@decorator\n<img src=x onerror=y>\n```",
    "<details><summary>Logs</summary>\n\nnothing\n\n</details>",
    "Replace <fork verify branch> with yours.",
    "Data: the attached CSV.",
    "See [the docs](https://example.com/docs) and <https://example.com>.",
    "<!-- @someone would be notified, but comments do not render -->",
]


@pytest.mark.parametrize("sentence", HARMLESS)
def test_harmless_look_alikes_are_not_flagged(sentence):
    text = f"## Summary\n\nThe loader was slow.\n\n{sentence}\n"
    found = [f for f in lint_wording(text=text).findings if f.rule in LIVE_RULES]
    assert found == []
