"""Messages point at the cause, in the command line's own terms.

An option is never taken for a longer one it abbreviates; an error names the flag a person types
(`--baseline`, not `baseline=`); a misspelt draft key gets "did you mean"; Ctrl-C on a bisect says how
to resume; with --json an error is one JSON object on stderr and stdout stays empty; a bisect start
says when it replaces a finished bisect and when the checkout holds work no commit has; an install
that fails is named, with what it printed, as what to fix. Where the message is the CLI's, the CLI runs
as a process.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers.gitbuild import Repo
from helpers.procs import perfkit
from hypothesis import given, settings
from hypothesis import strategies as st
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start
from perfkit.cli.commands import build_parser
from perfkit.registry import all_tools

ROOT = Path(__file__).resolve().parents[1]
CAMPAIGN = str(ROOT / "examples" / "campaign")
SPECS = all_tools()


def _parsers() -> list[argparse.ArgumentParser]:
    top = build_parser(SPECS)
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    return [top, *sub.choices.values()]


PARSERS = _parsers()
OPTIONS = sorted({(i, o) for i, p in enumerate(PARSERS) for a in p._actions for o in a.option_strings if o[:2] == "--"})


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(OPTIONS), st.data())
def test_no_option_is_taken_for_one_it_abbreviates(option, data):
    """Any strict prefix of any long option, on any command, is refused rather than read as that option."""
    which, flag = option
    parser = PARSERS[which]
    cut = data.draw(st.integers(min_value=3, max_value=len(flag) - 1))
    prefix = flag[:cut]
    known = {o for a in parser._actions for o in a.option_strings}
    if prefix in known:
        return  # a real option of its own
    positionals = [a for a in parser._actions if not a.option_strings and a.nargs is None]
    caught = io.StringIO()
    try:
        with contextlib.redirect_stdout(caught), contextlib.redirect_stderr(caught):
            _, extras = parser.parse_known_args(["x"] * len(positionals) + [prefix])
    except SystemExit:  # taken as the option: it wanted a value, or printed the version
        raise AssertionError(f"{prefix} was read as {flag}: {caught.getvalue()}") from None
    assert extras == [prefix], (flag, prefix, extras)


def test_a_cut_off_option_gets_did_you_mean():
    proc = perfkit("read-benchmark", CAMPAIGN, "--warmup-step", "2")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        "perfkit: error: unknown option --warmup-step; did you mean --warmup-steps? "
        "`perfkit read-benchmark --help` lists its arguments"
    ]


def test_errors_name_the_flag_not_the_mcp_argument():
    proc = perfkit("read-benchmark", CAMPAIGN, "--baseline", "nope")
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert line.endswith("pass --baseline <the baseline arm>") and "baseline=" not in line, line


def test_a_misspelt_draft_key_gets_did_you_mean(tmp_path):
    draft = tmp_path / "draft.json"
    draft.write_text(json.dumps({"job": "x", "sumary": "y"}))
    proc = perfkit("render-pr", CAMPAIGN, str(tmp_path), "--draft", str(draft))
    assert proc.returncode == 2
    assert "--draft.sumary: unknown field; did you mean summary? known fields here: job, " in proc.stderr
    draft.write_text(json.dumps({"job": "x", "changes": [{"nmae": "z"}]}))
    proc = perfkit("render-pr", CAMPAIGN, str(tmp_path), "--draft", str(draft))
    assert "--draft.changes.0.nmae: unknown field; did you mean name? known fields here: name," in proc.stderr
    draft.write_text(json.dumps({"job": "x", "zzzz": 1}))
    proc = perfkit("render-pr", CAMPAIGN, str(tmp_path), "--draft", str(draft))
    assert "did you mean" not in proc.stderr and "known fields here" in proc.stderr, proc.stderr


def test_with_json_every_error_is_one_json_object_on_stderr(tmp_path):
    cases = [
        (["read-benchmark", CAMPAIGN, "--baseline", "nope"], "bad_input", "--baseline"),
        (["read-benchmark"], "bad_input", None),  # argparse's own: a missing argument
        (["read-benchmark", CAMPAIGN, "--warmup-step", "2"], "bad_input", None),
        (["read-benchmrk", CAMPAIGN], "bad_input", None),
        (["evaluate-culprit", str(tmp_path / "nothing"), "HEAD"], "bad_input", "REPO"),
    ]
    for args, kind, field in cases:
        proc = perfkit(*args, "--json")
        assert proc.returncode == 2 and proc.stdout == "", (args, proc.stdout)
        said = json.loads(proc.stderr)
        assert said["error"] == kind and said["exit_code"] == 2 and said["message"], said
        assert said.get("field") == field, said
        plain = perfkit(*args)
        # the same words as without --json (a "did you mean" repeats the line it was given, --json too)
        assert plain.stderr.strip().endswith(said["message"].replace(" --json`", "`")), (plain.stderr, said)


def _repo(tmp_path: Path, install: str | None = None) -> tuple[Repo, str]:
    """Four commits; the check passes while state.txt says working. Settings in perfkit.toml."""
    repo = Repo(tmp_path / "proj")
    toml = '[bisect]\nrun = "grep -qx working state.txt && echo PASS || echo FAIL"\nsubmodule = ""\n'
    if install:
        toml += f"install = [{json.dumps(install)}]\n"
    good = repo.commit("one", {"state.txt": "working\n", "perfkit.toml": toml})
    repo.commit("two", {"a.txt": "2\n"})
    repo.commit("three", {"state.txt": "broken\n"})
    repo.commit("four", {"a.txt": "4\n"})
    return repo, good


def test_ctrl_c_on_a_bisect_says_how_to_resume(tmp_path):
    repo = Repo(tmp_path / "proj")
    good = repo.commit("one", {"state.txt": "ok\n"})
    for i in range(6):
        repo.commit(f"change {i}", {"a.txt": f"{i}\n"})
    ran = tmp_path / "ran"
    started = perfkit(
        "bisect-start", str(repo.path), good, "--submodule", "", "--run", f"touch {ran}; sleep 120; echo PASS"
    )
    assert started.returncode == 0, started.stderr
    proc = subprocess.Popen(
        [sys.executable, "-m", "perfkit.cli", "bisect-run", str(repo.path), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 300
    while not ran.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)  # what Ctrl-C sends
    _, err = proc.communicate(timeout=300)
    where = str(repo.path)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == (
        f"perfkit: interrupted; the bisect keeps its steps: resume with `perfkit bisect-run {where}` "
        f"(or `perfkit bisect-step {where}`), or end it with `perfkit bisect-reset {where}`"
    )
    assert perfkit("bisect-reset", where).returncode == 0


def test_a_new_start_says_it_replaces_a_finished_bisect(tmp_path):
    repo, good = _repo(tmp_path)
    assert perfkit("bisect-start", str(repo.path), good).returncode == 0
    done = perfkit("bisect-run", str(repo.path), "--quiet")
    assert done.returncode == 0, done.stderr
    again = perfkit("bisect-start", str(repo.path), good)
    assert again.returncode == 0, again.stderr
    notes = [ln for ln in again.stdout.splitlines() if "replaces the finished bisect" in ln]
    assert len(notes) == 1 and "culprit " in notes[0] and "its state and step logs are removed" in notes[0], notes
    first = perfkit("bisect-start", str(Repo(tmp_path / "other").path), "HEAD")  # nothing to replace: no note
    assert "replaces" not in first.stdout + first.stderr


def test_a_start_notes_uncommitted_work(tmp_path):
    repo, good = _repo(tmp_path)
    clean = bisect_start(str(repo.path), good)
    assert not [n for n in clean.notes if "uncommitted" in n]
    bisect_reset(str(repo.path))
    repo.write("a.txt", "edited\n")
    repo.write("notes/new.py", "x = 1\n")
    dirty = bisect_start(str(repo.path), good)
    (note,) = [n for n in dirty.notes if "uncommitted" in n]
    assert "1 changed (a.txt)" in note and "1 untracked (notes/)" in note, note
    assert "A bisect tests commits only" in note
    assert (repo.path / "a.txt").read_text() == "edited\n"  # left as it was


def test_an_install_that_fails_is_named_with_what_it_printed(tmp_path):
    install = "python3 -c \"import os; os.environ['PERFKIT_TEST_UNSET_VARIABLE']\""
    repo, good = _repo(tmp_path, install=install)
    bisect_start(str(repo.path), good)
    status = bisect_run(str(repo.path))
    assert status.outcome == "good_end_not_good"
    step = status.steps[0]
    assert not step.ran and step.reason.startswith("superproject install failed (exit 1): `python3 -c ")
    assert step.reason.endswith("said: KeyError: 'PERFKIT_TEST_UNSET_VARIABLE'"), step.reason
    assert step.reason in status.message
    assert "the install command failed before the check could run" in status.message
    assert "check `good`, the run command" not in status.message
    assert f"the step's log is {step.log}" in status.message
