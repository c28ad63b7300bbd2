"""The one reader of `git diff -z` output: every file, count and hunk line of evaluate_culprit's diff read back
exactly, on real repositories, and no second reader of unified diffs in the package."""

from __future__ import annotations

from pathlib import Path

import perfkit
from helpers.gitbuild import Repo, run_git
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.culprit.commitdiff import commit_diff

NAMES = ["plain.py", "with space.c", "ünï cödé.txt", 'quote"d.sh', "dir/deep/x.yaml", "tab\tname.h", "new\nline.py"]
LINE = st.sampled_from(["a", "b", "c", "    d = 1", "", "--- x", "+++ y", "@@ -1 +1 @@", "diff --git a b", "x" * 30])
FILES = st.dictionaries(st.sampled_from(NAMES), st.lists(LINE, max_size=14), max_size=5)


def test_evaluate_culprits_diff_is_read_back_exactly(tmp_path):
    """Files, numstat counts and the -U3 hunks, with both line numbers of every changed line, rebuild git's text;
    lines that look like patch headers are content, and names git would quote come through as they are."""
    counter = iter(range(10_000))

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(before=FILES, after=FILES)
    def check(before, after):
        repo = Repo(tmp_path / f"r{next(counter)}")
        old = repo.commit("before", {k: "\n".join(v) + "\n" for k, v in before.items()})
        for k in before:
            if k not in after:
                repo.remove(k)
        new = repo.commit("after", {k: "\n".join(v) + "\n" for k, v in after.items()})
        diff = commit_diff(repo.path, old, new)

        def lines(tree, name):
            return [] if name not in tree else tree[name] or [""]

        changed = {
            n for n in set(before) | set(after) if lines(before, n) != lines(after, n) or (n in before) != (n in after)
        }
        assert {f.path for f in diff.diffs} == changed
        for f in diff.diffs:
            old_text, new_text = lines(before, f.path), lines(after, f.path)
            assert (f.added, f.deleted) == (sum(len(h.added) for h in f.hunks), sum(len(h.removed) for h in f.hunks))
            for h in f.hunks:
                for d in h.removed:
                    assert old_text[d.no - 1] == d.text and 1 <= d.at <= len(new_text) + 1
                for d in h.added:
                    assert new_text[d.no - 1] == d.text and 1 <= d.at <= len(old_text) + 1
                order = list(h.lines())  # patch order: each side in its own order
                assert [d.no for s, d in order if s == "-"] == [d.no for d in h.removed]
                assert [d.no for s, d in order if s == "+"] == [d.no for d in h.added]
            removed = {d.no for h in f.hunks for d in h.removed}
            added = {d.no for h in f.hunks for d in h.added}
            kept_old = [i for i in range(1, len(old_text) + 1) if i not in removed]
            kept_new = [i for i in range(1, len(new_text) + 1) if i not in added]
            assert [old_text[i - 1] for i in kept_old] == [new_text[i - 1] for i in kept_new]

            def ahead(kept, n):  # unchanged lines ahead of line n
                return sum(1 for i in kept if i < n)

            for h in f.hunks:  # `at` places each line on the other side: the same unchanged lines lie ahead
                assert all(ahead(kept_old, d.no) == ahead(kept_new, d.at) for d in h.removed)
                assert all(ahead(kept_new, d.no) == ahead(kept_old, d.at) for d in h.added)

    check()


def test_the_stat_and_counts_come_from_the_same_process(tmp_path):
    r = Repo(tmp_path / "r")
    old = r.commit("a", {"a.py": "x = 1\n", "b.bin": b"\0\1\2"})
    new = r.commit("b", {"a.py": "x = 2\ny = 3\n", "b.bin": b"\0\1\3"})
    diff = commit_diff(r.path, old, new)
    assert {f.path: (f.added, f.deleted) for f in diff.files} == {"a.py": (2, 1), "b.bin": (None, None)}
    assert diff.stat == run_git(r.path, "diff", "--shortstat", old, new)
    assert [f.binary for f in diff.diffs] == [False, True] and diff.diffs[1].hunks == []


def test_no_other_module_reads_a_unified_diff():
    """One reader: hunk headers and patch headers are parsed in changes/diff_parse.py and nowhere else."""
    package = Path(perfkit.__file__).parent
    readers = [
        str(p.relative_to(package))
        for p in package.rglob("*.py")
        if p.name != "diff_parse.py"
        and any(
            marker in p.read_text(encoding="utf-8")
            for marker in ("diff --git", "@@ -(", 'startswith("+++', 'startswith("---')
        )
    ]
    assert readers == []
