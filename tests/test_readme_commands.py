"""Every shell command in the README runs as written on a fresh clone, in a fresh environment.

The README's command blocks (indented, or fenced as sh/bash/console) are extracted and run in order in
a copy of the tracked files, with a new virtual environment first on PATH, so `pip install -e .`
installs the clone there as it does for a reader. Only the commands listed in SKIP are left out, each
with its reason.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SKIP = {
    "claude plugin marketplace add": "needs Claude Code and a login (tests/clients and test_launcher drive it)",
    "claude plugin install": "needs Claude Code and a login",
    "pip install -e '.[test,ray]' uv && bash tests/run.sh": "runs the whole test suite, this test included; CI runs it",
}
NETWORK = re.compile(r"(?i)proxy|cert|ssl|ca_bundle|^pip_|^uv_")


def command_blocks(markdown: str) -> list[list[str]]:
    """Indented code blocks after a blank line (outside lists) and sh/bash/console fences, as lists of lines."""
    blocks: list[list[str]] = []
    lines = markdown.split("\n")
    i = 0
    while i < len(lines):
        fence = re.match(r"```(sh|bash|console|shell)\s*$", lines[i])
        if fence:
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            blocks.append([ln.removeprefix("$ ") for ln in lines[i + 1 : j] if ln.strip()])
            i = j + 1
            continue
        if lines[i].startswith("```"):
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            i = j + 1
            continue
        if lines[i].startswith("    ") and i > 0 and lines[i - 1] == "" and not _in_list(lines, i):
            j = i
            while j < len(lines) and lines[j].startswith("    "):
                j += 1
            blocks.append([ln[4:] for ln in lines[i:j]])
            i = j
            continue
        i += 1
    return blocks


def _in_list(lines: list[str], i: int) -> bool:
    """An indented paragraph that continues a list item is not code."""
    k = i - 2
    while k >= 0 and lines[k].strip():
        k -= 1
    return bool(re.match(r"\s*(\d+\.|[-*])\s", lines[k + 1] if k + 1 < i else ""))


def skipped(command: str) -> bool:
    return any(command.startswith(prefix) for prefix in SKIP)


def test_extraction_finds_the_commands():
    blocks = command_blocks((ROOT / "README.md").read_text())
    commands = [c for block in blocks for c in block]
    assert "pip install -e . && perfkit demo" in commands
    assert any(c.startswith("perfkit demo --quiet") for c in commands)
    assert any(c.startswith("perfkit evaluate-culprit perfkit-demo/bisect/pypto culprit ") for c in commands)
    assert any(c.startswith("perfkit render-pr examples/campaign ") for c in commands)
    assert any(c.startswith("perfkit bisect-run ") for c in commands)
    assert all(not c.startswith("{") for c in commands), "JSON examples are not commands"
    for prefix in SKIP:
        assert any(c.startswith(prefix) for c in commands), f"SKIP names a command the README no longer has: {prefix}"
    assert not any("../compiler" in c for c in commands), "commands use only what a clone and the demo provide"


def _rev(repo: Path, name: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", f"{name}^{{commit}}"], capture_output=True, text=True, check=True
    ).stdout.strip()


def fresh_clone(dest: Path) -> Path:
    """The tracked files as they are in the working tree: what a clone of this state holds."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
    for rel in filter(None, listed.decode().split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_bytes(src.read_bytes())
            (dest / rel).chmod(src.stat().st_mode)
    return dest


@pytest.mark.slow
def test_every_readme_command_runs_as_written(tmp_path):
    clone = fresh_clone(tmp_path / "perfkit")
    venv = tmp_path / "venv"
    base = str(Path(getattr(sys, "_base_executable", sys.executable)).resolve())
    subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=300)
    # perfkit's dependencies are visible to the new environment (not perfkit itself), so the README's
    # `pip install -e .` installs the clone without downloading pandas again; test_launcher's
    # environment build covers the download from the index.
    deps = next(Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir())
    (next((venv / "lib").glob("python3*")) / "site-packages" / "zz-perfkit-test-deps.pth").write_text(f"{deps}\n")
    env = {k: v for k, v in os.environ.items() if NETWORK.search(k)} | {
        "HOME": str(tmp_path / "home"),
        "PATH": os.pathsep.join([str(venv / "bin"), "/usr/local/bin", "/usr/bin", "/bin"]),
        "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip")),
        "GIT_AUTHOR_NAME": "perfkit tests",
        "GIT_AUTHOR_EMAIL": "tests@example.invalid",
        "GIT_COMMITTER_NAME": "perfkit tests",
        "GIT_COMMITTER_EMAIL": "tests@example.invalid",
    }
    (tmp_path / "home").mkdir()
    ran = 0
    said: list[str] = []
    for block in command_blocks((clone / "README.md").read_text()):
        script = "\n".join(c for c in block if not skipped(c))
        if not script.strip():
            continue
        proc = subprocess.run(
            ["bash", "-euxo", "pipefail", "-c", script],
            cwd=clone,
            env=env,
            capture_output=True,
            text=True,
            timeout=1500,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, f"README block failed:\n{script}\n--- stderr ---\n{proc.stderr[-4000:]}"
        said.append(proc.stdout)
        ran += len([c for c in block if not skipped(c)])
    assert ran >= 12
    out = "\n".join(said)
    # the evaluate-culprit lines explain what the demo planted: its tags are the culprits it checked
    planted = re.findall(r"expected culprits (\w+) / (\w+): found both", out)
    assert planted, out[-3000:]
    compiler = clone / "perfkit-demo" / "bisect" / "pypto"
    tagged = [_rev(compiler, "culprit"), _rev(compiler / "runtime", "culprit")]
    assert all(t.startswith(p) for t, p in zip(tagged, planted[-1], strict=True)), (tagged, planted)
    assert tagged[0][:12] in out and tagged[1][:12] in out
    assert "accumulate matmul partial sums in bf16" in out
    # the examples fit together: the example draft on the example campaign lints clean
    assert "no findings" in out
    assert (clone / "perfkit-demo" / "publish" / "campaign" / "proposed-pr-description.md").is_file()
    assert not (clone / "perfkit-demo" / "bisect" / "pypto" / ".git" / "perfkit-bisect").exists(), "reset ran last"
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import perfkit; print(perfkit.__file__)"], capture_output=True, text=True
    )
    assert where.stdout.startswith(str(clone)), "the README's commands ran the clone's perfkit"
