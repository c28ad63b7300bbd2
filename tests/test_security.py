"""Input never takes over: no shell string is built from data, the repository's hooks and config
programs do not run, and text from a repository or a campaign is never evaluated as a template.

The hostile project puts shell syntax everywhere data can carry it (folder names, commit messages,
author names, file names, tag names, CSV cells, JSON records, draft fields, build file names) and
arms every program git can be told to run (hooks in .git/hooks, in the submodule's git dir and in
the history itself through core.hooksPath, an fsmonitor program, textconv and external diff drivers,
clean and smudge filters). Every tool then runs over it, and each program leaves a marker file if
it ever runs.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.gitbuild import run_git
from perfkit.cli.demo.fastimport import Commit, write_history

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "server" / "perfkit"
HOOKS = [
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "post-index-change",
]


def shelly(tag: str) -> str:
    """Text that runs `touch pwned-<tag>` in whatever shell it reaches (two ways)."""
    return f"$(touch pwned-{tag}) `touch pwned-{tag}-tick`"


def pwned(*roots: Path) -> list[str]:
    """Every file a leaked shell string created, under the given folders and in the home folder."""
    found = []
    for root in (*roots, Path.home()):
        for dirpath, dirnames, filenames in os.walk(root):
            if root == Path.home() and dirpath != str(root):
                dirnames.clear()  # the home folder itself only
            found += [os.path.join(dirpath, n) for n in filenames if n.startswith("pwned")]
    return found


# ---- 1. the source: where commands are built -----------------------------------------------------

SHELL_ALLOWED = {
    # the user's own install and run commands: the only data perfkit hands to a shell, as documented
    ("bisect/command/runner.py", "shell"),
    # `perfkit demo` runs its own fixed install commands (constants of the demo scenario)
    ("cli/demo/precision_act.py", "precision_act"),
}
SUBPROCESS = {"run", "Popen", "call", "check_call", "check_output"}
FORBIDDEN = {
    ("os", "system"),
    ("os", "popen"),
    ("subprocess", "getoutput"),
    ("subprocess", "getstatusoutput"),
    ("asyncio", "create_subprocess_shell"),
    ("os", "execl"),
    ("os", "execlp"),
    ("os", "spawnl"),
    ("pty", "spawn"),
}
SHELLS = {"sh", "bash", "/bin/sh", "/bin/bash", "zsh", "dash"}


def _functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _owner(tree: ast.AST, target: ast.AST) -> str:
    best = "<module>"
    for fn in _functions(tree):
        if any(n is target for n in ast.walk(fn)):
            best = fn.name  # innermost wins: ast.walk visits outer functions first
    return best


def _list_bound(fn: ast.AST, name: str) -> bool:
    """name is assigned a list display (and nothing else) in fn."""
    values = [
        n.value
        for n in ast.walk(fn)
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name) and t.id == name
    ]
    return bool(values) and all(isinstance(v, ast.List) for v in values)


def test_no_shell_string_is_built_from_data():
    """Every process perfkit starts gets an argument list; a shell only for the user's own commands."""
    problems = []
    for path in sorted(SERVER.rglob("*.py")):
        rel = path.relative_to(SERVER).as_posix()
        tree = ast.parse(path.read_text(), rel)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                mod = node.func.value.id if isinstance(node.func.value, ast.Name) else ""
                name = node.func.attr
                where = f"{rel}:{node.lineno} {mod}.{name}"
                if (mod, name) in FORBIDDEN:
                    problems.append(f"{where}: runs a shell string")
                if mod == "subprocess" and name in SUBPROCESS:
                    shell = [k for k in node.keywords if k.arg == "shell"]
                    owner = (rel, _owner(tree, node))
                    if (
                        shell
                        and not (isinstance(shell[0].value, ast.Constant) and shell[0].value.value is False)
                        and owner not in SHELL_ALLOWED
                    ):
                        problems.append(f"{where}: shell=True")
                    first = node.args[0] if node.args else None
                    fn = next((f for f in _functions(tree) if f.name == owner[1]), tree)
                    if not (
                        isinstance(first, ast.List)
                        or (isinstance(first, ast.Name) and _list_bound(fn, first.id))
                        or (shell and owner in SHELL_ALLOWED)
                    ):
                        problems.append(f"{where}: the command is not an argument list")
            # a list that starts with a shell (['bash', '-c', ...]) only where user commands run
            if (
                isinstance(node, ast.List)
                and node.elts
                and isinstance(node.elts[0], ast.Constant)
                and node.elts[0].value in SHELLS
                and (rel, _owner(tree, node)) not in SHELL_ALLOWED
            ):
                problems.append(f"{rel}:{node.lineno}: a shell command line")
    assert not problems, "\n".join(problems)


def test_the_tool_descriptions_say_which_commands_run_through_a_shell():
    from perfkit.registry import all_tools

    start = next(s for s in all_tools() if s.name == "bisect_start")
    assert "the only commands perfkit runs through a shell" in start.description
    for spec in all_tools():
        if spec.name.startswith("bisect_") and spec.name not in ("bisect_status",):
            assert "shell" in spec.description or spec.name == "bisect_reset", spec.name


# ---- 2. a hostile project through every tool -----------------------------------------------------


@dataclass
class Hostile:
    tmp: Path
    cwd: Path
    markers: Path
    repo: Path
    sub_origin: Path
    env: Path
    c: dict[str, str]
    campaign: Path
    builds: Path

    def marks(self) -> set[str]:
        return {p.name for p in self.markers.iterdir()}

    def clear(self) -> None:
        for p in self.markers.iterdir():
            p.unlink()


def _fast_import(
    path: Path, commits: list[tuple[str, dict[str, tuple[str, str]], dict[str, str]]], author: str
) -> list[str]:
    """(message, {path: (mode, text)}, {path: gitlink sha}) commits on main, in one stream."""
    who = f"{author} <eve@example.com>"
    history = [
        Commit(
            message,
            {p: text for p, (mode, text) in files.items() if mode != "D"},
            links,
            deletes=[p for p, (mode, _) in files.items() if mode == "D"],
            modes={p: mode for p, (mode, _) in files.items() if mode != "D"},
            author=who,
        )
        for message, files, links in commits
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {"GIT_CONFIG_NOSYSTEM": "1"}
    return write_history(path, history, start_time=1_700_000_000, step=60, env=env)


def _hook(markers: Path, tag: str) -> str:
    return f"#!/bin/sh\ntouch '{markers}/{tag}'\nexit 0\n"


# The hostile line twice: under a heading the draft answers (instruction: never posted, listed in the
# account as written) and in the template's collapsed notes (kept as written: it must reach the file inert).
TEMPLATE_LINE = "{{ 7*7 }} {% if true %}jinja{% endif %} " + shelly("template")
PR_TEMPLATE = (
    "## Reviewer notes\n\n" + TEMPLATE_LINE + "\n\n"
    "<details><summary>Notes</summary>\n\n" + TEMPLATE_LINE + "\n\n</details>\n\n"
    "## Checklist\n\n- [ ] Tests pass\n"
)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Hostile:
    tmp = tmp_path_factory.mktemp("hostile")
    markers = tmp / "markers"
    markers.mkdir()
    env = tmp / "env"
    env.mkdir()
    cwd = tmp / "cwd"
    cwd.mkdir()
    author = "Eve " + shelly("author").replace("`", "'")  # a name may hold $( ) but no angle brackets
    origin = tmp / f"simpler {shelly('subdir')}"
    r = _fast_import(
        origin,
        [(f"runtime change {i} {shelly('rmsg')}", {"kernel.cpp": ("100644", f"// v{i}\n")}, {}) for i in range(4)],
        author,
    )
    history_hooks = {f".githooks/{h}": ("100755", _hook(markers, f"history-{h}")) for h in HOOKS}
    gitmodules = f'[submodule "simpler"]\n\tpath = runtime\n\turl = {origin}\n'
    doc = f"docs/{shelly('fname')}.md"
    commits = [
        (
            f"initial compiler {shelly('msg')}",
            {
                "src/codegen.py": ("100644", "v0\n"),
                ".gitattributes": ("100644", "*.py filter=evil diff=evil\n"),
                ".github/pull_request_template.md": ("100644", PR_TEMPLATE),
                doc: ("100644", "doc\nremoved line\nsecond removed line\n"),
                **history_hooks,
            },
            {},
        ),
        (f"chore(runtime): add simpler {shelly('msg1')}", {".gitmodules": ("100644", gitmodules)}, {"runtime": r[0]}),
        (f"tidy docs {shelly('msg2')}", {doc: ("100644", "doc\n")}, {}),
        (f"compiler change {shelly('msg3')}", {"src/codegen.py": ("100644", "v3\n")}, {}),
        (f"move runtime {shelly('msg4')}", {}, {"runtime": r[2]}),
        (f"break codegen {shelly('msg5')}", {"src/codegen.py": ("100644", "v5 BUG\n")}, {}),
        (f"more {shelly('msg6')}", {"src/codegen.py": ("100644", "v6 BUG\n")}, {}),
    ]
    repo = tmp / f"pypto {shelly('dir')}"
    shas = _fast_import(repo, commits, author)
    run_git(repo, "submodule", "update", "--init", "-q", "runtime")
    run_git(repo, "tag", "v1$(touch${IFS}pwned-tag)", shas[3])
    c = {"init": shas[0], "add": shas[1], "docs": shas[2], "bug": shas[5], "head": shas[6]}

    # every program git can be told to run, in the user's config and git dirs
    for d, tag in ((repo / ".git" / "hooks", "user"), (repo / ".git" / "modules" / "simpler" / "hooks", "sub")):
        d.mkdir(parents=True, exist_ok=True)
        for h in HOOKS:
            (d / h).write_text(_hook(markers, f"{tag}-{h}"))
            (d / h).chmod(0o755)
    fsmonitor = tmp / "fsmonitor.sh"
    fsmonitor.write_text(f"#!/bin/sh\ntouch '{markers}/fsmonitor'\necho\n")
    fsmonitor.chmod(0o755)
    for key, value in (
        ("core.hooksPath", ".githooks"),
        ("core.fsmonitor", str(fsmonitor)),
        ("filter.evil.smudge", f"sh -c 'touch \"{markers}/smudge\"; cat'"),
        ("filter.evil.clean", f"sh -c 'touch \"{markers}/clean\"; cat'"),
        ("diff.evil.textconv", f'sh -c \'touch "{markers}/textconv"; cat "$0"\''),
        ("diff.external", f"sh -c 'touch \"{markers}/external\"'"),
    ):
        run_git(repo, "config", key, value)
    (repo / ".git" / "modules" / "simpler" / "config").open("a").write(
        f"[core]\n\tfsmonitor = {fsmonitor}\n\thooksPath = {repo / '.git' / 'hooks'}\n"
    )

    campaign = tmp / f"campaign {shelly('camp')}"
    (campaign / "records").mkdir(parents=True)
    rows = ["arm,run,step,step_time_s,note"]
    for run in (1, 2, 3):
        for arm, t in (("baseline", 1.0), ("pr", 0.8)):
            for step in range(1, 6):
                rows.append(f'{arm},{run},{step},{t + 0.01 * ((step + run) % 3)},"{shelly("cell")}"')
    (campaign / "benchmark.csv").write_text("\n".join(rows) + "\n")
    (campaign / "records" / "candidates.jsonl").write_text(
        json.dumps(
            {
                "sha": "a1" * 20,
                "title": shelly("title") + " {{ 7*7 }}",
                "shipped": True,
                "baseline": "b1b1b1b1",
                "before": 1.0,
                "after": 0.8,
                "note": shelly("note"),
            }
        )
        + "\n"
    )
    (campaign / "latest-report.md").write_text(f"# report {shelly('report')}\n")

    builds = tmp / "builds"
    for side, text in (("good", "x = 1;\n"), ("bad", f"x = 2; // {shelly('code')}\n")):
        k = builds / side / "kernels"
        k.mkdir(parents=True)
        (k / f"{shelly('build')}.cpp").write_text(text)
    h = Hostile(tmp, cwd, markers, repo, origin, env, c, campaign, builds)
    h.clear()  # setting up ran some of them (the test's own git calls)
    return h


def test_analysis_tools_run_no_repository_program_and_no_data(hostile, monkeypatch):
    from perfkit.benchmark.read import read_benchmark
    from perfkit.changes.blame import git_blame_removal
    from perfkit.changes.classify import classify_changes
    from perfkit.culprit.evaluate import evaluate_culprit
    from perfkit.errors import InputError
    from perfkit.lint.lint import lint_wording
    from perfkit.publish.render import render_pr
    from perfkit.triage.compare import triage_builds

    h = hostile
    monkeypatch.chdir(h.cwd)
    repo = str(h.repo)
    ran = {}
    report = evaluate_culprit(repo, h.c["bug"])
    assert report.subject == f"break codegen {shelly('msg5')}" and report.author.startswith("Eve $(touch")
    ran["evaluate_culprit"] = h.marks()
    with pytest.raises(InputError, match="not a single revision"):  # refused by its characters, never run
        evaluate_culprit(repo, "v1$(touch${IFS}pwned-tag)")
    cls = classify_changes(repo, h.c["init"], "HEAD")
    assert any(shelly("msg5") in cm.subject for cm in cls.commits)
    ran["classify_changes"] = h.marks()
    blame = git_blame_removal(repo, h.c["init"], "HEAD", include_modified=True)
    assert any(b.path == f"docs/{shelly('fname')}.md" for b in blame.removals)
    assert blame.commits[0].subject == f"initial compiler {shelly('msg')}"
    ran["git_blame_removal"] = h.marks()
    bench = read_benchmark(str(h.campaign))
    assert bench.candidates[0].title.startswith(shelly("title")) and bench.ignored_columns == ["note"]
    ran["read_benchmark"] = h.marks()
    out = h.tmp / "out"
    out.mkdir()
    victim = h.tmp / "victim.txt"
    victim.write_text("keep me\n")
    (out / "proposed-pr-description.md").symlink_to(victim)  # a link planted where the output goes
    res = render_pr(
        str(h.campaign),
        repo,
        draft={
            "job": shelly("draft") + " {{ 7*7 }}",
            "template_answers": {"Reviewer notes": "{% raw %}" + shelly("ans")},
        },
        out_dir=str(out),
    )
    text = Path(res.pr_path).read_text()
    for literal in (
        shelly("template"),
        "{{ 7*7 }} {% if true %}jinja{% endif %}",
        shelly("draft"),
        "{% raw %}" + shelly("ans"),
    ):
        assert literal in text, literal
    assert text.count(TEMPLATE_LINE) == 1  # the notes' copy; the answered heading's copy is not posted
    dropped = [p for p in res.template_parts if p.fate == "instruction"]
    assert [p.template for p in dropped] == [TEMPLATE_LINE], res.template_parts  # listed as written, not run
    assert "49" not in text.split("\n", 1)[0]
    assert victim.read_text() == "keep me\n" and not Path(res.pr_path).is_symlink()  # replaced, not followed
    ran["render_pr"] = h.marks()
    lint_wording(path=res.pr_path, repo=repo, campaign_dir=str(h.campaign))
    ran["lint_wording"] = h.marks()
    tri = triage_builds(str(h.builds / "good"), str(h.builds / "bad"), subdirs=["kernels"])
    assert tri.subdirs[0].differ == [f"{shelly('build')}.cpp"] and shelly("code") in tri.diffs[0].diff
    ran["triage_builds"] = h.marks()
    assert all(not marks for marks in ran.values()), ran
    assert not pwned(h.tmp), pwned(h.tmp)


def _install(h: Hostile) -> list[str]:
    return [f'echo "$PWD" > {h.env}/super.path']


def test_bisect_runs_no_hook_and_no_data_and_says_which_filters_run(hostile, monkeypatch):
    from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_status

    h = hostile
    monkeypatch.chdir(h.cwd)
    run = 'grep -q BUG "$PERFKIT_CHECKOUT/src/codegen.py" && { echo "check FAIL"; exit 1; }; echo "check PASS"'
    h.clear()
    bisect_start(
        str(h.repo), h.c["add"], run=run, install=_install(h), install_submodule=[f'echo "$PWD" > {h.env}/sub.path']
    )
    assert h.marks() == set()
    res = bisect_run(str(h.repo))
    assert res.culprit.commit == h.c["bug"] and res.culprit.subject == f"break codegen {shelly('msg5')}"
    assert shelly("msg5") in res.message
    # hooks (the user's, the submodule's, the history's own through core.hooksPath), fsmonitor,
    # textconv and external diff never run; the clean and smudge filters the user configured do, as
    # docs/bisect.md says: a checkout needs them (Git LFS is one)
    assert "smudge" in h.marks() and h.marks() <= {"smudge", "clean"}, h.marks()
    h.clear()
    assert bisect_status(str(h.repo)).done and h.marks() == set()
    assert not pwned(h.tmp), pwned(h.tmp)

    # the reproduce script runs the check at the culprit and nothing a name or message holds
    script = res.reproduce
    assert script and str(h.repo.name) in script
    proc = subprocess.run(["bash", "-c", script], cwd=h.cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "check FAIL" in proc.stdout, proc.stderr
    assert not pwned(h.tmp), pwned(h.tmp)
    made = [
        line[len("worktree ") :]
        for line in run_git(h.repo, "worktree", "list", "--porcelain").splitlines()
        if line.startswith("worktree ")
    ][1:]
    for wt in made:
        run_git(h.repo, "worktree", "remove", "--force", "--force", wt)
    h.clear()
    bisect_reset(str(h.repo))
    assert h.marks() == set()


def test_a_line_break_in_a_path_never_escapes_the_reproduce_script(tmp_path):
    """A submodule path from a repository can hold a newline; the script must keep it inside quotes."""
    from perfkit.bisect import reproduce
    from perfkit.bisect.models import BisectSettings
    from perfkit.bisect.state.store import PhaseData, State

    stubs, base = tmp_path / "bin", tmp_path / "base"
    evil = "rt\ntouch pwned-newline #"
    repo = tmp_path / "repo\ntouch pwned-repo #"
    (base / repo.name / evil).mkdir(parents=True)  # the folders the script would create, so every line runs
    stubs.mkdir()
    for tool, body in (("git", "exit 0"), ("bash", "exit 0"), ("mktemp", f"echo '{base}'")):
        (stubs / tool).write_text(f"#!/bin/sh\n{body}\n")
        (stubs / tool).chmod(0o755)
    st = State(
        id="x",
        repo=str(repo),
        good="a" * 40,
        bad="b" * 40,
        created="now",
        settings=BisectSettings(run="true", submodule=evil, install=["true"], install_submodule=["true"]),
        submodule_source=str(tmp_path / "src\ntouch pwned-src #"),
        level1=PhaseData(name="level1", items=[]),
        phase="done",
        outcome="found",
        reproduce_point=("c" * 40, "d" * 40),
    )
    script = reproduce.script(st, repo)
    work = tmp_path / "work"
    work.mkdir()
    proc = subprocess.run(
        ["/bin/sh", "-c", script], cwd=work, capture_output=True, text=True, env={"PATH": f"{stubs}:/usr/bin:/bin"}
    )
    assert proc.returncode == 0, proc.stderr  # it ran to the end
    assert not pwned(tmp_path), (pwned(tmp_path), script, proc.stderr)


# ---- 3. templates ---------------------------------------------------------------------------------


def test_only_perfkit_templates_are_rendered_and_in_a_sandbox():
    """Every Jinja environment in the code is sandboxed and loads perfkit's own template folder."""
    problems = []
    for path in sorted(SERVER.rglob("*.py")):
        rel = path.relative_to(SERVER).as_posix()
        text = path.read_text()
        tree = ast.parse(text, rel)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if name in ("Environment", "Template", "NativeEnvironment", "ImmutableSandboxedEnvironment"):
                    problems.append(f"{rel}:{node.lineno}: {name}() is not sandboxed")
                if name in ("from_string",):
                    problems.append(f"{rel}:{node.lineno}: renders a string as a template")
                if name == "FileSystemLoader" and "templates" not in ast.unparse(node):
                    problems.append(f"{rel}:{node.lineno}: loads templates from elsewhere")
    assert not problems, "\n".join(problems)

    from jinja2.sandbox import SandboxedEnvironment, SecurityError
    from perfkit.publish.render import _environment
    from perfkit.publish.templates_dir import templates_dir

    env = _environment(templates_dir())
    assert isinstance(env, SandboxedEnvironment)
    with pytest.raises(SecurityError):
        env.from_string("{{ ''.__class__.__mro__[1].__subclasses__() }}").render()
    with pytest.raises(SecurityError):
        env.from_string("{{ cycler.__init__.__globals__.os.system('touch pwned') }}").render()
