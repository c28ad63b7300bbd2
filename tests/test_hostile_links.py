"""No link is followed out of the campaign folder, and no reader takes a kernel pseudo-file or NUL bytes.

Each case plants a real link or file: `commits/` linked to another folder (its names must not reach
the PR draft), a trace folder linked out, `verify/` and `records/` linked to `/` (lint must not walk
the disk), lint_wording pointed at /proc/self/environ directly or through a link, and files with NUL
bytes. A marker in the outside folder, and in the environment, shows what leaked if anything did.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.gitbuild import Repo
from perfkit.errors import InputError
from perfkit.lint.lint import lint_wording
from perfkit.publish.render import render_pr
from test_render_pr import DRAFT, make_campaign

SECRET = "zz-secret-project-name"


@pytest.fixture
def world(tmp_path):
    campaign = make_campaign(tmp_path / "campaign")
    repo = Repo(tmp_path / "repo")
    repo.commit("init", {"README.md": "demo\n"})
    outside = tmp_path / "outside"
    (outside / SECRET / "trace").mkdir(parents=True)
    (outside / SECRET / "report.md").write_text(f"# {SECRET}\nstep time 123.456 s\n")
    return campaign, repo, outside


def _render(tmp_path: Path, campaign: Path, repo: Repo) -> str:
    res = render_pr(str(campaign), str(repo.path), draft=DRAFT, out_dir=str(tmp_path / "out"))
    return Path(res.pr_path).read_text() + Path(res.issue_path).read_text() + res.model_dump_json()


def test_a_commits_folder_linked_out_of_the_campaign_is_not_listed(tmp_path, world):
    campaign, repo, outside = world
    commits = campaign / "commits"
    if commits.exists():
        os.rename(commits, tmp_path / "commits.saved")
    commits.symlink_to(outside, target_is_directory=True)
    try:
        text = _render(tmp_path, campaign, repo)
    except InputError as exc:  # refused, naming the link: as good as not following it
        assert exc.field == "commits" and "outside the campaign" in str(exc)
        text = str(exc)
    assert SECRET not in text


def test_a_trace_or_commit_folder_linked_out_is_not_listed(tmp_path, world):
    campaign, repo, outside = world
    commits = campaign / "commits"
    commits.mkdir(exist_ok=True)
    (commits / SECRET).symlink_to(outside / SECRET, target_is_directory=True)
    own = commits / "abcdef1234567"
    own.mkdir()
    (own / "trace").symlink_to(outside / SECRET / "trace", target_is_directory=True)
    text = _render(tmp_path, campaign, repo)
    assert SECRET not in text and "abcdef1234567" not in text


@pytest.mark.parametrize("to", ["root", "outside"])
@pytest.mark.parametrize("sub", ["verify", "records"])
def test_lint_never_walks_a_folder_linked_out(tmp_path, world, sub, to):
    """A folder linked to / or to a folder holding 123.456: lint reads the campaign as if it were not
    there (the same findings, 123.456 still unbacked), or refuses naming the link."""
    campaign, _, outside = world
    text = "## Summary\n\nThe step time fell from 1.00 s to 0.90 s; one step took 123.456 s.\n"
    target = campaign / sub
    if target.exists():
        os.rename(target, tmp_path / f"{sub}.saved")
    without = lint_wording(text=text, campaign_dir=str(campaign)).findings
    assert any("123.456" in f.excerpt for f in without), without  # the number the outside folder would back
    target.symlink_to("/" if to == "root" else outside / SECRET, target_is_directory=True)
    try:
        linked = lint_wording(text=text, campaign_dir=str(campaign)).findings
    except InputError as exc:  # refused, naming the link, is fine too; reading through it is not
        assert sub in exc.field and "outside the campaign" in str(exc), exc
        return
    assert linked == without


def test_files_linked_out_of_the_campaign_back_no_figure(tmp_path, world):
    """A number written only in an outside file reached through a link in verify/ is not taken as data."""
    campaign, _, outside = world
    (campaign / "verify").mkdir(exist_ok=True)
    (campaign / "verify" / "numbers.md").symlink_to(outside / SECRET / "report.md")
    found = lint_wording(text="## Summary\n\nThe step time is 123.456 s.\n", campaign_dir=str(campaign)).findings
    assert any("123.456" in f.excerpt for f in found), found


@pytest.mark.parametrize("how", ["direct", "link"])
def test_lint_wording_refuses_proc_self_environ(tmp_path, how, monkeypatch):
    monkeypatch.setenv("PERFKIT_TEST_SECRET", SECRET)
    path = Path("/proc/self/environ")
    if how == "link":
        path = tmp_path / "draft.md"
        path.symlink_to("/proc/self/environ")
    with pytest.raises(InputError) as err:
        lint_wording(path=str(path))
    assert err.value.field == "path"
    assert SECRET not in str(err.value)


@pytest.mark.parametrize("where", [0, 100_000])
def test_lint_wording_refuses_nul_bytes_anywhere(tmp_path, where):
    path = tmp_path / "draft.md"
    text = "## Summary\n\n" + "word " * 30_000
    path.write_bytes(text[:where].encode() + b"\0" + text[where:].encode())
    with pytest.raises(InputError, match="NUL") as err:
        lint_wording(path=str(path))
    assert err.value.field == "path"
