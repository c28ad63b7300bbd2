"""Safe, predictable access to git for every tool: the one door through which perfkit runs git.

A repository perfkit reads may come from a stranger (a fork, a PR branch), and its `.git/config`
can name programs under many keys. Git always reads a repository's own config, so every git
process started here is armoured without depending on what that config holds:

- the environment drops every GIT_* and askpass variable and sets GIT_CONFIG_GLOBAL=/dev/null and
  GIT_CONFIG_NOSYSTEM=1, so only the repository's config (and what it includes) is left;
- `-c` overrides, which git applies after every config file, switch off each fixed key that runs
  a program (_FIXED below), and `--no-pager` covers `pager.<command>`;
- keys with a user-chosen middle part (`filter.<driver>.clean`, `diff.<driver>.textconv`,
  `credential.<url>.helper`, ...) cannot be named in advance: the first call in a repository lists
  the names its config defines (includes followed, nothing run) and overrides every one that
  matches _DRIVER_KEYS with a value that runs nothing (through --config-env, so a middle part
  holding '=' is overridden too); the list is cached until a config file's size or time changes;
- log/show/diff/blame/grep get --no-textconv, --no-ext-diff and, where accepted, --no-show-signature,
  and gpg.*.program points at a path that cannot exist, so a signature is never checked by running gpg;
- protocol.allow=never with only local paths allowed (the bisect clones its submodule offline).

Only the bisect's own checkouts pass `filters=True`: building an old commit needs the
repository's checkout filters (LFS), the analysis tools never run them.

No config is read inside perfkit's process: GitPython's reader follows `include.path` into a FIFO
(every tool hangs) or /dev/zero (memory grows until the kernel kills the server), so open_repo asks
git, and before the first git process in a repository config_includes walks its includes with a
reader that refuses anything but a regular file. Listing the config's keys is a git process too:
the overrides must name exactly the keys the following git processes will read, includes and
includeIf conditions as git itself evaluates them.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from perfkit.errors import InputError, ToolFailure
from perfkit.guards import limits
from perfkit.repo import config_includes, gitdir_proof

if TYPE_CHECKING:
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")

_NO_PROGRAM = "/dev/null/perfkit-runs-no-program"  # exec fails: /dev/null is not a folder
# Values of the driver overrides, passed with --config-env: a key's middle part may hold '=', which
# `-c key=value` would split at, but an environment variable's name cannot.
_VALUE_ENV = {
    "": "PERFKIT_GIT_EMPTY",
    "false": "PERFKIT_GIT_FALSE",
    "checkout": "PERFKIT_GIT_CHECKOUT",
    _NO_PROGRAM: "PERFKIT_GIT_NO_PROGRAM",
}
_SAFE_ENV = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": ":",
    "GIT_SEQUENCE_EDITOR": ":",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    **{name: value for value, name in _VALUE_ENV.items()},
}
_DROPPED_ENV = ("SSH_ASKPASS", "SSH_ASKPASS_REQUIRE", "EDITOR", "VISUAL")

# Keys that run a program (or decide which one runs) for the commands perfkit uses, and the value
# that runs nothing. -c applies after every config file, so these win over the repository's config.
_FIXED = (
    ("core.hooksPath", os.devnull),  # every hook (post-checkout on worktree add and checkout)
    ("core.fsmonitor", "false"),  # fsmonitor program started by commands that scan the worktree
    ("core.quotepath", "off"),  # not a program: paths come back unquoted
    ("core.sshCommand", _NO_PROGRAM),  # ssh transport (also refused by protocol.allow)
    ("core.askPass", ""),  # askpass program; empty means none, and GIT_TERMINAL_PROMPT=0 stops prompts
    ("core.pager", "cat"),  # pager (only on a terminal; --no-pager is passed too)
    ("core.editor", ":"),  # editor; ':' is git's own no-op
    ("sequence.editor", ":"),  # rebase todo editor
    ("core.gitProxy", _NO_PROGRAM),  # git:// proxy command
    ("core.attributesFile", os.devnull),  # not a program: the user's global attributes stay out
    ("diff.external", ""),  # external diff (also --no-ext-diff)
    ("log.showSignature", "false"),  # signature verification on log/show
    ("gpg.program", _NO_PROGRAM),  # signature verification and signing
    ("gpg.openpgp.program", _NO_PROGRAM),
    ("gpg.x509.program", _NO_PROGRAM),
    ("gpg.ssh.program", _NO_PROGRAM),
    ("gpg.ssh.defaultKeyCommand", _NO_PROGRAM),
    ("credential.helper", ""),  # empty resets the list of credential helpers
    ("protocol.allow", "never"),  # no transport at all (ext:: runs programs, ssh runs ssh) ...
    ("protocol.file.allow", "always"),  # ... except local paths, for the bisect's offline clone
    ("gc.auto", "0"),  # no background gc (it would run with the repository's config)
    ("maintenance.auto", "false"),
    ("submodule.recurse", "false"),  # submodule commands never run on their own
)

# Keys with a user-chosen middle part that run a program, and the value that runs nothing there.
_DRIVER_KEYS = (
    (re.compile(r"^filter\..+\.(clean|smudge|process)$"), ""),  # checkout and hashing filters
    (re.compile(r"^filter\..+\.required$"), "false"),  # so a filter switched off is not an error
    (re.compile(r"^diff\..+\.(textconv|command)$"), ""),  # diff drivers (also --no-textconv/--no-ext-diff)
    (re.compile(r"^merge\..+\.driver$"), ""),  # merge drivers
    (re.compile(r"^(difftool|mergetool)\..+\.cmd$"), ""),
    (re.compile(r"^credential\..+\.helper$"), ""),  # per-URL credential helpers
    (re.compile(r"^gpg\..+\.program$"), _NO_PROGRAM),  # any signature format
    (re.compile(r"^remote\..+\.(uploadpack|receivepack)$"), _NO_PROGRAM),
    (re.compile(r"^remote\..+\.vcs$"), ""),  # remote helper git-remote-<vcs>
    (re.compile(r"^submodule\..+\.update$"), "checkout"),  # '!command' runs on submodule update
    (re.compile(r"^hook\..+\.command$"), ""),  # config-defined hooks (newer git)
    (re.compile(r"^pager\..+$"), "false"),  # not paging (also --no-pager)
)
_FILTER_KEY = re.compile(r"^filter\.")

# Flags that stop a command from running a driver, a signature check or an external diff.
_COMMAND_FLAGS = {
    "log": ("--no-textconv", "--no-ext-diff", "--no-show-signature"),
    "show": ("--no-textconv", "--no-ext-diff", "--no-show-signature"),
    "diff": ("--no-textconv", "--no-ext-diff"),
    "blame": ("--no-textconv",),
    "grep": ("--no-textconv",),
}
_BROKEN_CONFIG = re.compile(r"(bad config line \d+ in [^\n]*|bad config variable [^\n]*|bad numeric config [^\n]*)")

_REV_RE = re.compile(r"^[A-Za-z0-9_./@^~{}:+-]+$")
_PR_RE = re.compile(r"(?:\(#(\d+)\)|Merge pull request #(\d+)|\bPR #?(\d+)\b|\(!(\d+)\))")


class BrokenGitConfig(ToolFailure):
    """The repository's config cannot be parsed: git fails on every command there."""


class UnsafeGitConfig(BrokenGitConfig):
    """The repository's config includes a file git would block on or read without end."""


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k not in _DROPPED_ENV}
    env.update(_SAFE_ENV)
    if extra:
        env.update(extra)
    return env


_lock = threading.Lock()
# repo -> (stat key of its config files, filter overrides, other overrides, files that set core.worktree)
_overrides_cache: dict[
    str, tuple[tuple[tuple[str, int, int], ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]
] = {}
_safe_dirs: tuple[str, ...] | None = None


def _user_safe_directories() -> tuple[str, ...]:
    """The user's own safe.directory entries: global config is off, this one setting is carried over."""
    global _safe_dirs
    if _safe_dirs is None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {"GIT_CONFIG_NOSYSTEM": "1"}
        try:
            proc = subprocess.run(
                ["git", "config", "--global", "--get-all", "safe.directory"],
                capture_output=True,
                stdin=subprocess.DEVNULL,
                env=env,
                timeout=30,
            )
            _safe_dirs = tuple(proc.stdout.decode("utf-8", "replace").split("\n")[:-1])
        except (OSError, subprocess.TimeoutExpired):
            _safe_dirs = ()
    return _safe_dirs


def _stat_key(files: list[str]) -> tuple[tuple[str, int, int], ...]:
    out = []
    for f in files:
        try:
            st = os.stat(f)
            out.append((f, st.st_mtime_ns, st.st_size))
        except OSError:
            out.append((f, -1, -1))
    return tuple(out)


def _list_config(repo: str, pinned: list[str]) -> tuple[list[str], list[str]]:
    """(config files, key names) git reads in repo, includes followed. Listing runs no program."""
    try:
        config_includes.check_repository(repo, git_env())
    except config_includes.UnsafeInclude as exc:
        raise UnsafeGitConfig(str(exc)) from None
    try:
        proc = subprocess.run(
            ["git", *_fixed_args(), *pinned, "-C", repo, "config", "--list", "--show-origin", "--name-only", "-z"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=git_env(),
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        raise UnsafeGitConfig("git took over 60 s to read its config") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")
        broken = _BROKEN_CONFIG.search(err)
        if broken:
            raise BrokenGitConfig(f"the git config cannot be read ({broken.group(1).strip()})")
        return [], []  # not a repository yet (clone target) or no config: nothing to override
    items = proc.stdout.decode("utf-8", "replace").split("\0")
    files, keys = [], []
    for origin, key in zip(items[0::2], items[1::2], strict=False):
        if origin.startswith("file:"):
            files.append(os.path.join(repo, origin[5:]))
            keys.append(key)  # keys from perfkit's own -c arguments are left out
    return files, keys


def _repo_files(repo: str) -> list[str]:
    """Config files git may read in repo even when they hold no key yet, so a new one is noticed
    (a linked worktree's `.git` is a file: its config.worktree sits in the folder that file names)."""
    dot = os.path.join(repo, ".git")
    files = [os.path.join(dot, "config"), os.path.join(dot, "config.worktree"), dot]
    try:
        dirs = config_includes.git_dirs(repo)
    except config_includes.UnsafeInclude:
        dirs = None
    if dirs is not None:
        files += [os.path.join(dirs[1], "config"), os.path.join(dirs[0], "config.worktree")]
    return files


def driver_overrides(repo: str | Path, pinned: list[str] | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """-c arguments for every program-naming key repo's config defines: (filter keys, other keys)."""
    entry = _config_entry(str(repo), pinned or [])
    return entry[1], entry[2]


def _config_entry(
    where: str, pinned: list[str]
) -> tuple[tuple[tuple[str, int, int], ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    with _lock:
        cached = _overrides_cache.get(where)
    if cached is not None and _stat_key([f for f, _, _ in cached[0]]) == cached[0]:
        return cached
    files, keys = _list_config(where, pinned)
    filters: list[str] = []
    others: list[str] = []
    for key in dict.fromkeys(keys):
        for pattern, value in _DRIVER_KEYS:
            if pattern.match(key):
                (filters if _FILTER_KEY.match(key) else others).append(f"--config-env={key}={_VALUE_ENV[value]}")
                break
    work_tree = tuple(f for f, k in zip(files, keys, strict=True) if k == "core.worktree")
    entry = (_stat_key(list(dict.fromkeys(_repo_files(where) + files))), tuple(filters), tuple(others), work_tree)
    with _lock:
        if len(_overrides_cache) > 256:
            _overrides_cache.clear()
        _overrides_cache[where] = entry
    return entry


def _fixed_args() -> list[str]:
    args = ["--no-pager"]
    for key, value in _FIXED:
        args += ["-c", f"{key}={value}"]
    for safe in _user_safe_directories():
        args += ["-c", f"safe.directory={safe}"]
    return args


def _with_command_flags(args: tuple[str, ...]) -> list[str]:
    """args with the no-driver flags inserted right after the subcommand (after any leading -c pairs)."""
    out = list(args)
    i = 0
    while i + 1 < len(out) and out[i] == "-c":
        i += 2
    if i < len(out) and out[i] in _COMMAND_FLAGS:
        out[i + 1 : i + 1] = _COMMAND_FLAGS[out[i]]
    return out


def armour(repo: str | Path, filters: bool = False, pinned: list[str] | None = None) -> list[str]:
    """The options placed before `-C repo` on every git process perfkit starts in repo."""
    filter_args, other_args = driver_overrides(repo, pinned)
    return [*_fixed_args(), *other_args, *(() if filters else filter_args)]


def _proved(repo: str | Path) -> list[str]:
    """For a work tree perfkit made (gitdir_proof): the proof that its git folder is perfkit's, as the
    options that hold git to it; nothing for any other repository. NotPerfkits when the proof fails."""
    owned = gitdir_proof.owner(repo)
    if owned is None:
        return []
    git_dir = gitdir_proof.prove(owned)
    pinned = gitdir_proof.pin(owned, git_dir)
    origin = gitdir_proof.sets_work_tree(owned, git_dir, _config_entry(str(repo), pinned)[3])
    if origin is not None:
        raise gitdir_proof.NotPerfkits(owned.root, f"core.worktree is set in {origin}, sending git to another folder")
    return pinned


def prove_own(root: str | Path) -> None:
    """The proof gitrepo makes before a git command in root, and no command: NotPerfkits when it fails."""
    _proved(root)


class GitFailed(ToolFailure):
    """A git command exited with an error; stderr holds all git said (the message only its last line)."""

    def __init__(self, message: str, stderr: str):
        super().__init__(message)
        self.stderr = stderr


class RefusedGitmodules(InputError):
    """git refuses the repository's `.gitmodules` (a value it will not take, a line it cannot parse), so it
    fails every command that reads it: bad repository data, said as bad input naming the file."""

    def __init__(self, repo: str | Path, stderr: str, refusal: str):
        super().__init__(
            "repo",
            f"git refuses the .gitmodules of '{repo}' ({refusal}) and stops every command that reads it",
            "correct or remove that entry of .gitmodules and commit (git refuses `update = !command` and any "
            "update value other than checkout, rebase, merge or none in a committed .gitmodules)",
        )
        self.stderr = stderr
        self.refusal = refusal


def git(
    repo: str | Path,
    *args: str,
    check: bool = True,
    input: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = 600,
    filters: bool = False,
    errors: str = "replace",
) -> str:
    """Run git in repo and return stdout (decoded leniently: histories hold any bytes).

    filters=True keeps the repository's checkout filters (the bisect's checkouts only).
    errors="surrogateescape" keeps bytes that are not UTF-8 (a latin-1 file name) as they were,
    so a name read from git is handed back to git unchanged; git_paths does that.
    In a work tree perfkit made, its git folder is proved first (gitdir_proof)."""
    return _run(repo, args, _proved(repo), check, input, env, timeout, filters, errors)


def _run(
    repo: str | Path,
    args: tuple[str, ...],
    pinned: list[str],
    check: bool = True,
    input: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = 600,
    filters: bool = False,
    errors: str = "replace",
) -> str:
    cmd = ["git", *armour(repo, filters, pinned), *pinned, "-C", str(repo), *_with_command_flags(args)]
    try:
        proc = subprocess.run(
            cmd,
            input=input.encode("utf-8", "surrogateescape") if input is not None else None,
            stdin=None if input is not None else subprocess.DEVNULL,
            capture_output=True,
            env=git_env(env),
            timeout=timeout,
        )
    except OSError as exc:  # E2BIG: an argument longer than the system takes
        raise ToolFailure(f"git {' '.join(a[:40] for a in args[:3])} could not start: {exc.strerror}") from None
    if check and proc.returncode != 0:
        stderr = proc.stderr.decode("utf-8", "replace")
        err = stderr.strip().splitlines()
        message = f"git {' '.join(args[:3])} failed: {err[-1] if err else 'exit ' + str(proc.returncode)}"
        refused = refused_gitmodules(stderr)
        if refused:
            raise RefusedGitmodules(repo, stderr, refused)
        raise GitFailed(message, stderr)
    return proc.stdout.decode("utf-8", errors)


def refused_gitmodules(stderr: str) -> str | None:
    """git's line refusing a repository's `.gitmodules`, if it said one: a value it will not take
    (`update = !command` committed, an unknown strategy) or a file it cannot parse."""
    for line in stderr.splitlines():
        if ("invalid value for 'submodule." in line) or ("bad config line" in line and ".gitmodules" in line):
            return line.removeprefix("fatal: ").removeprefix("error: ").strip()
    return None


def confirm_own(root: str | Path) -> None:
    """Check a work tree perfkit just made (or meets first in this process): the proof, then git's own
    reading of its `.git` (`rev-parse --git-dir --git-common-dir`, read only, not held to the proof)
    must agree; then its git folder is recorded, and every later proof compares with it."""
    owned = gitdir_proof.owner(root)
    if owned is None or owned.root != os.path.abspath(root):
        raise ToolFailure(f"{root} is not a work tree perfkit registered")
    git_dir = gitdir_proof.prove(owned)
    try:
        seen = _run(root, ("rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"), [])
    except GitFailed as exc:
        raise gitdir_proof.NotPerfkits(owned.root, f"git cannot read its .git ({exc})") from None
    lines = seen.splitlines()
    common = owned.common if owned.kind == "worktree" else git_dir
    if len(lines) != 2 or os.path.realpath(lines[0]) != git_dir or os.path.realpath(lines[1]) != common:
        raise gitdir_proof.NotPerfkits(
            owned.root, f"git reads its git folders as {' and '.join(lines) or 'none'}, not {git_dir} and {common}"
        )
    gitdir_proof.record(owned, git_dir)


def git_paths(repo: str | Path, *args: str, **kwargs: Any) -> str:
    """git() whose output keeps file names byte for byte (see errors= above), for readers that pass them back."""
    return git(repo, *args, errors="surrogateescape", **kwargs)


def displayable(model: M) -> M:
    """model with every file name git gave in bytes that are not UTF-8 written as \\xNN (git's own way).

    Names are kept byte for byte (git_paths) while they go back to git; a result leaves as text."""
    from perfkit.tools.spec import displayable_result

    return displayable_result(model)


def git_ok(repo: str | Path, *args: str) -> bool:
    try:
        git(repo, *args)
        return True
    except (BrokenGitConfig, gitdir_proof.NotPerfkits):
        raise
    except ToolFailure:
        return False


def open_repo(path: str, field: str = "repo") -> Path:
    """Resolve a repository argument to its top-level folder or raise an InputError naming field."""
    if not isinstance(path, str) or not path.strip():
        raise InputError(field, "is empty", "pass the path of a git checkout")
    limits.check_argument(path, field, limits.MAX_PATH_CHARS)
    p = Path(path).expanduser()
    if not p.exists():
        raise InputError(field, f"'{path}' does not exist", "pass the path of a git checkout")
    if not p.is_dir():
        raise InputError(field, f"'{path}' is not a folder", "pass the path of a git checkout")
    resolved = p.resolve()
    if not config_includes.is_top_level(resolved):
        if (resolved / "HEAD").is_file() and (resolved / "objects").is_dir() and (resolved / "refs").is_dir():
            raise InputError(field, f"'{path}' is a bare repository", "pass a checkout with a working tree")
        raise InputError(field, f"'{path}' is not a git repository", "pass the top folder of a git checkout")
    check_config(resolved, field)
    # git, not an in-process reader, says whether this is a checkout; the ceiling keeps it from
    # answering for a repository above the folder given
    try:
        top = git(resolved, "rev-parse", "--show-toplevel", env={"GIT_CEILING_DIRECTORIES": str(resolved.parent)})
    except ToolFailure:
        raise InputError(field, f"'{path}' is not a git repository", "pass the top folder of a git checkout") from None
    if not top.strip() or Path(top.strip()).resolve() != resolved:
        raise InputError(field, f"'{path}' is not a git repository", "pass the top folder of a git checkout")
    return resolved


def check_config(repo: Path, field: str) -> None:
    """Refuse a repository whose config git cannot parse, naming the bad line, before any other answer."""
    try:
        driver_overrides(repo)
    except UnsafeGitConfig as exc:
        raise InputError(
            field,
            f"'{repo}' cannot be read safely: {exc}. git would block on it or read it without end; "
            f"perfkit lets git read only regular files (config files of at most "
            f"{config_includes.MAX_CONFIG_BYTES:,} bytes)",
            "remove that file, or the include.path / includeIf path in .git/config that names it",
        ) from None
    except BrokenGitConfig as exc:
        raise InputError(
            field, f"'{repo}' has a broken {exc}", "repair .git/config (`git config --list` shows the bad line)"
        ) from None


def resolve_commit(repo: Path, rev: str, field: str) -> str:
    """Full sha of a commit-ish, refusing option-like or malformed revisions."""
    if not isinstance(rev, str) or not rev.strip():
        raise InputError(field, "is empty", "pass a commit sha, tag or branch name")
    limits.check_argument(rev, field, limits.MAX_REVISION_CHARS)
    rev = rev.strip()
    if rev.startswith("-") or not _REV_RE.match(rev) or ".." in rev:
        raise InputError(field, f"'{rev[:80]}' is not a single revision", "pass a commit sha, tag or branch name")
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}").strip()
    except BrokenGitConfig as exc:
        raise InputError(field, f"cannot be looked up: {repo.name} has a broken {exc}", "repair .git/config") from None
    except ToolFailure:
        raise InputError(
            field,
            f"'{rev}' is not a commit in {repo.name}",
            "check the sha with `git log`, or fetch the missing history",
        ) from None


def is_ancestor(repo: Path, older: str, newer: str) -> bool:
    return git_ok(repo, "merge-base", "--is-ancestor", older, newer)


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


_INFO_FORMAT = _SEP.join(["%H", "%s", "%an", "%ae", "%aI", "%P", "%B"])


def _info(record: str) -> CommitInfo:
    h, subject, an, ae, date, parents, body = record.split(_SEP, 6)
    return CommitInfo(h, subject, body.strip(), an, ae, date, tuple(parents.split()))


def commit_info(repo: Path, sha: str) -> CommitInfo:
    return _info(git(repo, "show", "-s", f"--format={_INFO_FORMAT}", "--end-of-options", sha))


def commit_infos(repo: Path, shas: list[str]) -> list[CommitInfo]:
    """commit_info of each of shas (full commit ids), in order, from one git process instead of one each."""
    if not shas:
        return []
    given = "\n".join(shas) + "\n"
    out = git(repo, "log", "--no-walk=unsorted", "-z", f"--format={_INFO_FORMAT}", "--stdin", input=given)
    records = out.removesuffix("\0").split("\0")
    infos = [_info(record) for record in records] if len(records) == len(shas) else []
    if [i.sha for i in infos] != shas:  # a message holding a NUL byte, or a repeated sha: one at a time
        return [commit_info(repo, sha) for sha in shas]
    return infos


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
    """path -> name of submodules declared in .gitmodules at commit (empty when none, or when that commit's
    .gitmodules cannot be parsed: history cannot be fixed, and the working tree's file is checked anyway)."""
    try:
        out = git(repo, "config", "--blob", f"{commit}:.gitmodules", "--get-regexp", r"^submodule\..*\.path$")
    except (ToolFailure, RefusedGitmodules):
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
