"""`perfkit --help` and every `perfkit <command> --help` read like a tool's help: a help snapshot per command.

Each command's help is produced by the real entry point (`main([..., "--help"])`) and checked for the
faults a new user met: a literal `%%`, a default stated twice, a bare `VALUE` placeholder, a command
without a description, a top-level help of paragraphs.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

import pytest
from perfkit.cli.argparse_private import actions, subcommands
from perfkit.cli.commands import build_parser, cli_words, main, metavar, option_help
from perfkit.cli.terms import Vocabulary
from perfkit.registry import all_tools, tool_modules

SPECS = all_tools()
COMMANDS = ["serve", "demo", *(s.cli_name for s in SPECS)]
# "Default: x", "(default x)", "; default x": a statement of the default, not the word inside a sentence
DEFAULT_STATED = re.compile(r"(?i)(\(default\b|\bdefault:|[;,.]\s*default\b)")
ALLOWED_METAVARS = re.compile(r"^(PATH|REV|JSON|JSON\|PATH|N|SECONDS|NUMBER|TEXT|COMMAND|REGEX|SUBDIR|\{[\w,]+\})$")


def help_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as stop:
        main([*argv, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


def sub_parsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser(SPECS)
    return subcommands(parser)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help_snapshot(capsys, command):
    text = help_of(capsys, command)
    assert "%%" not in text
    assert "VALUE" not in text
    assert "(default: None)" not in text
    usage, _, body = text.partition("\n\n")
    assert usage.startswith(f"usage: perfkit {command}")
    description = body.split("\n\n")[0]
    assert not description.startswith(("positional arguments", "options")), f"{command} has no description"
    parser = sub_parsers()[command]
    for action in actions(parser):
        if action.help in (None, argparse.SUPPRESS):
            continue
        assert len(DEFAULT_STATED.findall(action.help)) <= 1, (command, action.dest, action.help)
        if action.option_strings and action.metavar is not None and action.nargs != 0:
            assert ALLOWED_METAVARS.match(str(action.metavar)), (command, action.dest, action.metavar)


def test_percent_is_printed_once(capsys):
    text = help_of(capsys, "read-benchmark")
    assert "95% intervals" in text


def test_metavars_follow_types(capsys):
    bisect = help_of(capsys, "bisect-start")
    for option, placeholder in [
        ("--bad", "REV"),
        ("--run-cwd", "PATH"),
        ("--timeout-s", "SECONDS"),
        ("--install", "COMMAND"),
        ("--metric-pattern", "REGEX"),
        ("--submodule", "PATH"),
    ]:
        assert re.search(rf"{option} {re.escape(placeholder)}\b", bisect), option
    read = help_of(capsys, "read-benchmark")
    assert "--columns JSON" in read and "--warmup-steps N" in read
    assert "--kind {auto,pr,issue}" in help_of(capsys, "lint-wording")
    assert "--draft JSON|PATH" in help_of(capsys, "render-pr")


def test_defaults_stated_once():
    assert option_help("Name of the arm.", "baseline") == "Name of the arm. Default: baseline."
    assert option_help("Seconds before a stop (default 1800).", None) == "Seconds before a stop (default 1800)."
    said = "Name of the PR's arm. Default: the arm named 'pr'."
    assert option_help(said, None) == said
    assert option_help("Subfolders.", ["a", "b"]) == "Subfolders. Default: a, b."
    assert option_help("Keep 95% of it.", 2) == "Keep 95%% of it. Default: 2."
    assert metavar("anything", dict[str, str] | None) == "JSON"
    assert metavar("max_highlights", int) == "N"


def test_top_level_is_one_line_per_command():
    proc = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for command in COMMANDS:
        line = next(ln for ln in lines if ln.strip().split(" ")[0] == command)
        summary = line.strip()[len(command) :].strip()
        assert summary, f"{command}: summary wrapped to the next line"
        assert len(line) <= 80
    assert len(lines) <= len(COMMANDS) + 16, "the top-level help is a list, not paragraphs"


def test_cli_words_names_commands_not_tools():
    text = "No bisect here; start one with bisect_start. Next: `bisect_run`, or bisect_step for one point."
    assert cli_words(text, Vocabulary.of(SPECS)) == (
        "No bisect here; start one with perfkit bisect-start. Next: `perfkit bisect-run`, or perfkit bisect-step"
        " for one point."
    )
    untouched = "log at /tmp/bisect_run/x.log, field bisect_runs, render_pr.py, my-bisect_run, bisect_run(repo=r)"
    assert cli_words(untouched, Vocabulary.of(SPECS)) == untouched


def test_top_level_help_imports_no_tool_and_lists_every_command(tmp_path):
    """`perfkit --help` lists the commands from the list kept on disk (made by the first start), so its
    second start imports no tool module; the list it prints is the tools' own, and a command's own help
    still comes whole from its tool."""
    probe = (
        "import sys\nfrom perfkit.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('TOOLS', sorted(m for m in sys.modules if m.endswith('.tool') and m.startswith('perfkit.')))\n"
    )
    env = {**os.environ, "PERFKIT_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    second = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert "TOOLS []" not in first.stdout  # the first start builds the list from the tools
    assert "TOOLS []" in second.stdout, second.stdout[-300:]
    assert first.stdout.split("TOOLS")[0] == second.stdout.split("TOOLS")[0]
    for spec in SPECS:
        assert re.search(rf"^\s+{spec.cli_name}\s", second.stdout, re.M), spec.cli_name


@pytest.mark.parametrize("argv", [["bisect-status", "--help"], ["read-benchmark", "/nonexistent/campaign"]])
def test_a_command_imports_its_own_tool_module_only(tmp_path, argv):
    """Once the command list is on disk, `perfkit COMMAND` imports only the module declaring COMMAND: the
    other tools' names and flags, which its text is reworded with, come from the list. Its help and its
    errors are the same as when every tool is imported."""
    probe = (
        "import sys\nfrom perfkit.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        "print('TOOLS', sorted(m for m in sys.modules if m.endswith('.tool') and m.startswith('perfkit.')))\n"
    )
    env = {**os.environ, "PERFKIT_CACHE_DIR": str(tmp_path), "COLUMNS": "100"}
    runs = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)]
    runs.append(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120))
    own = next(m for m, specs in tool_modules() if any(s.cli_name == argv[0] for s in specs))
    assert runs[0].stdout.count("perfkit.") > 1  # the first start made the list from every tool
    assert runs[1].stdout.split("TOOLS")[1].strip() == repr([own]), runs[1].stdout[-300:]
    assert (runs[0].stdout.split("TOOLS")[0], runs[0].stderr) == (runs[1].stdout.split("TOOLS")[0], runs[1].stderr)
