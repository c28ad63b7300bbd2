"""A run or install command that cannot be found is named: at bisect_start, and in a step's verdict."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers.gitbuild import Repo
from helpers.procs import perfkit
from perfkit.bisect.command.lookup import missing, programs
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start
from perfkit.errors import InputError


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("python models/qwen3/check.py -d 5", ["python"]),
        ("CUDA_VISIBLE_DEVICES=1 OMP=4 torchrun --nproc 8 x.py", ["torchrun"]),
        ("cd build && make -j8 check | tee out.log", ["make", "tee"]),
        ("pip install --no-build-isolation -e . ; nosuchcmd --x", ["pip", "nosuchcmd"]),
        ("if grep -q x f; then runcheck; else exit 3; fi", ["grep", "runcheck"]),
        ("./scripts/check.sh --fast", ["./scripts/check.sh"]),
        ("$HOME/bin/check; {device}/run", []),
        ("export A=1; bash -c 'nosuch'", ["bash"]),
        ("trap '' TERM; sleep 1", ["sleep"]),  # an empty argument is a word, not a separator
        ("echo 'unclosed", []),
        ("(cd sub && ctest) || true", ["ctest"]),
        # past a command substitution the parts cannot be told apart without a shell: not judged
        ('make && s=$(cut -d")" -f2 /proc/$(cat p)/stat) && [ "$s" != Z ] && nosuch', ["make"]),
        ("ok=`nosuch` ; other", []),
        ("diff <(sort a) b", []),
        # functions the command defines are not programs to look up
        ('in_sup() { git merge-base --is-ancestor "$1" HEAD; }; if in_sup abc; then echo FAIL; fi', ["git"]),
        ("function check { pytest -q; }; check && nosuch", ["pytest", "nosuch"]),
        # a case statement's patterns look like commands: the statement is not judged, what follows is
        ('case "$STEP" in 1) sleep 1 & ;; 2) yes x | head -c 9 ;; esac; ./check; rc=$?; exit $rc', ["./check"]),
    ],
)
def test_programs_are_the_first_words_of_each_part(command, expected):
    assert programs(command) == expected


def test_missing_looks_on_the_given_path_and_in_the_run_folder(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "mycheck"
    tool.write_text("#!/bin/sh\necho PASS\n")
    tool.chmod(0o755)
    assert missing("mycheck --fast && nosuchcmd", str(bin_dir)) == "nosuchcmd"
    assert missing("mycheck --fast", str(bin_dir)) is None
    assert missing("mycheck", "/nonexistent") == "mycheck"
    assert missing("./run.sh", str(bin_dir), cwd=tmp_path) == "./run.sh"
    assert missing("./run.sh", str(bin_dir)) is None  # no folder known yet: not judged


def _repo(tmp_path: Path) -> tuple[Repo, str]:
    """A history whose check script appears only after the good end (a real reason for exit 127)."""
    repo = Repo(tmp_path / "repo")
    good = repo.commit("first", {"a.txt": "1\n"})
    for i in range(2, 6):
        repo.commit(f"change {i}", {"a.txt": f"{i}\n", "check.sh": "#!/bin/sh\necho FAIL\nexit 1\n"})
    repo.git("update-index", "--chmod=+x", "check.sh")
    repo.commit("make the check executable")
    return repo, good


def test_bisect_start_names_a_run_command_that_is_not_there(tmp_path):
    repo, good = _repo(tmp_path)
    with pytest.raises(InputError) as err:
        bisect_start(str(repo.path), good, run="nosuchcmd --check", submodule="")
    assert err.value.field == "run"
    assert "command not found: nosuchcmd" in str(err.value)
    with pytest.raises(InputError) as err:
        bisect_start(str(repo.path), good, run="true", install=["pip install -e .", "nosuchbuild all"], submodule="")
    assert err.value.field == "install" and "command not found: nosuchbuild" in str(err.value)
    # nothing was started: a correct command starts at once
    started = bisect_start(str(repo.path), good, run="sh -c 'echo PASS'", submodule="")
    assert started.level1_commits == 5
    bisect_reset(str(repo.path))


def test_the_cli_says_which_flag_and_exits_2(tmp_path):
    repo, good = _repo(tmp_path)
    argv = ["bisect-start", str(repo.path), good, "--run", "nosuchcmd", "--submodule", ""]
    proc = perfkit(*argv, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("perfkit: error: --run: command not found: nosuchcmd"), proc.stderr


def test_a_step_whose_command_is_missing_says_so_with_its_log(tmp_path):
    """The check script does not exist at the good end: the verdict names it, and the text gives the log."""
    repo, good = _repo(tmp_path)
    bisect_start(str(repo.path), good, run="./check.sh", submodule="")
    status = bisect_run(str(repo.path))
    assert status.outcome == "good_end_not_good"
    first = status.steps[0]
    assert first.reason == "command not found: ./check.sh", first.reason
    assert "command not found: ./check.sh" in status.message
    assert first.log and os.path.isfile(first.log)
    assert f"(log {first.log})" in status.human()
    bisect_reset(str(repo.path))
