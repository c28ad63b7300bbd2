"""Bad repository data is bad input: it is named, and it never ends a bisect that can go on.

A repository's committed files are data from whoever wrote them. A `.gitmodules` that git refuses
(`update = !command`, an update strategy git does not know, a line git cannot parse) makes git stop
every command that reads it: the tools answer a bad-input error naming that file, as git itself would,
instead of "git failed"; no command it names ever runs. A commit whose checkout needs a filter that is
missing (a Git LFS file on a machine without git-lfs) or that fails is one point that cannot be tested:
that step is a skip with git's reason, and the bisect goes on to the right culprit.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from helpers.bisect_project import build
from helpers.gitbuild import Repo, run_git
from helpers.procs import perfkit
from perfkit.errors import InputError
from perfkit.registry import all_tools

SHAPES = {
    "update-runs-a-command": '[submodule "simpler"]\n\tpath = runtime\n\turl = ../x\n\tupdate = !touch {mark}\n',
    "update-unknown-strategy": '[submodule "simpler"]\n\tpath = runtime\n\turl = ../x\n\tupdate = sideways\n',
    "line-git-cannot-parse": '[submodule "simpler"\n\tpath = runtime\n\tupdate = !touch {mark}\n',
}
TOOLS = ("bisect_start", "classify_changes", "git_blame_removal")


def committed(tmp_path: Path, shape: str) -> tuple[str, dict[str, dict[str, str]], Path]:
    p = build(tmp_path, ["", "", ""], [("src", ""), ("ptr", 1), ("src", "BUG", "bug"), ("ptr", 2)])
    mark = tmp_path / "ran"
    p.sup.write(".gitmodules", SHAPES[shape].format(mark=mark))
    run_git(p.sup.path, "add", ".gitmodules")
    run_git(p.sup.path, "commit", "-q", "-m", "edit .gitmodules")
    arguments = {
        "bisect_start": {"repo": p.path, "good": p.c["add"], "run": p.run_cmd()},
        "classify_changes": {"repo": p.path, "base": p.c["add"]},
        "git_blame_removal": {"repo": p.path, "base": p.c["add"]},
    }
    return p.path, arguments, mark


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_gitmodules_git_refuses_is_bad_input_naming_the_file(tmp_path, shape):
    repo, arguments, mark = committed(tmp_path, shape)
    for name in TOOLS:
        spec = next(s for s in all_tools() if s.name == name)
        with pytest.raises(InputError) as bad:
            spec.call(arguments[name], None)
        assert bad.value.field == "repo", (name, str(bad.value))
        assert ".gitmodules" in bad.value.problem and "git refuses" in bad.value.problem, (name, str(bad.value))
        assert "correct or remove that entry" in (bad.value.fix or "")
    assert not mark.exists()


def test_the_refusal_is_an_error_over_mcp_and_exit_2_on_the_cli(tmp_path):
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    repo, arguments, mark = committed(tmp_path, "update-runs-a-command")

    async def go() -> list[tuple[bool, str]]:
        async with Client(build_server(), mode="legacy") as c:
            out = []
            for name in ("bisect_start", "classify_changes"):
                r = await c.call_tool(name, arguments[name])
                out.append((r.is_error, r.content[0].text))  # type: ignore[union-attr]
            return out

    for is_error, text in anyio.run(go):
        assert is_error and "git refuses the .gitmodules" in text and "failed" not in text.split(":")[0], text
    cli = perfkit("classify-changes", repo, arguments["classify_changes"]["base"], "--quiet")
    assert cli.returncode == 2, cli.stderr
    assert ".gitmodules" in cli.stderr and len(cli.stderr.strip().splitlines()) == 1, cli.stderr
    assert not mark.exists()


FILTERS = {
    # what `git lfs install` writes, on a machine without git-lfs
    "lfs-missing": {
        "filter.lfs.process": "git-lfs filter-process",
        "filter.lfs.smudge": "git-lfs smudge -- %f",
        "filter.lfs.clean": "git-lfs clean -- %f",
        "filter.lfs.required": "true",
    },
    "smudge-that-fails": {"filter.lfs.smudge": "exit 3", "filter.lfs.clean": "cat", "filter.lfs.required": "true"},
}


@pytest.mark.parametrize("kind", sorted(FILTERS))
def test_a_point_whose_checkout_filter_fails_is_a_skip_with_the_reason(tmp_path, kind):
    """Commits 3 to 9 of 16 hold a file stored through a filter that cannot run here; the culprit is at 12."""
    repo = Repo(tmp_path / "app")
    commits = [repo.commit("initial", {"src/codegen.py": "v0\n"})]
    for i in range(1, 16):
        files: dict[str, str | bytes] = {"src/codegen.py": f"v{i} {'BUG' if i >= 12 else ''}\n"}
        if i == 3:
            files |= {".gitattributes": "*.bin filter=lfs diff=lfs merge=lfs -text\n", "weights.bin": "payload\n"}
        if i == 10:
            (repo.path / "weights.bin").unlink()
        commits.append(repo.commit(f"change {i}", files))
    for key, value in FILTERS[kind].items():  # configured after the history: committing ran no filter
        run_git(repo.path, "config", key, value)
    from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start

    run = 'if grep -q BUG src/codegen.py; then echo "max_err=0.5 FAIL"; exit 1; fi; echo "max_err=0 PASS"'
    bisect_start(str(repo.path), commits[0], run=run)
    out = bisect_run(str(repo.path))
    assert out.culprit is not None and out.culprit.commit == commits[12], out.message
    skipped = [s for s in out.steps if s.verdict == "skip"]
    assert skipped, [(s.n, s.verdict, s.reason) for s in out.steps]
    for s in skipped:
        assert "cannot be checked out: a checkout filter failed" in s.reason, s.reason
        assert s.superproject in commits[3:10]
    bisect_reset(str(repo.path))
