"""A repository whose git config includes a FIFO, a device or a huge file, or whose git folder holds
a FIFO where git opens a file by name: every tool refuses it at once, naming the file, and no
config is read inside perfkit's process (GitPython's reader would follow the include and hang).

Each case is a real repository with the hostile file in place; the FIFOs have no writer, so any
read of one would block the test until its timeout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers.gitbuild import Repo
from helpers.load import slack
from perfkit.changes.blame import git_blame_removal
from perfkit.changes.classify import classify_changes
from perfkit.culprit.evaluate import evaluate_culprit
from perfkit.errors import InputError
from perfkit.lint.lint import lint_wording

SECONDS = 10  # a refusal is immediate; a read of a FIFO would never end


def _repo(tmp_path: Path) -> tuple[Repo, str, str]:
    r = Repo(tmp_path / "repo")
    base = r.commit("base", {"train.py": "def f(a=1):\n    return a\n"})
    head = r.commit("change", {"train.py": "def f(a=2):\n    return a\n"})
    return r, base, head


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _include(repo: Repo, value: str, section: str = "include") -> None:
    with open(repo.path / ".git" / "config", "a") as f:
        f.write(f"[{section}]\n\tpath = {value}\n")


CASES = {
    "include-fifo": lambda r, t: _include(r, str(_fifo(t / "outside" / "cfg.fifo"))) or "cfg.fifo",
    "include-dev-zero": lambda r, t: _include(r, "/dev/zero") or "/dev/zero",
    "include-dev-stdin": lambda r, t: _include(r, "/dev/stdin") or "/dev/stdin",
    "includeif-fifo": lambda r, t: (
        _include(r, str(_fifo(t / "outside" / "if.fifo")), 'includeIf "gitdir:/nowhere/"') or "if.fifo"
    ),
    "relative-include-fifo": lambda r, t: (_fifo(r.path / ".git" / "rel.fifo"), _include(r, "rel.fifo")) and "rel.fifo",
    "link-to-fifo": lambda r, t: (
        (
            _fifo(t / "outside" / "target.fifo"),
            (t / "outside" / "innocent.cfg").symlink_to(t / "outside" / "target.fifo"),
            _include(r, str(t / "outside" / "innocent.cfg")),
        )
        and "innocent.cfg"
    ),
    "nested-include-fifo": lambda r, t: _nested(r, t),
    "include-2mib": lambda r, t: _big(r, t),
    "include-loop": lambda r, t: _loop(r, t),
    "packed-refs-fifo": lambda r, t: (
        (os.replace(_fifo(t / "x" / "p"), r.path / ".git" / "packed-refs")) or "packed-refs"
    ),
    "alternates-fifo": lambda r, t: _fifo(r.path / ".git" / "objects" / "info" / "alternates") and "alternates",
}


def _nested(r: Repo, t: Path) -> str:
    a, b = t / "outside" / "a.cfg", t / "outside" / "b.cfg"
    a.parent.mkdir(parents=True, exist_ok=True)
    a.write_text(f"[core]\n\tabbrev = 12\n[include]\n\tpath = {b.name}\n")
    b.write_text("[include]\n\tpath = deep.fifo\n")
    _fifo(t / "outside" / "deep.fifo")
    _include(r, str(a))
    return "deep.fifo"


def _big(r: Repo, t: Path) -> str:
    big = t / "outside" / "big.cfg"
    big.parent.mkdir(parents=True, exist_ok=True)
    big.write_text("[core]\n" + "\t# padding\n" * 250_000)
    _include(r, str(big))
    return "big.cfg"


def _loop(r: Repo, t: Path) -> str:
    a = t / "outside" / "loop.cfg"
    a.parent.mkdir(parents=True, exist_ok=True)
    a.write_text("[include]\n\tpath = loop.cfg\n")
    _include(r, str(a))
    return "loop.cfg"


def _release(tmp: Path) -> None:
    """Give every FIFO left under tmp a writer that closes at once, so nothing stays blocked on it."""
    for path in tmp.rglob("*"):
        try:
            if path.is_fifo():
                fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
                os.close(fd)
        except OSError:
            pass


def _timed(call):
    """Run call in a thread and give up on it after SECONDS: a hang fails the test instead of holding it."""
    box: dict[str, object] = {}

    def run():
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    start = time.monotonic()
    thread.start()
    thread.join(slack(SECONDS))
    assert not thread.is_alive(), f"no answer within {slack(SECONDS):.0f} s"
    return box, time.monotonic() - start


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_tool_refuses_a_config_that_would_block_or_grow(tmp_path, case):
    r, base, head = _repo(tmp_path)
    named = CASES[case](r, tmp_path)
    calls = {
        "classify_changes": lambda: classify_changes(repo=str(r.path), base=base),
        "git_blame_removal": lambda: git_blame_removal(repo=str(r.path), base=base),
        "evaluate_culprit": lambda: evaluate_culprit(repo=str(r.path), commit=head),
        "lint_wording": lambda: lint_wording(text="A plain sentence.\n", repo=str(r.path)),
    }
    try:
        for tool, call in calls.items():
            box, seconds = _timed(call)
            error = box.get("error")
            assert isinstance(error, InputError), (tool, box)
            assert error.field == "repo", (tool, error)
            text = str(error)
            assert "cannot be read safely" in text and os.path.basename(named) in text, (tool, text)
            assert len(text) < 2000
            assert seconds < slack(SECONDS)
    finally:
        _release(tmp_path)


def test_regular_includes_still_work_and_git_reads_them(tmp_path):
    """The control: an include of a plain file (relative, nested, conditional) is read by git as before."""
    r, base, head = _repo(tmp_path)
    inc = r.path / ".git" / "extra.cfg"
    inc.write_text("[include]\n\tpath = more.cfg\n")
    (r.path / ".git" / "more.cfg").write_text("[perfkit]\n\tmarker = seen\n")
    _include(r, "extra.cfg")
    _include(r, "~/does-not-exist.cfg", 'includeIf "onbranch:main"')
    result = classify_changes(repo=str(r.path), base=base)
    assert len(result.commits) == 1
    out = subprocess.run(
        ["git", "-C", str(r.path), "config", "perfkit.marker"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "seen"


def test_no_config_is_read_in_perfkits_process(tmp_path):
    """perfkit's process never opens the config files itself beyond the bounded reader: GitPython is not imported."""
    code = (
        "import sys\n"
        "from perfkit.changes.classify import classify_changes\n"
        f"classify_changes(repo={str(tmp_path / 'repo')!r}, base='HEAD~1')\n"
        "print('git' in sys.modules)\n"
    )
    _repo(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
