"""gitrepo.commit_infos (one git process for many commits) says what commit_info says of each."""

from __future__ import annotations

import subprocess

from helpers.gitbuild import Repo
from perfkit.repo import gitrepo


def _raw_commit(repo: Repo, message: bytes, parents: list[str]) -> str:
    """A commit whose message git commit would refuse or rewrite (a NUL byte, a unit separator)."""
    tree = repo.git("rev-parse", "HEAD^{tree}")
    body = b"tree " + tree.encode() + b"\n" + b"".join(b"parent " + p.encode() + b"\n" for p in parents)
    body += b"author A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\n" + message
    out = subprocess.run(
        ["git", "-C", str(repo.path), "hash-object", "-t", "commit", "-w", "--literally", "--stdin"],
        input=body,
        capture_output=True,
        check=True,
    )
    return out.stdout.decode().strip()


def test_many_at_once_equal_one_at_a_time(tmp_path):
    repo = Repo(tmp_path / "r")
    shas = [repo.commit("first", {"a": "1"})]
    shas.append(repo.commit("fix: ünïcode subject\n\nbody line\n\n  indented\n", {"a": "2"}))
    shas.append(repo.commit("x" * 5000, {"a": "3"}))
    repo.git("checkout", "-q", "-b", "side", shas[0])
    side = repo.commit("side work", {"b": "1"})
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge side (#7)", "side")
    shas += [side, repo.head()]
    shas.append(_raw_commit(repo, b"sep \x1f inside\x1fthe subject\n\nand \x1f the body\n", [repo.head()]))
    one_by_one = [gitrepo.commit_info(repo.path, s) for s in shas]
    assert gitrepo.commit_infos(repo.path, shas) == one_by_one
    assert gitrepo.commit_infos(repo.path, shas[::-1]) == one_by_one[::-1]  # the order given, not git's
    assert gitrepo.commit_infos(repo.path, [shas[1], shas[1]]) == [one_by_one[1]] * 2
    assert one_by_one[4].parents == (shas[2], side)
    assert gitrepo.commit_infos(repo.path, []) == []


def test_a_message_holding_a_nul_byte_is_still_read_right(tmp_path):
    repo = Repo(tmp_path / "r")
    first = repo.commit("first", {"a": "1"})
    odd = _raw_commit(repo, b"before\x00after\n", [first])
    last = _raw_commit(repo, b"last\n", [odd])
    shas = [first, odd, last]
    assert gitrepo.commit_infos(repo.path, shas) == [gitrepo.commit_info(repo.path, s) for s in shas]
