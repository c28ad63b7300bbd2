"""Safe, predictable access to git for every tool.

Arguments always go to git as a list (never through a shell), revisions are checked before use
so that a value starting with '-' cannot become an option, and git runs with prompts, pagers,
hooks, the fsmonitor program and system config switched off, so that the answer does not depend
on who runs it and checking out a commit runs no hook.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from perfkit.errors import InputError, ToolFailure

_SAFE_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
    "GIT_CONFIG_NOSYSTEM": "1",
}
_REV_RE = re.compile(r"^[A-Za-z0-9_./@^~{}:+-]+$")
_PR_RE = re.compile(r"(?:\(#(\d+)\)|Merge pull request #(\d+)|\bPR #?(\d+)\b|\(!(\d+)\))")


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(_SAFE_ENV)
    if extra:
        env.update(extra)
    return env


def git(
    repo: str | Path,
    *args: str,
    check: bool = True,
    input: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = 600,
) -> str:
    """Run git in repo and return stdout (decoded leniently: histories hold any bytes)."""
    cmd = [
        "git",
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.quotepath=off",
        "-C",
        str(repo),
        *args,
    ]
    proc = subprocess.run(
        cmd,
        input=input.encode() if input is not None else None,
        stdin=None if input is not None else subprocess.DEVNULL,
        capture_output=True,
        env=git_env(env),
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ToolFailure(f"git {' '.join(args[:3])} failed: {err[-1] if err else 'exit ' + str(proc.returncode)}")
    return proc.stdout.decode("utf-8", "replace")


def git_ok(repo: str | Path, *args: str) -> bool:
    try:
        git(repo, *args)
        return True
    except ToolFailure:
        return False


def open_repo(path: str, field: str = "repo") -> Path:
    """Resolve a repository argument to its top-level folder or raise an InputError naming field."""
    if not isinstance(path, str) or not path.strip():
        raise InputError(field, "is empty", "pass the path of a git checkout")
    p = Path(path).expanduser()
    if not p.exists():
        raise InputError(field, f"'{path}' does not exist", "pass the path of a git checkout")
    if not p.is_dir():
        raise InputError(field, f"'{path}' is not a folder", "pass the path of a git checkout")
    import git as gitpython  # lazy: GitPython costs ~100 ms to import

    try:
        top = gitpython.Repo(p, search_parent_directories=False).working_tree_dir
    except (gitpython.InvalidGitRepositoryError, gitpython.NoSuchPathError):
        raise InputError(field, f"'{path}' is not a git repository", "pass the top folder of a git checkout") from None
    if top is None:
        raise InputError(field, f"'{path}' is a bare repository", "pass a checkout with a working tree")
    return Path(top).resolve()


def resolve_commit(repo: Path, rev: str, field: str) -> str:
    """Full sha of a commit-ish, refusing option-like or malformed revisions."""
    if not isinstance(rev, str) or not rev.strip():
        raise InputError(field, "is empty", "pass a commit sha, tag or branch name")
    rev = rev.strip()
    if rev.startswith("-") or not _REV_RE.match(rev) or ".." in rev:
        raise InputError(field, f"'{rev[:80]}' is not a single revision", "pass a commit sha, tag or branch name")
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}").strip()
    except ToolFailure:
        raise InputError(
            field,
            f"'{rev}' is not a commit in {repo.name}",
            "check the sha with `git log`, or fetch the missing history",
        ) from None


def is_ancestor(repo: Path, older: str, newer: str) -> bool:
    return (
        subprocess.run(
            ["git", "-C", str(repo), "merge-base", "--is-ancestor", older, newer],
            env=git_env(),
            capture_output=True,
            stdin=subprocess.DEVNULL,
        ).returncode
        == 0
    )


def is_shallow(repo: Path) -> bool:
    return git(repo, "rev-parse", "--is-shallow-repository").strip() == "true"


def pr_number(text: str) -> int | None:
    """The PR number a subject or merge message names: '(#1234)', 'Merge pull request #1234'. The last one
    when several appear: 'Revert "x (#12)" (#40)' and a squash of 'a (#3)' as '... (#7)' were merged as #40, #7."""
    matches = list(_PR_RE.finditer(text or ""))
    if not matches:
        return None
    return int(next(g for g in matches[-1].groups() if g))


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    subject: str
    message: str
    author: str
    author_email: str
    date: str
    parents: tuple[str, ...]


_SEP = "\x1f"


def commit_info(repo: Path, sha: str) -> CommitInfo:
    fmt = _SEP.join(["%H", "%s", "%an", "%ae", "%aI", "%P", "%B"])
    out = git(repo, "show", "-s", f"--format={fmt}", "--end-of-options", sha)
    h, subject, an, ae, date, parents, body = out.split(_SEP, 6)
    return CommitInfo(h, subject, body.strip(), an, ae, date, tuple(parents.split()))


def gitlinks(repo: Path, commit: str) -> dict[str, str]:
    """path -> submodule commit for every gitlink in commit's tree."""
    out = git(repo, "ls-tree", "-r", "-z", "--end-of-options", commit)
    links = {}
    for entry in out.split("\0"):
        if entry.startswith("160000 commit "):
            meta, path = entry.split("\t", 1)
            links[path] = meta.split()[2]
    return links


def submodule_paths(repo: Path, commit: str) -> dict[str, str]:
    """path -> name of submodules declared in .gitmodules at commit (empty when none)."""
    try:
        out = git(repo, "config", "--blob", f"{commit}:.gitmodules", "--get-regexp", r"^submodule\..*\.path$")
    except ToolFailure:
        return {}
    paths = {}
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        paths[value.strip()] = key[len("submodule.") : -len(".path")]
    return paths


def submodule_git_dir(repo: Path, path: str) -> Path | None:
    """The local object store of a checked-out submodule, or None when it was never initialised."""
    candidate = repo / path
    if not (candidate / ".git").exists():
        return None
    try:
        common = git(candidate, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    except ToolFailure:
        return None
    return Path(common)
