"""git_blame_removal on a real history: a guard with its own test and PR, dead code, a merged PR, a moved block."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
from helpers.gitbuild import Repo, run_git
from perfkit.changes.blame import git_blame_removal
from perfkit.errors import InputError

MODEL = """import torch


def forward(x):
    y = x * 2
    return y


def load(path):
    return torch.load(path)
"""
GUARD = """    if x.dtype==torch.float16 and not x.is_contiguous():
        x = x.contiguous()
"""
LEGACY = """

def legacy_loader(path):
    with open(path, "rb") as f:
        return f.read()
"""
UNUSED = """

def unused_helper(a, b):
    total = combine_parts(a, b)
    return total
"""
UTIL = """def clamp(x, lo, hi):
    return max(lo, min(hi, x))


def pad_batch(batch, multiple):
    extra = (-len(batch)) % multiple
    padding = [batch[-1]] * extra
    return batch + padding
"""

EXTRA = """def scale(x, factor):
    return x * factor
"""
OLD_SCALE = """

def old_scale(x):
    return scale(x, 2.0)
"""
SHIFT = """

def shift(x, by):
    return x + by
"""


def build_history(path):
    """main: #1, a guard PR (#12) with its test, a merged PR #34 adding legacy_loader and its test, dead code (#60),
    a whitespace-only edit of the guard (#70); then the branch 'perf' deleting all of it and moving a block."""
    repo = Repo(path / "model")
    s = {
        "init": repo.commit(
            "Initial model (#1)",
            {
                "src/model.py": MODEL,
                "src/util.py": UTIL,
                "tests/test_model.py": "def test_forward():\n    pass\n",
                "data/weights.bin": b"\x00\x01\x02\x03",
            },
        )
    }
    model = MODEL.replace("    y = x * 2\n", GUARD + "    y = x * 2\n")
    s["guard"] = repo.commit(
        "Handle non-contiguous fp16 input (#12)",
        {"src/model.py": model, "tests/test_fp16_guard.py": "def test_non_contiguous_fp16():\n    pass\n"},
    )
    repo.git("checkout", "-q", "-b", "legacy")
    s["legacy"] = repo.commit(
        "Add the legacy loader",
        {
            "src/model.py": model + LEGACY,
            "tests/test_legacy.py": "def test_legacy_loader():\n    pass\n",
            "src/io.py": "from src.model import legacy_loader\n\n\ndef read(p):\n    return legacy_loader(p)\n",
        },
    )
    repo.git("checkout", "-q", "main")
    s["unrelated"] = repo.commit("Docs (#30)", {"README.md": "# model\n"})
    repo.git("merge", "-q", "--no-ff", "legacy", "-m", "Merge pull request #34 from dev/legacy\n\nLegacy loader")
    s["merge"] = repo.head()
    model = model + LEGACY + UNUSED
    s["dead"] = repo.commit("Add unused helper (#60)", {"src/model.py": model})
    s["extra"] = repo.commit("Add scaling helpers (#80)", {"src/scaling.py": EXTRA + OLD_SCALE + SHIFT})
    repo.git("mv", "src/scaling.py", "src/extra.py")
    s["rename"] = repo.commit("Rename scaling to extra (#85)")
    model = model.replace("x.dtype==torch.float16", "x.dtype == torch.float16")
    s["reformat"] = repo.commit("Format (#70)", {"src/model.py": model})
    s["base_model"] = model
    s["base"] = repo.head()
    repo.git("checkout", "-q", "-b", "perf")
    head_model = model.replace(GUARD.replace("x.dtype==", "x.dtype == "), "")
    repo.commit("Drop the contiguity guard", {"src/model.py": head_model})
    head_model = head_model.replace(LEGACY, "").replace(UNUSED, "")
    repo.remove("tests/test_legacy.py")
    repo.remove("data/weights.bin")
    util = UTIL[: UTIL.index("def pad_batch")].rstrip("\n") + "\n"
    repo.git("mv", "src/extra.py", "src/extras.py")
    repo.write("src/extras.py", EXTRA + SHIFT)
    repo.commit(
        "Drop dead code, move pad_batch",
        {
            "src/model.py": head_model,
            "src/util.py": util,
            "src/batching.py": "import math\n\n\n" + UTIL[UTIL.index("def pad_batch") :],
        },
    )
    s["head"] = repo.head()
    return repo, s


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    return build_history(tmp_path_factory.mktemp("blame"))


def _whole_file_blame(repo, rev, path):
    """line number -> sha, from an independent whole-file blame."""
    out = run_git(repo.path, "blame", "-w", "-l", "-s", rev, "--", path)
    return {i: line.split()[0].lstrip("^") for i, line in enumerate(out.splitlines(), 1)}


def _line(text, needle):
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_blamed_commits_and_prs(history):
    repo, s = history
    res = git_blame_removal(str(repo.path), s["base"], "perf")
    by_sha = {c.sha: c for c in res.commits}
    assert set(by_sha) == {s["guard"], s["legacy"], s["dead"], s["extra"]}, [c.subject for c in res.commits]

    guard = by_sha[s["guard"]]  # the whitespace-only edit (#70) is seen through
    assert guard.pr_number == 12 and guard.pr_source == "subject" and guard.merge_commit is None
    assert guard.lines == 2 and [(r.path, r.start, r.end) for r in guard.ranges] == [
        ("src/model.py", _line(s["base_model"], "if x.dtype"), _line(s["base_model"], "x = x.contiguous()"))
    ]
    assert [(t.path, t.exists_at_head) for t in guard.tests] == [("tests/test_fp16_guard.py", True)]

    legacy = by_sha[s["legacy"]]
    assert legacy.pr_number == 34 and legacy.pr_source == "merge" and legacy.merge_commit == s["merge"]
    assert {(t.path, t.exists_at_head) for t in legacy.tests} == {("tests/test_legacy.py", False)}
    assert {f.path for f in legacy.other_files} == {"src/io.py"}  # the call site it added, still at head
    assert legacy.other_files[0].exists_at_head

    dead = by_sha[s["dead"]]
    assert dead.pr_number == 60 and dead.tests == [] and dead.other_files == []
    assert s["reformat"] not in by_sha and s["unrelated"] not in by_sha
    assert res.blame_calls == 3  # src/model.py, src/extra.py and tests/test_legacy.py: one call each
    assert by_sha[s["extra"]].pr_number == 80 and by_sha[s["extra"]].lines == 2  # through the rename (#85)
    assert s["rename"] not in by_sha
    assert [c.lines for c in res.commits] == sorted((c.lines for c in res.commits), reverse=True)


def test_every_blamed_line_matches_a_whole_file_blame(history):
    repo, s = history
    res = git_blame_removal(str(repo.path), s["base"], "perf")
    whole = {p: _whole_file_blame(repo, s["base"], p) for p in {b.path for b in res.removals}}
    checked = 0
    for c in res.commits:
        for r in c.ranges:
            for n in range(r.start, r.end + 1):
                assert whole[r.path][n] == c.sha
                checked += 1
    planted = GUARD + LEGACY + UNUSED + OLD_SCALE + "def test_legacy_loader():\n    pass\n"
    assert checked == sum(c.lines for c in res.commits) == sum(1 for x in planted.splitlines() if x.strip())


def test_per_file_histories_give_the_same_answer(history, monkeypatch):
    """Long histories: one walk, then each blame reads its file's own commit list (here forced on a short one)."""
    from perfkit.changes import blame_run

    repo, s = history
    plain = git_blame_removal(str(repo.path), s["base"], "perf")
    monkeypatch.setattr(blame_run, "SHARED_HISTORY_MIN_COMMITS", 0)
    fast = git_blame_removal(str(repo.path), s["base"], "perf")
    assert fast.model_dump(exclude={"blame_calls"}) == plain.model_dump(exclude={"blame_calls"})
    # src/extra.py was renamed (#85): its list cannot follow the old name, so it is blamed again in full
    assert (plain.blame_calls, fast.blame_calls) == (3, 4)


def test_removed_blocks_shapes_and_names(history):
    repo, s = history
    res = git_blame_removal(str(repo.path), s["base"], "perf")
    shapes = {(b.path, b.shape) for b in res.removals}
    assert ("src/model.py", "guard") in shapes and ("src/model.py", "function") in shapes
    assert ("tests/test_legacy.py", "file") in shapes
    renamed = next(b for b in res.removals if b.path == "src/extra.py")  # followed through the rename
    assert (renamed.head_path, renamed.shape) == ("src/extras.py", "function")
    assert renamed.start == _line(EXTRA + OLD_SCALE + SHIFT, "def old_scale")
    guard = next(b for b in res.removals if b.shape == "guard")
    assert guard.commits == [s["guard"]] and guard.text[0].strip().startswith("if x.dtype == torch.float16")

    names = {n.name: n for n in res.names}
    io_line = _line(repo.git("show", "perf:src/io.py"), "return legacy_loader(p)")
    assert names["legacy_loader"].role == "defined" and names["legacy_loader"].occurrences == 2
    assert f"src/io.py:{io_line}" in names["legacy_loader"].where
    assert names["unused_helper"].occurrences == 0  # dead: nothing at head names it
    assert names["combine_parts"].role == "referenced" and names["combine_parts"].occurrences == 0
    assert res.names[0].occurrences > 0  # still-used names first


def test_moved_block_binary_and_paths(history):
    repo, s = history
    res = git_blame_removal(str(repo.path), s["base"], "perf")
    assert not any(b.path == "src/util.py" for b in res.removals)
    move = next(m for m in res.moved if m.from_path == "src/util.py")
    assert move.to_path == "src/batching.py" and move.from_start == _line(UTIL, "def pad_batch")
    assert any(k.path == "data/weights.bin" and "binary" in k.reason for k in res.skipped)

    only = git_blame_removal(str(repo.path), s["base"], "perf", paths=["tests/"])
    assert {b.path for b in only.removals} == {"tests/test_legacy.py"} and only.blame_calls == 1
    one = git_blame_removal(str(repo.path), s["base"], "perf", paths=["src/extra.py"])  # one file: no shared walk
    assert one.blame_calls == 1 and [c.sha for c in one.commits] == [s["extra"]]
    with pytest.raises(InputError, match="^paths: 'nope.py' exists neither"):
        git_blame_removal(str(repo.path), s["base"], "perf", paths=["nope.py"])
    with pytest.raises(InputError, match="^paths: '/etc' is not a path inside"):
        git_blame_removal(str(repo.path), s["base"], "perf", paths=["/etc"])


def test_include_modified(history, tmp_path):
    repo = Repo(tmp_path / "r")
    base = repo.commit("Initial (#1)", {"a.py": "def f(x):\n    return x + 1\n"})
    repo.commit("Tweak", {"a.py": "def f(x):\n    return x + 2\n"})
    assert git_blame_removal(str(repo.path), base, "HEAD").commits == []
    res = git_blame_removal(str(repo.path), base, "HEAD", include_modified=True)
    assert [(c.sha, c.lines, c.pr_number) for c in res.commits] == [(base, 1, 1)]


def test_edge_cases(history):
    repo, s = history
    with pytest.raises(InputError, match="^base: .* is not an ancestor of head"):
        git_blame_removal(str(repo.path), s["head"], s["base"])
    with pytest.raises(InputError, match="^head: 'no-such-branch' is not a commit"):
        git_blame_removal(str(repo.path), s["base"], "no-such-branch")
    empty = git_blame_removal(str(repo.path), s["base"], s["base"])
    assert empty.empty_range and empty.commits == [] and empty.blame_calls == 0


def test_shallow_clone_flags_boundary(history, tmp_path):
    repo, s = history
    run_git(tmp_path, "clone", "-q", "--depth", "3", "--branch", "perf", f"file://{repo.path}", "shallow")
    shallow = tmp_path / "shallow"
    res = git_blame_removal(str(shallow), s["base"], "HEAD")
    boundary = run_git(shallow, "rev-parse", "HEAD~2")
    assert res.incomplete_history and res.shallow_boundaries == [boundary]
    flagged = [c for c in res.commits if c.boundary]
    assert [c.sha for c in flagged] == [boundary]
    assert all(c.sha != boundary for c in res.commits if not c.boundary)
    assert any("unshallow" in w for w in res.warnings)


def test_mcp_and_cli_agree(history):
    repo, s = history
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    args = {"repo": str(repo.path), "base": s["base"], "head": "perf", "paths": ["src", "tests"]}

    async def go():
        async with Client(build_server(), mode="legacy") as c:
            ok = await c.call_tool("git_blame_removal", args)
            bad = await c.call_tool("git_blame_removal", {**args, "head": s["init"]})
            return ok, bad

    ok, bad = anyio.run(go)
    assert not ok.is_error
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfkit.cli",
            "git-blame-removal",
            str(repo.path),
            s["base"],
            "--head",
            "perf",
            "--paths",
            "src",
            "--paths",
            "tests",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout) == ok.structured_content
    assert bad.is_error and "is not an ancestor of head" in bad.content[0].text
    human = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfkit.cli",
            "git-blame-removal",
            str(repo.path),
            s["base"],
            "--head",
            "perf",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert human.returncode == 0 and "PR #12" in human.stdout and "via merge" in human.stdout


def test_per_file_histories_through_true_merges(tmp_path, monkeypatch):
    """Merges where both sides change the blamed files: the rewritten lists must keep both sides."""
    import random

    from perfkit.changes import blame_run

    rng = random.Random(5)
    repo = Repo(tmp_path / "dag")
    files = {f"src/f{i}.py": [f"v{i}_{j} = {j}" for j in range(30)] for i in range(3)}
    repo.commit("Start (#1)", {k: "\n".join(v) + "\n" for k, v in files.items()})
    n = 1
    for round_ in range(4):
        repo.git("checkout", "-q", "-b", f"side{round_}")
        side_files = {k: list(v) for k, v in files.items()}
        main_files = {k: list(v) for k, v in files.items()}
        for _ in range(3):  # the side branch edits the first third of each file
            n += 1
            name = rng.choice(list(side_files))
            side_files[name][rng.randrange(0, 10)] = f"side_{n} = {n}"
            repo.commit(f"side change {n}", {name: "\n".join(side_files[name]) + "\n"})
        repo.git("checkout", "-q", "main")
        for _ in range(3):  # main edits the last third meanwhile
            n += 1
            name = rng.choice(list(main_files))
            main_files[name][rng.randrange(20, 30)] = f"main_{n} = {n}"
            repo.commit(f"main change {n} (#{n})", {name: "\n".join(main_files[name]) + "\n"})
        repo.git("merge", "-q", "--no-ff", f"side{round_}", "-m", f"Merge pull request #{100 + round_} from dev/side")
        files = {k: side_files[k][:10] + main_files[k][10:] for k in files}
        assert all((repo.path / k).read_text() == "\n".join(v) + "\n" for k, v in files.items())
    base = repo.head()
    repo.git("checkout", "-q", "-b", "perf")
    repo.commit("Delete blocks", {k: "\n".join(x for j, x in enumerate(v) if j % 3) + "\n" for k, v in files.items()})
    plain = git_blame_removal(str(repo.path), base, "perf", include_modified=True)
    monkeypatch.setattr(blame_run, "SHARED_HISTORY_MIN_COMMITS", 0)
    fast = git_blame_removal(str(repo.path), base, "perf", include_modified=True)
    assert fast.model_dump(exclude={"blame_calls"}) == plain.model_dump(exclude={"blame_calls"})
    assert fast.blame_calls == plain.blame_calls == 3
    assert any(c.pr_source == "merge" for c in plain.commits) and any(c.pr_source == "subject" for c in plain.commits)
    walked = run_git(repo.path, "rev-list", "--parents", base, "--", *files)
    assert any(len(line.split()) > 2 for line in walked.splitlines())  # a merge kept in the shared walk
