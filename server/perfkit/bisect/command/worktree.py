"""The private checkout a bisect tests in, so the user's own checkout is never touched.

The superproject is a detached `git worktree` under the repository's git directory. Its
submodule is not initialised the usual way (that would write the user's .git/config and need the
network): it is a separate `git clone --shared` of the user's local submodule object store, made
offline, read-only towards the user. Every git call here runs with hooks switched off
(core.hooksPath=/dev/null) and submodule recursion off, so checking out an old commit runs none of
the repository's code; the only code that runs is the user's install and run commands.

Those commands run in here with the user's rights and may rewrite the worktree's `.git` file, the
clone's `.git`, or set core.worktree. Both work trees are registered with gitdir_proof, so every git
command gitrepo runs in them first proves that their git folder is the one perfkit made. When it is
not, perfkit runs no git command there: it removes the worktree, makes it again, and reports what it
saw (`rebuilt`, taken into the step's record by the tester).

A commit that cannot be checked out for what it holds (a file whose checkout filter, Git LFS's for
one, is missing; a .gitmodules git refuses) is Unavailable: that point is a skip with git's reason.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

from perfkit.bisect.command import sparse
from perfkit.bisect.state import confine
from perfkit.bisect.state import store as statefile
from perfkit.guards import private_dirs
from perfkit.repo import config_includes, gitdir_proof, gitrepo

_NO_RECURSE = ("-c", "submodule.recurse=false")
# `git worktree add` and `remove` read every worktree's admin folder under .git/worktrees; one that
# another device's thread is writing at that moment fails them ("failed to read .../commondir").
_ADMIN = threading.Lock()


class Unavailable(Exception):
    """A point cannot be checked out (a submodule commit is missing locally): the step is a skip."""


def _git(repo: Path, *args: str) -> str:
    return gitrepo.git(repo, *_NO_RECURSE, *args, filters=True)  # a build needs its checkout filters (LFS)


def _checkout(where: Path, commit: str, what: str, sparse_flags: tuple[str, ...] = ()) -> None:
    """`git checkout --force --detach commit` in one of perfkit's work trees; Unavailable when git
    refuses the commit for what it holds (a checkout filter that fails or is missing, a .gitmodules
    git will not take), with git's own words; any other failure stops the bisect as before."""
    try:
        # a worktree's first checkout writes every file: one writer per core (git uses them only past
        # 100 files to update, so a step's checkout of a few files stays as it was)
        _git(where, *sparse_flags, "-c", "checkout.workers=0", "checkout", "--force", "--detach", "--quiet", commit)
    except gitrepo.RefusedGitmodules as exc:
        raise Unavailable(
            f"{what} {commit[:12]} cannot be checked out: git refuses its .gitmodules ({exc.refusal})"
        ) from None
    except gitrepo.GitFailed as exc:
        line = _filter_line(exc.stderr)
        if line is None:
            raise
        raise Unavailable(
            f"{what} {commit[:12]} cannot be checked out: a checkout filter failed ({line}); install the filter "
            "(git lfs install, for Git LFS) to test this point"
        ) from None


def _filter_line(stderr: str) -> str | None:
    """The line of git's error that names a checkout filter, if one does."""
    for line in stderr.splitlines():
        if "filter" in line.lower():
            return line.removeprefix("error: ").removeprefix("fatal: ").strip()[:300]
    return None


def _common_dir(repo: Path) -> Path:
    """The user's common git folder, read from `.git` without git (a linked worktree's names it); a bare
    repository (a Ray worker's clone) is its own git folder."""
    dirs = config_includes.git_dirs(str(repo))
    if dirs is not None:
        return Path(dirs[1])
    if not (repo / ".git").exists() and (repo / "HEAD").is_file() and (repo / "objects").is_dir():
        return repo
    return repo / ".git"


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
    """A worktree of `repo` at `path`, with the submodule at `sub_path` cloned from `sub_source`; with
    `paths`, only those folders of the superproject and its top-level files (sparse.py)."""

    def __init__(
        self,
        repo: Path,
        path: Path,
        parking: Path,
        sub_path: str | None,
        sub_source: Path | None,
        paths: list[str] | None = None,
    ):
        self.repo = repo
        self.paths = paths
        self.path = path
        self.parking = parking
        self.sub_path = sub_path
        self.sub_source = sub_source
        self._ready = False  # proved (or created) by this process
        self.created: set[str] = set()  # "superproject", "submodule": made fresh, so nothing built in them
        self.rebuilt: list[str] = []  # what perfkit saw and did when a work tree was not its own (the tester takes it)
        gitdir_proof.register(path, "worktree", _common_dir(repo))
        if self.sub_dir is not None:
            gitdir_proof.register(self.sub_dir, "clone")

    @property
    def sub_dir(self) -> Path | None:
        """The submodule folder inside the worktree; None for none, or for a path that would lead out of it."""
        if not self.sub_path:
            return None
        sub = self.path / self.sub_path
        return sub if sub != self.path and confine.within(self.path, sub.parent) else None

    def _not_ours(self, confirm: bool) -> str | None:
        """What is wrong with the worktree or its clone, None when both are perfkit's (their git folders
        proved; with confirm, git's own reading checked and recorded as well). "" when there is none."""
        if not os.path.lexists(self.path):
            return ""
        if self.path.is_symlink() or self.path.parent.is_symlink():  # planted: never check out through it
            return f"perfkit's worktree {self.path} is reached through a link"
        sub = self.sub_dir
        roots = [self.path] + ([sub] if sub is not None and os.path.lexists(sub / ".git") else [])
        try:
            for root in roots:
                if confirm:
                    gitrepo.confirm_own(root)
                else:
                    gitrepo.prove_own(root)
        except gitdir_proof.NotPerfkits as exc:
            return str(exc)
        return None

    def ensure(self, commit: str) -> None:
        """Create the worktree, or replace one that is not perfkit's any more (a crash left it broken, or a
        command rewrote its `.git`); a replaced one is reported in `rebuilt`."""
        seen = self._not_ours(confirm=not self._ready)
        if seen is None:
            self._ready = True
            return
        if seen:
            self._report(seen)
        self._create(commit)

    def _report(self, seen: str) -> None:
        self.rebuilt.append(f"{seen}. perfkit ran no git command there: it removed its worktree and made it again")

    def _create(self, commit: str) -> None:
        self.remove()
        private_dirs.make_dir(self.path.parent)  # 0700: the checkout under test is the user's to read, nobody else's
        with _ADMIN:  # no checkout yet: a missing checkout filter is the point's skip, not the bisect's end
            args = ("worktree", "add", "--force", "--detach", "--no-checkout", "--quiet", str(self.path), commit)
            _git(self.repo, *args)
        gitrepo.confirm_own(self.path)
        self.created |= {"superproject", "submodule"}
        self._ready = True

    def sync(self, superproject: str, submodule: str | None) -> None:
        """Put the worktree at superproject and its submodule at submodule (None: no submodule there)."""
        try:
            self._sync(superproject, submodule)
        except gitdir_proof.NotPerfkits as exc:  # changed between the proof in ensure and now
            self._report(str(exc))
            self._create(superproject)
            self._sync(superproject, submodule)

    def _sync(self, superproject: str, submodule: str | None) -> None:
        sub = self.sub_dir
        if sub is not None and submodule is None and (sub / ".git").exists():
            self._park(sub)
        _checkout(self.path, superproject, "commit", self._sparse())
        if sub is None or submodule is None:
            return
        if not (sub / ".git").exists():
            if self.parking.exists():
                self._unpark(sub)
                gitrepo.confirm_own(sub)  # parked by this process or an earlier one: checked before its first use
            else:
                self._clone(sub)
        try:  # --force also undoes edits a build made to tracked files at the same commit
            _checkout(sub, submodule, f"submodule '{self.sub_path}' commit")
        except gitrepo.GitFailed:
            if gitrepo.git_ok(sub, "cat-file", "-e", f"{submodule}^{{commit}}"):
                raise
            raise Unavailable(
                f"submodule commit {submodule[:12]} is not in your local clone of '{self.sub_path}'; "
                f"fetch it there (git -C {self.sub_path} fetch origin) and test again"
            ) from None

    def _sparse(self) -> tuple[str, ...]:
        """The flags of the superproject's checkout; with paths, their patterns written first into the
        worktree's own admin folder (the one just proved), every time, so a command that removed or
        rewrote them changes nothing."""
        if self.paths is not None:
            owned = gitdir_proof.owner(self.path)
            assert owned is not None  # registered in __init__
            info = Path(gitdir_proof.prove(owned)) / "info"
            if info.is_symlink():  # planted: never written through
                raise gitdir_proof.NotPerfkits(str(self.path), f"{info} is a link")
            info.mkdir(exist_ok=True)
            # a link planted in place of the file is replaced, never followed
            statefile.write_atomic(info / "sparse-checkout", sparse.patterns(self.paths), durable=False)
        return sparse.git_flags(self.paths)

    def _clone(self, sub: Path) -> None:
        if self.sub_source is None:
            raise Unavailable(
                f"submodule '{self.sub_path}' has no local object store in your checkout; "
                f"run `git submodule update --init {self.sub_path}` once"
            )
        confine.remove(self.path, sub)
        sub.parent.mkdir(parents=True, exist_ok=True)
        gitdir_proof.forget(sub)
        # run from the user's checkout, read only: inside perfkit's worktree git would be held to its git folder
        gitrepo.git(self.repo, "clone", "--quiet", "--shared", "--no-checkout", "--", str(self.sub_source), str(sub))
        gitrepo.confirm_own(sub)
        self.created.add("submodule")

    def _park(self, sub: Path) -> None:
        confine.remove(self.parking.parent, self.parking)
        private_dirs.make_dir(self.parking.parent)
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
                # git removes only a worktree proved perfkit's; any other is deleted as files, no git run in it
                if self._not_ours(confirm=False) is not None or not gitrepo.git_ok(
                    self.repo, "worktree", "remove", "--force", "--force", str(self.path)
                ):
                    confine.remove_quietly(home, self.path)
            self._forget()
            gitdir_proof.forget(self.path)
            if self.sub_dir is not None:
                gitdir_proof.forget(self.sub_dir)
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
