"""repofiles: the target repo's templates come from git objects at one commit, links and huge files refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.gitbuild import Repo
from perfkit.errors import InputError
from perfkit.repo import contribution_files
from perfkit.repo.template_text import issue_template_lines, pr_template_lines

PR = "## Why\n\nExplain.\n\n- [ ] Tests added\n"


def _repo(tmp_path: Path, files: dict[str, str | bytes]) -> Repo:
    r = Repo(tmp_path / "target")
    r.commit("templates", files)
    return r


def test_reads_committed_text_not_the_working_tree(tmp_path):
    r = _repo(tmp_path, {".github/PULL_REQUEST_TEMPLATE.md": PR, "CONTRIBUTING.md": "Sign off commits.\n"})
    r.write(".github/PULL_REQUEST_TEMPLATE.md", "## Edited but not committed\n")
    files = contribution_files.read_repo_files(r.path)
    assert files.text(".github/PULL_REQUEST_TEMPLATE.md") == PR
    assert files.text("CONTRIBUTING.md") == "Sign off commits.\n"
    assert files.commit == r.head()
    assert files.skipped == []


def test_a_chosen_commit_is_read_and_a_bad_one_named(tmp_path):
    r = _repo(tmp_path, {"docs/pull_request_template.md": "## Old\n"})
    old = r.head()
    r.commit("new", {"docs/pull_request_template.md": "## New\n"})
    assert contribution_files.read_repo_files(r.path, old).text("docs/pull_request_template.md") == "## Old\n"
    assert contribution_files.read_repo_files(r.path).text("docs/pull_request_template.md") == "## New\n"
    with pytest.raises(InputError) as e:
        contribution_files.read_repo_files(r.path, "--output=/tmp/x")
    assert e.value.field == "repo_commit"


@pytest.mark.parametrize(
    "name",
    [".github/PULL_REQUEST_TEMPLATE.md", "CONTRIBUTING.md", ".github/ISSUE_TEMPLATE/bug.md", "docs/CONTRIBUTING.md"],
)
def test_symlinks_to_proc_and_outside_are_refused_and_reported(tmp_path, name):
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("TOKEN=abc123\n")
    r = Repo(tmp_path / "target")
    link = r.path / name
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink("/proc/self/environ", link)
    other = r.path / ".github" / "pull_request_template" / "perf.md"
    other.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(str(secret), other)
    r.commit("links")
    files = contribution_files.read_repo_files(r.path)
    assert name not in files.texts and ".github/pull_request_template/perf.md" not in files.texts
    assert f"skipped: {name} is a symlink (committed links are not followed)" in files.skipped
    assert any("pull_request_template/perf.md is a symlink" in s for s in files.skipped)
    assert not any("TOKEN" in t or "PATH=" in t for t in files.texts.values())


def test_a_linked_github_folder_is_not_entered(tmp_path):
    outside = tmp_path / "elsewhere"
    (outside / "ISSUE_TEMPLATE").mkdir(parents=True)
    (outside / "PULL_REQUEST_TEMPLATE.md").write_text("## Leaked\n")
    r = Repo(tmp_path / "target")
    os.symlink(str(outside), r.path / ".github")
    r.commit("linked folder", {"README.md": "x\n"})
    files = contribution_files.read_repo_files(r.path)
    assert files.texts == {}
    assert files.skipped == ["skipped: .github is a symlink (committed links are not followed)"]


def test_size_cap_skips_and_reports(tmp_path):
    big = "## Huge\n" + "x" * (contribution_files.MAX_FILE_BYTES + 1)
    r = _repo(tmp_path, {".github/PULL_REQUEST_TEMPLATE.md": big, "CONTRIBUTING.md": "ok\n"})
    files = contribution_files.read_repo_files(r.path)
    assert ".github/PULL_REQUEST_TEMPLATE.md" not in files.texts
    assert files.text("CONTRIBUTING.md") == "ok\n"
    assert files.skipped == ["skipped: .github/PULL_REQUEST_TEMPLATE.md is 1.0 MiB, more than the 1 MiB cap"]


def test_unborn_repo_has_no_files_and_says_so(tmp_path):
    r = Repo(tmp_path / "target")
    r.write(".github/PULL_REQUEST_TEMPLATE.md", PR)
    files = contribution_files.read_repo_files(r.path)
    assert files.commit is None and files.texts == {}
    assert files.skipped and "no commit" in files.skipped[0]


def test_encodings_and_case_insensitive_names(tmp_path):
    r = _repo(
        tmp_path,
        {
            ".github/pull_request_template.md": "\ufeff## Caf\u00e9\r\n\r\nBody\r\n".encode(),
            ".github/ISSUE_TEMPLATE/perf.yml": 'name: "\\U0001F680 Performance"\ntitle: "[Perf]: "\nbody:\n'
            "  - type: textarea\n    attributes:\n      label: What did you measure?\n",
            "docs/Contributing.rst": b"Titles: caf\xe9\n",
        },
    )
    files = contribution_files.read_repo_files(r.path)
    assert files.text(".github/pull_request_template.md") == "## Caf\u00e9\n\nBody\n"
    assert files.text("docs/Contributing.rst") == "Titles: caf\u00e9\n"  # Latin-1 fallback
    lines, heads = pr_template_lines(files)
    assert "## Caf\u00e9" in lines and "café" in heads
    ilines, iheads, prefixes = issue_template_lines(files)
    assert "### What did you measure?" in ilines and "what did you measure" in iheads and prefixes == ["[Perf]:"]
