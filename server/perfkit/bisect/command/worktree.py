"""The private checkout a bisect tests in, so the user's own checkout is never touched.

The superproject is a detached `git worktree` under the repository's git directory. Its
submodule is not initialised the usual way (that would write the user's .git/config and need the
network): it is a separate `git clone --shared` of the user's local submodule object store, made
offline, read-only towards the user. Every git call here runs with hooks switched off
(core.hooksPath=/dev/null) and submodule recursion off, so checking out an old commit runs none of
the repository's code; the only code that runs is the user's install and run commands.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

from perfkit.bisect.state import confine
from perfkit.errors import ToolFailure
from perfkit.repo import gitrepo

_NO_RECURSE = ("-c", "submodule.recurse=false")
# `git worktree add` and `remove` read every worktree's admin folder under .git/worktrees; one that
# another device's thread is writing at that moment fails them ("failed to read .../commondir").
_ADMIN = threading.Lock()


class Unavailable(Exception):
    """A point cannot be checked out (a submodule commit is missing locally): the step is a skip."""


def _git(repo: Path, *args: str) -> str:
    return gitrepo.git(repo, *_NO_RECURSE, *args, filters=True)  # a build needs its checkout filters (LFS)


def source_git_dir(repo: Path, path: str, name: str | None) -> Path | None:
    """The user's local object store of submodule `path`: its checkout's git dir or .git/modules/<name>."""
    found = gitrepo.submodule_git_dir(repo, path)
    if found is not None:
        return found
    common = Path(gitrepo.git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    modules = (common / "modules").resolve()
    for candidate in filter(None, [name, path]):
        p = common / "modules" / candidate
        if not p.resolve().is_relative_to(modules):  # a name with ../ in .gitmodules: never outside
            continue
        if (p / "HEAD").is_file() and (p / "objects").is_dir():
            return p
    return None


class Checkout:
    """A worktree of `repo` at `path`, with the submodule at `sub_path` cloned from `sub_source`."""

    def __init__(self, repo: Path, path: Path, parking: Path, sub_path: str | None, sub_source: Path | None):
        self.repo = repo
        self.path = path
        self.parking = parking
        self.sub_path = sub_path
        self.sub_source = sub_source
        self._ready = False  # checked healthy (or created) by this process
        self.created: set[str] = set()  # "superproject", "submodule": made fresh, so nothing built in them

    @property
    def sub_dir(self) -> Path | None:
        """The submodule folder inside the worktree; None for none, or for a path that would lead out of it."""
        if not self.sub_path:
            return None
        sub = self.path / self.sub_path
        return sub if sub != self.path and confine.within(self.path, sub.parent) else None

    def healthy(self) -> bool:
        if self.path.is_symlink() or self.path.parent.is_symlink():  # planted: never check out through it
            return False
        if not (self.path / ".git").is_file():
            return False
        try:
            top = gitrepo.git(self.path, "rev-parse", "--show-toplevel").strip()
        except ToolFailure:
            return False
        return Path(top).resolve() == self.path.resolve()

    def ensure(self, commit: str) -> None:
        """Create the worktree (or replace a broken one left by a crash)."""
        if self._ready and (self.path / ".git").is_file():
            return
        if not self.healthy():
            self.remove()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with _ADMIN:
                _git(self.repo, "worktree", "add", "--force", "--detach", "--quiet", str(self.path), commit)
            self.created |= {"superproject", "submodule"}
        self._ready = True

    def sync(self, superproject: str, submodule: str | None) -> None:
        """Put the worktree at superproject and its submodule at submodule (None: no submodule there)."""
        sub = self.sub_dir
        if sub is not None and submodule is None and (sub / ".git").exists():
            self._park(sub)
        _git(self.path, "checkout", "--force", "--detach", "--quiet", superproject)
        if sub is None or submodule is None:
            return
        if not (sub / ".git").exists():
            if self.parking.exists():
                self._unpark(sub)
            else:
                self._clone(sub)
        try:  # --force also undoes edits a build made to tracked files at the same commit
            _git(sub, "checkout", "--force", "--detach", "--quiet", submodule)
        except ToolFailure:
            if gitrepo.git_ok(sub, "cat-file", "-e", f"{submodule}^{{commit}}"):
                raise
            raise Unavailable(
                f"submodule commit {submodule[:12]} is not in your local clone of '{self.sub_path}'; "
                f"fetch it there (git -C {self.sub_path} fetch origin) and test again"
            ) from None

    def _clone(self, sub: Path) -> None:
        if self.sub_source is None:
            raise Unavailable(
                f"submodule '{self.sub_path}' has no local object store in your checkout; "
                f"run `git submodule update --init {self.sub_path}` once"
            )
        confine.remove(self.path, sub)
        sub.parent.mkdir(parents=True, exist_ok=True)
        gitrepo.git(self.path, "clone", "--quiet", "--shared", "--no-checkout", "--", str(self.sub_source), str(sub))
        self.created.add("submodule")

    def _park(self, sub: Path) -> None:
        confine.remove(self.parking.parent, self.parking)
        self.parking.parent.mkdir(parents=True, exist_ok=True)
        if not confine.within(self.path, sub) or sub.is_symlink():
            raise confine.NotOurs(f"refusing to move {sub}: it is not inside the worktree {self.path}")
        os.replace(sub, self.parking)

    def _unpark(self, sub: Path) -> None:
        if os.path.lexists(sub):
            if sub.is_dir() and not sub.is_symlink() and not any(sub.iterdir()):
                sub.rmdir()
            else:
                confine.remove(self.path, sub)
        if self.parking.is_symlink():
            raise confine.NotOurs(f"refusing to move {self.parking}: it is a link")
        os.replace(self.parking, sub)

    def remove(self) -> None:
        """Remove the worktree, its submodule clone and git's record of it, whatever state they are in."""
        self._ready = False
        home = self.path.parent  # perfkit's folder for this checkout: nothing outside it is deleted
        for folder in {home, self.parking.parent}:
            if folder.is_symlink():  # a link planted in perfkit's folder goes as a link, never followed
                folder.unlink()
        for leftover, root in ((self.sub_dir, self.path), (self.parking, self.parking.parent)):
            if leftover is not None and leftover.exists() and (leftover / ".git").exists():
                confine.remove_quietly(root, leftover)
        with _ADMIN:
            if self.path.is_symlink():
                confine.remove_quietly(home, self.path)
            elif self.path.exists():
                if not gitrepo.git_ok(self.repo, "worktree", "remove", "--force", "--force", str(self.path)):
                    confine.remove_quietly(home, self.path)
            self._forget()
        confine.remove_quietly(self.parking.parent, self.parking)
        try:
            self.path.parent.rmdir()  # only when empty
        except OSError:
            pass

    def forget(self) -> None:
        """Drop git's record of our worktree, running no git command that touches it."""
        with _ADMIN:
            self._forget()

    def _forget(self) -> None:
        """Drop git's admin entry for our worktree path only (never `git worktree prune` the user's)."""
        common = Path(gitrepo.git(self.repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
        admin = common / "worktrees"
        if not admin.is_dir():
            return
        ours = str(self.path / ".git")
        # also our entries from before the repository was moved: same layout, target gone
        moved = f"/{self.path.parent.parent.name}/{self.path.parent.name}/{self.path.name}/.git"
        for entry in admin.iterdir():
            try:
                target = (entry / "gitdir").read_text().strip()
            except OSError:
                continue
            if target == ours or (target.endswith(moved) and not Path(target).exists()):
                shutil.rmtree(entry, ignore_errors=True)
