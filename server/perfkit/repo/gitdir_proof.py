"""perfkit's own git folders, proven before every git command perfkit runs in them.

The bisect tests in a worktree perfkit made: a linked `git worktree`, whose `.git` is a one-line
file naming its admin folder under the user's `.git/worktrees/`, and the submodule as a clone of
perfkit's own, whose `.git` is a real folder. The user's install and run commands run in there with
the user's rights. A command that rewrites that one line (a build that re-initialises git, a script
that copies a checkout's `.git`, an install step that writes its own gitfile) would point perfkit's
next `git checkout --force` at a git folder of the user's: their branch detached, their index
rewritten. So a work tree perfkit makes is registered here, and gitrepo.git, the one door every git
process of perfkit goes through, proves it before each command run inside it. The proof is a stat
and a few small reads, no git process:

- the work tree is reached by the path perfkit registered, not through a link;
- the worktree's `.git` is a regular file naming a folder directly under the user's
  `<common>/worktrees/`, whose `gitdir` file names this very `.git` and whose `commondir` leads back
  to the user's common git folder (git's own record of the worktree it made for perfkit); the
  clone's `.git` is a real folder, neither a link nor a gitfile, with no `commondir` of its own;
- it is the same folder (device and inode) perfkit recorded when it made it, or first checked it
  in this process with `git rev-parse --git-dir --git-common-dir` (git's own reading of the gitfile);
- no config file inside that git folder sets `core.worktree` (gitrepo reads this from the config
  listing it already keeps, so it costs no process either).

The command then runs with `--git-dir` and `--work-tree` set to what was proved, so a `.git`
rewritten a moment later, `core.worktree` or GIT_DIR/GIT_WORK_TREE (gitrepo drops those from the
environment anyway) cannot send it elsewhere. A failed proof raises NotPerfkits, saying what perfkit
saw; the checkout (bisect/command/worktree.py) then removes the work tree without running git in
it, makes it again and reports the step.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from perfkit.errors import ToolFailure
from perfkit.repo import config_includes

Kind = Literal["worktree", "clone"]
_MAX_GITFILE = 4096


class NotPerfkits(ToolFailure):
    """A work tree perfkit made no longer leads to the git folder perfkit made for it."""

    def __init__(self, root: str, saw: str):
        self.root = root
        self.saw = saw
        super().__init__(f"perfkit's work tree {root}: {saw}")


@dataclass
class Owned:
    root: str  # the work tree, as registered (absolute, links not resolved)
    kind: Kind
    common: str | None  # the user's common git folder, resolved (kind "worktree")
    real_root: str = ""  # root with every link resolved, when registered
    identity: tuple[int, int] | None = None  # (device, inode) of the git folder once made or checked
    git_dir: str | None = None  # that git folder, resolved


_lock = threading.Lock()
_owned: dict[str, Owned] = {}


def register(root: Path | str, kind: Kind, common: Path | str | None = None) -> None:
    """From now on every git command gitrepo runs in root (or below it) is proved first."""
    where = os.path.abspath(root)
    real_common = os.path.realpath(common) if common is not None else None
    with _lock:
        old = _owned.get(where)
        if old is not None and old.kind == kind and old.common == real_common:
            return  # the same work tree again (a new object for it): keep what was recorded
        _owned[where] = Owned(where, kind, real_common, real_root=_real(where))


def owner(path: Path | str) -> Owned | None:
    """The registered work tree that holds path (the deepest one: the clone inside the worktree)."""
    where = os.path.abspath(path)
    found = None
    with _lock:
        for root, o in _owned.items():
            if (where == root or where.startswith(root + os.sep)) and (found is None or len(root) > len(found.root)):
                found = o
    return found


def _real(path: str) -> str:
    """path with every link resolved; the folder holding it is resolved even when path does not exist."""
    parent, name = os.path.split(path)
    return os.path.join(os.path.realpath(parent), name)


def prove(o: Owned) -> str:
    """The git folder o's `.git` leads to, when it is the one perfkit made; NotPerfkits otherwise."""
    real = os.path.realpath(o.root)
    if real != o.real_root:
        raise NotPerfkits(o.root, f"it now leads to {real} through a link")
    dot = os.path.join(real, ".git")
    try:
        info = os.lstat(dot)
    except FileNotFoundError:
        raise NotPerfkits(o.root, "its .git is gone") from None
    except OSError as exc:
        raise NotPerfkits(o.root, f"its .git cannot be read ({exc.strerror})") from None
    git_dir = _worktree_git_dir(o, dot, info) if o.kind == "worktree" else _clone_git_dir(o, dot, info)
    if o.identity is not None:
        try:
            now = os.stat(git_dir)
        except OSError:
            raise NotPerfkits(o.root, f"its git folder {git_dir} is gone") from None
        if (now.st_dev, now.st_ino) != o.identity:
            raise NotPerfkits(
                o.root, f"its .git leads to {git_dir}, a different folder from the one perfkit made ({o.git_dir})"
            )
    return git_dir


def _worktree_git_dir(o: Owned, dot: str, info: os.stat_result) -> str:
    if stat.S_ISLNK(info.st_mode):
        raise NotPerfkits(o.root, f"its .git is a link to {os.readlink(dot)}, not the file perfkit's worktree has")
    if not stat.S_ISREG(info.st_mode):
        raise NotPerfkits(o.root, "its .git is a folder, not the file naming the git folder perfkit made for it")
    target = _gitfile_target(o, dot)
    git_dir = os.path.realpath(os.path.join(os.path.dirname(dot), target))
    admin = os.path.join(o.common or "", "worktrees")
    named = f"its .git file names {target}"
    if os.path.dirname(git_dir) != admin:
        raise NotPerfkits(o.root, f"{named}, not the git folder perfkit made for it (a folder under {admin})")
    back = _small(os.path.join(git_dir, "gitdir"))
    if back is None or os.path.realpath(os.path.join(git_dir, back)) != dot:
        raise NotPerfkits(o.root, f"{named}, the git folder of another worktree (it belongs to {back or 'none'})")
    common = _small(os.path.join(git_dir, "commondir"))
    if common is None or os.path.realpath(os.path.join(git_dir, common)) != o.common:
        raise NotPerfkits(o.root, f"{named}, whose commondir does not lead to your repository's {o.common}")
    return git_dir


def _clone_git_dir(o: Owned, dot: str, info: os.stat_result) -> str:
    if stat.S_ISLNK(info.st_mode):
        raise NotPerfkits(o.root, f"its .git is a link to {os.readlink(dot)}, not the folder perfkit's clone has")
    if stat.S_ISREG(info.st_mode):
        try:
            named = f" naming {_gitfile_target(o, dot)}"
        except NotPerfkits:
            named = ""
        raise NotPerfkits(o.root, f"its .git is a file{named}, not the folder perfkit's clone has")
    if not stat.S_ISDIR(info.st_mode):
        raise NotPerfkits(o.root, "its .git is not a folder")
    if os.path.lexists(os.path.join(dot, "commondir")):
        common = _small(os.path.join(dot, "commondir"))
        raise NotPerfkits(o.root, f"its .git has a commondir ({common}) leading to another git folder")
    return dot


def _gitfile_target(o: Owned, dot: str) -> str:
    try:
        text = config_includes.read_regular(dot, _MAX_GITFILE)
    except config_includes.UnsafeInclude as exc:
        raise NotPerfkits(o.root, f"its .git cannot be read ({exc})") from None
    if text is None or not text.startswith(b"gitdir:"):
        raise NotPerfkits(o.root, "its .git file does not name a git folder (no 'gitdir:' line)")
    return os.fsdecode(text[len(b"gitdir:") :].strip())


def _small(path: str) -> str | None:
    """The text of one of git's one-line admin files, None when it is missing or not a small regular file."""
    try:
        text = config_includes.read_regular(path, _MAX_GITFILE)
    except config_includes.UnsafeInclude:
        return None
    return os.fsdecode(text.strip()) if text is not None else None


def pin(o: Owned, git_dir: str) -> list[str]:
    """The options that hold a git command to the proved git folder and work tree."""
    return [f"--git-dir={git_dir}", f"--work-tree={o.real_root}"]


def record(o: Owned, git_dir: str) -> None:
    """Remember which folder (device and inode) git_dir is: what every later proof compares with."""
    info = os.stat(git_dir)
    with _lock:
        o.identity = (info.st_dev, info.st_ino)
        o.git_dir = git_dir


def forget(root: Path | str) -> None:
    """The work tree is gone: a new one at root is recorded afresh (the registration stays)."""
    o = owner(root)
    if o is not None and o.root == os.path.abspath(root):
        with _lock:
            o.identity = None
            o.git_dir = None
            o.real_root = _real(o.root)


def sets_work_tree(o: Owned, git_dir: str, origins: tuple[str, ...]) -> str | None:
    """The config file inside perfkit's git folder that sets core.worktree, if one does (a clone's own
    config is perfkit's too, so any origin counts there)."""
    inside = git_dir + os.sep
    for origin in origins:
        if o.kind == "clone" or os.path.realpath(origin).startswith(inside):
            return origin
    return None
