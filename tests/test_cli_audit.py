"""The command line speaks to a person in its own words: every --help and every kind of error.

Walks `perfkit COMMAND --help` for every command and the errors a person meets (a value the core
refuses, a value argparse refuses, a mistyped command, a file given without its flag): none names an
argument as MCP spells it (`campaign_dir`, `columns={...}`), a tool by its MCP name, or speaks to an
agent about "the user"; each help page ends with examples. The bad-input table
(test_bad_input_table.py) runs the same check on each of its rows' CLI errors.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest
from helpers.cli_audit import mcp_words
from helpers.gitbuild import Repo
from helpers.procs import perfkit
from perfkit.cli.argparse_private import actions, subcommands
from perfkit.cli.commands import build_parser
from perfkit.cli.terms import Vocabulary, cli_error, cli_text
from perfkit.errors import InputError
from perfkit.registry import all_tools

ROOT = Path(__file__).resolve().parents[1]
SPECS = all_tools()
WORDS = Vocabulary.of(SPECS)
BY_CLI = {s.cli_name: s for s in SPECS}
COMMANDS = [*BY_CLI, "demo", "serve"]


def test_every_command_is_audited():
    parser = build_parser(SPECS)
    listed = subcommands(parser)
    assert set(listed) == set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_help_is_written_for_a_person_with_examples(command):
    proc = perfkit(command, "--help")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert not mcp_words(text, BY_CLI.get(command), SPECS), mcp_words(text, BY_CLI.get(command), SPECS)
    examples = text.split("\nExamples:\n", 1)
    assert len(examples) == 2, f"{command} --help has no Examples section"
    lines = [ln.strip() for ln in examples[1].splitlines() if ln.strip().startswith(("perfkit ", "npx "))]
    assert lines, examples[1]
    # every example runs this command and uses only flags the command has
    sub = _subparser(command)
    known = {o for a in actions(sub) for o in a.option_strings}
    for line in lines:
        if line.startswith("npx "):
            continue
        assert line.split()[1] == command, line
        for used in re.findall(r"(?<!\S)(--[a-z][\w-]*)", line.split("#")[0]):
            assert used in known, f"{command}: example uses {used}, which the command does not take"


def _subparser(command: str):
    parser = build_parser(SPECS)
    return subcommands(parser)[command]


def test_every_option_help_names_no_mcp_argument():
    """The same check on the help lines as rendered, option by option (argparse wraps the page)."""
    for spec in SPECS:
        for action in actions(_subparser(spec.cli_name)):
            assert not mcp_words(action.help or "", spec, SPECS), (spec.cli_name, action.dest, action.help)


def test_input_errors_name_flags_on_the_cli_and_arguments_over_mcp():
    """The core's wording (MCP's) rendered for the command line, for each shape a core message takes."""
    lint = BY_CLI["lint-wording"]
    err = InputError("path", "give exactly one of `path` and `text`", "pass the file to check, or its text")
    assert (
        cli_error(err, lint, WORDS)
        == "--path: give exactly one of `--path` and `--text`; pass the file to check, or its text"
    )
    bench = BY_CLI["read-benchmark"]
    err = InputError("benchmark.csv", "no column for role 'run'", 'rename the column, or pass columns={"run": "trial"}')
    assert cli_error(err, bench, WORDS).endswith("""pass --columns '{"run": "trial"}'""")
    start = BY_CLI["bisect-start"]
    err = InputError("build_ahead", "needs devices", 'list the free devices too, e.g. devices=["0", "1"]')
    assert (
        cli_error(err, start, WORDS)
        == "--build-ahead: needs devices; list the free devices too, e.g. --devices 0 --devices 1"
    )
    settings_line = 'in perfkit.toml write devices = ["0", "1"]'  # a settings file reads the same for everyone
    assert cli_text(settings_line, start, WORDS) == settings_line
    err = InputError("run_cwd", "leads out of install_submodule's folder", "with worker_env 'venv' see bisect_status")
    assert cli_error(err, start, WORDS) == (
        "--run-cwd: leads out of --install-submodule's folder; with --worker-env 'venv' see perfkit bisect-status"
    )
    err = InputError("install_submodule", "runs nosuchcmd", "fix it")  # a list option: one value per flag
    assert cli_error(err, start, WORDS).endswith("repeat it for several: --install-submodule A --install-submodule B)")
    assert cli_error(InputError("repo", "is not a git repository"), start, WORDS) == "REPO: is not a git repository"
    # words that only look like arguments stay: a column, a path, a metric pattern
    kept = "step_time_s in runs/run_1.csv; max_abs_err=(\\S+)"
    assert cli_text(kept, bench, WORDS) == kept


def test_core_error_texts_reach_the_cli_in_its_words(tmp_path):
    """Real errors through the real command line, one per shape."""
    camp = tmp_path / "camp"
    camp.mkdir()
    (camp / "benchmark.csv").write_text("arm,trial,step,step_time_s\nbaseline,1,1,1.0\n")
    cases = [
        (["lint-wording"], r"^perfkit: error: --path: give exactly one of `--path` and `--text`"),
        (["read-benchmark", str(camp)], r"""pass --columns '\{"<role>": "<your column>"\}'"""),
        (["render-pr", str(camp), str(tmp_path), "--draft", "nosuch.json"], r"^perfkit: error: --draft: "),
        (["read-benchmark", str(camp), "--warmup-steps", "x"], r"^perfkit: error: --warmup-steps: .*integer"),
        (["evaluate-culprit", str(tmp_path / "nothing"), "HEAD"], r"^perfkit: error: REPO: "),
    ]
    for args, expected in cases:
        proc = perfkit(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        line = proc.stderr.strip()
        assert len(line.splitlines()) == 1 and re.search(expected, line), (args, line)
        assert not mcp_words(line, BY_CLI[args[0]], SPECS), line


def test_a_mistyped_command_gets_did_you_mean():
    for typed, meant in (("read-benchmarks", "read-benchmark"), ("read_benchmark", "read-benchmark"),
                         ("bisect-stat", "bisect-status"), ("lint", "lint-wording")):  # fmt: skip
        proc = perfkit(typed, "examples/campaign")
        assert proc.returncode == 2
        assert f"did you mean `perfkit {meant}" in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
    proc = perfkit("frobnicate")
    assert proc.returncode == 2 and "unknown command 'frobnicate'" in proc.stderr and "did you mean" not in proc.stderr


def test_a_value_without_its_flag_gets_the_flag(tmp_path):
    draft = tmp_path / "proposed-pr-description.md"
    draft.write_text("# [perf] x\n")
    proc = perfkit("lint-wording", str(draft))
    assert proc.returncode == 2
    assert f"`perfkit lint-wording --path {draft}`" in proc.stderr, proc.stderr
    assert "usage:" not in proc.stderr
    proc = perfkit("lint-wording", "--path", str(draft), "--campaign_dir", str(tmp_path))
    assert proc.returncode == 2 and "did you mean --campaign-dir?" in proc.stderr, proc.stderr


def test_devices_are_given_as_the_help_says(tmp_path):
    """Repeat --devices, or give the JSON list the MCP description shows; `--devices 0 1` says to repeat."""
    repo = Repo(tmp_path / "repo")
    good = repo.commit("one", {"a.txt": "1\n"})
    repo.commit("two", {"a.txt": "2\n"})
    proc = perfkit("bisect-start", str(repo.path), good, "--run", "true", "--submodule", "", "--devices", "0", "1")
    assert proc.returncode == 2
    assert "repeat it for several: --devices 0 --devices 1" in proc.stderr, proc.stderr
    proc = perfkit("bisect-start", str(repo.path), good, "--run", "true", "--submodule", "", "--devices", "0,1")
    assert proc.returncode == 2 and "repeat" in proc.stderr and "--devices 0 --devices 1" in proc.stderr, proc.stderr
    for devices in (["--devices", "0", "--devices", "1"], ["--devices", '["0", "1"]']):
        proc = perfkit("bisect-start", str(repo.path), good, "--run", "true", "--submodule", "", *devices, "--json")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["settings"]["devices"] == ["0", "1"]
        assert perfkit("bisect-reset", str(repo.path)).returncode == 0
    assert "--devices 0 --devices 1" in perfkit("bisect-start", "--help").stdout.replace("\n", " ").replace(
        "                        ", ""
    )


def test_the_mcp_descriptions_keep_the_argument_names():
    """The other surface: MCP's texts are unchanged by the CLI's rendering (one ToolSpec, two texts)."""
    start = next(s for s in SPECS if s.name == "bisect_start")
    param = next(p for p in start.parameters() if p.name == "devices")
    mcp = param.annotation.__metadata__[0].description
    assert "Ask the user" in mcp and start.cli.params["devices"] != mcp  # the agent's text, kept for MCP
    assert "`install_submodule`" in start.description
    assert inspect.signature(start.func).parameters["devices"].default is None


def _input_errors() -> list[tuple[str, int, str, list[str]]]:
    """Every `InputError(field, problem, fix)` in the core: file, line, the field if literal, its texts."""
    import ast

    found = []
    for path in sorted((ROOT / "server" / "perfkit").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "InputError" and node.args:
                first = node.args[0]
                field = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
                texts = [
                    c.value
                    for arg in node.args[1:]
                    for c in ast.walk(arg)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                ]
                found.append((str(path.relative_to(ROOT)), node.lineno, field, texts))
    return found


def test_every_input_error_in_the_core_reads_right_on_the_cli():
    """Static walk of every InputError the core raises: no words aimed at an agent, and, rendered for each
    command whose argument it names, no MCP argument name left (the table above runs the reachable ones)."""
    errors = _input_errors()
    assert len(errors) > 100
    for where, line, field, texts in errors:
        text = " ".join(texts)
        agent = [w for w in mcp_words(text, None, []) if w]
        assert not agent, f"{where}:{line}: {agent}"
        for spec in SPECS:
            if field in {p.name for p in spec.parameters()}:
                rendered = cli_error(InputError(field, text), spec, WORDS)
                left = mcp_words(rendered, spec, SPECS)
                assert not left, f"{where}:{line} as `perfkit {spec.cli_name}`: {left} in {rendered!r}"
