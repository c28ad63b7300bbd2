"""Build real git repositories (with real submodules) for tests, quickly and deterministically."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}


def run_git(repo: Path, *args: str, date: int | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | ENV
    env["HOME"] = str(repo.parent)  # no user config leaks in
    if date is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{date} +0000"
    return subprocess.run(
        ["git", "-c", "protocol.file.allow=always", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout.strip()


class Repo:
    """A repository under construction: write files, commit, move a submodule pointer."""

    _clock = 1_700_000_000

    def __init__(self, path: Path, bare_ok: bool = False):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        run_git(path, "init", "-q", "-b", "main")
        run_git(path, "config", "user.name", "Test Author")
        run_git(path, "config", "user.email", "author@example.com")
        run_git(path, "config", "commit.gpgsign", "false")

    def write(self, rel: str, text: str | bytes) -> Path:
        p = self.path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text)
        return p

    def remove(self, rel: str) -> None:
        run_git(self.path, "rm", "-q", "-r", rel)

    def commit(self, message: str, files: dict[str, str | bytes] | None = None) -> str:
        for rel, text in (files or {}).items():
            self.write(rel, text)
        run_git(self.path, "add", "-A")
        Repo._clock += 60
        run_git(self.path, "commit", "-q", "--allow-empty", "-m", message, date=Repo._clock)
        return self.head()

    def head(self) -> str:
        return run_git(self.path, "rev-parse", "HEAD")

    def git(self, *args: str) -> str:
        return run_git(self.path, *args)

    def add_submodule(self, source: Repo, path: str, name: str | None = None) -> None:
        args = ["submodule", "add", "-q"]
        if name:
            args += ["--name", name]
        run_git(self.path, *args, str(source.path), path)

    def set_submodule(self, path: str, sha: str) -> None:
        """Move the submodule checkout to sha and stage the new pointer."""
        sub = self.path / path
        run_git(sub, "fetch", "-q", "origin")
        run_git(sub, "checkout", "-q", sha)
        run_git(self.path, "add", path)


def snapshot(repo: Path) -> dict[str, str]:
    """Everything a user could lose: HEAD, index, tree, untracked files, stash, submodule state."""
    state = {
        "head": run_git(repo, "rev-parse", "HEAD"),
        "symbolic": run_git(repo, "symbolic-ref", "-q", "HEAD") if (repo / ".git").exists() else "",
        "status": run_git(repo, "status", "--porcelain=v2", "--untracked-files=all", "--ignored"),
        "index": run_git(repo, "ls-files", "-s"),
        "diff": run_git(repo, "diff"),
        "cached": run_git(repo, "diff", "--cached"),
        "stash": run_git(repo, "stash", "list"),
        "submodules": run_git(repo, "submodule", "status", "--recursive"),
        "config": (repo / ".git" / "config").read_text() if (repo / ".git" / "config").is_file() else "",
        "worktrees": run_git(repo, "worktree", "list", "--porcelain"),
    }
    for p in sorted(repo.rglob("*")):
        if ".git" in p.relative_to(repo).parts:
            continue
        if p.is_file() and not p.is_symlink():
            state[f"file:{p.relative_to(repo)}"] = p.read_bytes().hex()
    return state
