"""render_pr's two files: checked before any write, written together, nothing of the user's lost."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from helpers.gitbuild import Repo
from perfkit.errors import InputError
from perfkit.publish.outputs import write_all
from perfkit.publish.render import ISSUE_FILE, PR_FILE, render_pr
from test_render_pr import DRAFT, make_campaign


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("o")
    campaign = make_campaign(root / "campaign")
    r = Repo(root / "repo")
    r.commit("t", {".github/PULL_REQUEST_TEMPLATE.md": "## Tests\n\n<!-- what ran -->\n"})
    return campaign, r.path


def test_an_issue_file_that_is_a_folder_loses_nothing(tmp_path, setup):
    campaign, repo = setup
    out = tmp_path / "out"
    out.mkdir()
    (out / PR_FILE).write_text("my own edits\n")
    os.chmod(out / PR_FILE, 0o640)
    (out / ISSUE_FILE).mkdir()
    (out / ISSUE_FILE / "notes.txt").write_text("keep\n")
    with pytest.raises(InputError) as e:
        render_pr(str(campaign), str(repo), draft=DRAFT, out_dir=str(out))
    assert e.value.field == "out_dir" and ISSUE_FILE in e.value.problem and "is a folder" in e.value.problem
    assert (out / PR_FILE).read_text() == "my own edits\n"
    assert stat.S_IMODE(os.stat(out / PR_FILE).st_mode) == 0o640
    assert (out / ISSUE_FILE / "notes.txt").read_text() == "keep\n"
    assert sorted(p.name for p in out.iterdir()) == [ISSUE_FILE, PR_FILE]  # no temporary file left behind


def test_a_replaced_file_keeps_its_mode_and_a_new_one_follows_the_umask(tmp_path, setup):
    campaign, repo = setup
    out = tmp_path / "out"
    out.mkdir()
    (out / PR_FILE).write_text("old\n")
    os.chmod(out / PR_FILE, 0o604)
    old = os.umask(0o027)
    try:
        res = render_pr(str(campaign), str(repo), draft=DRAFT, out_dir=str(out))
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(res.pr_path).st_mode) == 0o604
    assert stat.S_IMODE(os.stat(res.issue_path).st_mode) == 0o640
    assert Path(res.pr_path).read_text().startswith("# [perf] ")


@pytest.mark.parametrize("where", ["/proc/self/x", "/sys/kernel/x", "/dev/null", "/dev/shm/perfkit-out"])
def test_system_folders_are_refused(setup, where):
    campaign, repo = setup
    with pytest.raises(InputError) as e:
        render_pr(str(campaign), str(repo), draft=DRAFT, out_dir=where)
    assert e.value.field == "out_dir" and ("system folder" in e.value.problem or "not a folder" in e.value.problem)
    assert not Path("/dev/shm/perfkit-out").exists()


def test_a_fifo_at_a_target_is_refused_before_writing(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / ISSUE_FILE)
    with pytest.raises(InputError) as e:
        write_all(out, {PR_FILE: "a\n", ISSUE_FILE: "b\n"})
    assert "not a regular file" in e.value.problem and not (out / PR_FILE).exists()


def test_a_failure_while_writing_leaves_the_old_files(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / PR_FILE).write_text("old pr\n")
    (out / ISSUE_FILE).write_text("old issue\n")
    real = os.replace
    calls = []

    def replace_fails_on_second(src, dst):
        calls.append(dst)
        if len(calls) == 1:
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace_fails_on_second)
    with pytest.raises(OSError):
        write_all(out, {PR_FILE: "new pr\n", ISSUE_FILE: "new issue\n"})
    assert (out / PR_FILE).read_text() == "old pr\n" and (out / ISSUE_FILE).read_text() == "old issue\n"
    assert sorted(p.name for p in out.iterdir()) == [ISSUE_FILE, PR_FILE]
