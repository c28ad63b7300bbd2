"""File names as git handles them: bytes that are not UTF-8, and names that look like options.

A latin-1 name used to make git_blame_removal fail for the whole repository (the name came back from
git decoded with a replacement character, and git then knew no such path), and a file named
`-rf.py` was refused as an argument. Names now travel byte for byte between git calls (`-z`, `--`)
and leave the tool as text, their odd bytes written as \\xNN the way git quotes them.
"""

from __future__ import annotations

import json
import os

import pytest
from helpers.gitbuild import Repo
from perfkit.changes.blame import git_blame_removal
from perfkit.changes.classify import classify_changes

NAMES = [b"caf\xe9.py", b"-rf.py", b"--help.py", b"sp ace\tand\nnewline.py", "naïve.py".encode()]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    r = Repo(tmp_path_factory.mktemp("names") / "repo")
    base = r.commit("base", {"README.md": "demo\n"})
    root = os.fsencode(str(r.path))
    for name in NAMES:
        with open(root + b"/" + name, "wb") as f:
            f.write(b"def g():\n    if not ready():\n        raise RuntimeError('not ready')\n    return 1\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "add guarded files")
    mid = r.head()
    for name in NAMES:
        with open(root + b"/" + name, "wb") as f:
            f.write(b"def g():\n    return 1\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "drop the guards")
    return r, base, mid


def _shown(name: bytes) -> str:
    return name.decode("utf-8", "backslashreplace")


def test_blame_finds_every_removal_whatever_the_name(world):
    r, _, mid = world
    result = git_blame_removal(repo=str(r.path), base=mid)
    json.dumps(result.model_dump(mode="json"))  # every string is text a client can read
    paths = {removal.path for removal in result.removals}
    assert paths == {_shown(n) for n in NAMES}, paths
    assert all(removal.commits for removal in result.removals)


@pytest.mark.parametrize("name", [b"-rf.py", b"--help.py", "naïve.py".encode()])
def test_a_path_that_looks_like_an_option_is_a_path(world, name):
    r, _, mid = world
    result = git_blame_removal(repo=str(r.path), base=mid, paths=[os.fsdecode(name)])
    assert [removal.path for removal in result.removals] == [_shown(name)]


def test_classify_changes_names_every_file(world):
    r, base, _ = world
    result = classify_changes(repo=str(r.path), base=base)
    json.dumps(result.model_dump(mode="json"))
    seen = {f.path for c in result.commits for f in c.files}
    assert {_shown(n) for n in NAMES} <= seen, seen
