"""The one fast-import writer (demo, tests, benches): what git reads back is what was written."""

from __future__ import annotations

import pytest
from helpers.gitbuild import run_git
from perfkit.cli.demo.fastimport import Commit, write_history


def test_bytes_modes_deletes_links_and_merges_read_back(tmp_path):
    repo = tmp_path / "r"
    sub_sha = "0123456789abcdef0123456789abcdef01234567"
    text = "naïve → ∑ dtype\n"  # more bytes than characters: a character count would cut the stream
    commits = [
        Commit("init: ünïcode subject\n\nbody ✓", {"a.txt": text, "run.sh": "#!/bin/sh\n"}, modes={"run.sh": "100755"}),
        Commit("side work", {"b.bin": b"\x00\xff\x10"}, branch="side", parents=[0]),
        Commit("main work", {"a.txt": text + "more\n"}, gitlinks={"runtime": sub_sha}),
        Commit("Merge side", {"b.bin": b"\x00\xff\x10"}, parents=[2, 1], deletes=["run.sh"]),
    ]
    shas = write_history(repo, commits, start_time=1_700_000_000, step=60)
    assert len(set(shas)) == 4 and run_git(repo, "rev-parse", "HEAD") == shas[3]
    assert run_git(repo, "rev-parse", "side") == shas[1]
    assert run_git(repo, "log", "-1", "--format=%B", shas[0]) == "init: ünïcode subject\n\nbody ✓"
    assert (repo / "a.txt").read_text() == text + "more\n"
    assert run_git(repo, "ls-tree", shas[0], "run.sh").startswith("100755 blob")
    assert run_git(repo, "rev-parse", f"{shas[2]}:runtime") == sub_sha
    assert run_git(repo, "ls-tree", shas[2], "runtime").startswith("160000 commit")
    assert run_git(repo, "log", "-1", "--format=%P", shas[3]).split() == [shas[2], shas[1]]
    assert run_git(repo, "log", "-1", "--format=%P", shas[1]).split() == [shas[0]]
    assert not (repo / "run.sh").exists() and (repo / "b.bin").read_bytes() == b"\x00\xff\x10"
    times = run_git(repo, "log", "--format=%at %ct", "--all", "--reverse", "--topo-order").split("\n")
    assert times[0] == "1700000060 1700000060" and sorted(int(t.split()[0]) for t in times) == [
        1_700_000_000 + 60 * i for i in range(1, 5)
    ]


def test_committer_defaults_to_the_author(tmp_path):
    repo = tmp_path / "r"
    shas = write_history(
        repo,
        [Commit("one", {"f": "1\n"}, author="A U <a@example.com>"), Commit("two", committer="C O <c@example.com>")],
    )
    assert run_git(repo, "log", "-1", "--format=%an|%cn", shas[0]) == "A U|A U"
    assert run_git(repo, "log", "-1", "--format=%an|%cn", shas[1]) == "perfkit demo|C O"


def test_a_parent_that_is_not_earlier_is_refused(tmp_path):
    with pytest.raises(ValueError, match="parent 1 is not an earlier commit"):
        write_history(tmp_path / "r", [Commit("x", parents=[1]), Commit("y")])
