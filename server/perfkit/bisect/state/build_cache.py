"""The build cache: what an install wrote, kept per commit, put back when the search returns there.

An install of one side (the superproject, or the submodule) at one commit writes files in two
places perfkit owns: the device worker's environment and the side's checkout (build outputs are
files git does not track). The cache records which files the install created or changed (a
before/after listing of both places), keeps a copy of them, and on a later point that needs the
same side at the same commit with the same install commands, takes the files the side's current
install created away and puts the kept ones back: no install runs. Entries are per device worker
(an environment holds absolute paths of its own worktree) and per fingerprint of the install
commands; the oldest go first when the cache passes `cache_limit_mb`. The cache lives in the
bisect's folder and goes with the workers at the end. Each entry's index is sealed (seal.py) with
the digest of its archive, so a planted or edited entry is never put back.

What it cannot see: files an install writes outside the worker's environment and checkout. An
install that writes elsewhere should run with `cache_builds` off.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tarfile
import threading
from pathlib import Path

from perfkit.bisect.state import confine, seal
from perfkit.bisect.state.store import read_private, write_atomic
from perfkit.errors import ToolFailure
from perfkit.guards import private_dirs
from perfkit.repo import gitrepo

Listing = dict[str, tuple[int, int]]  # relative path -> (size, mtime_ns)


def _walk(root: Path, prefix: str) -> Listing:
    out: Listing = {}
    if not root.is_dir():
        return out
    for base, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            p = Path(base) / name
            try:
                st = p.lstat()
            except OSError:
                continue
            out[f"{prefix}/{p.relative_to(root)}"] = (st.st_size, st.st_mtime_ns)
    return out


def _untracked(checkout: Path, exclude: str | None) -> Listing:
    """Files git does not track in checkout (ignored ones included): what a build leaves there."""
    try:
        names = gitrepo.git(checkout, "ls-files", "-z", "--others", "--directory", "--no-empty-directory").split("\0")
    except Exception:  # a checkout git cannot read has nothing we could restore into
        return {}
    out: Listing = {}
    for name in filter(None, names):
        if exclude and (name == exclude or name.startswith(exclude.rstrip("/") + "/")):
            continue
        p = checkout / name
        if p.is_dir():
            out |= {f"side/{name.rstrip('/')}/{k.split('/', 1)[1]}": v for k, v in _walk(p, "x").items()}
        elif p.exists():
            st = p.lstat()
            out[f"side/{name}"] = (st.st_size, st.st_mtime_ns)
    return out


class BuildCache:
    def __init__(self, folder: Path, limit_mb: float):
        self.folder = folder
        self.limit = int(limit_mb * 1024 * 1024)
        self._lock = threading.Lock()

    @staticmethod
    def key(slot: int, side: str, commit: str, commands: list[str]) -> str:
        h = hashlib.sha256(json.dumps([side, commit, commands]).encode()).hexdigest()[:20]
        return f"slot-{slot}-{side}-{h}"

    def listing(self, env: Path, side_dir: Path, exclude: str | None) -> Listing:
        return _walk(env, "env") | _untracked(side_dir, exclude)

    def has(self, key: str) -> bool:
        return (self.folder / f"{key}.tar").is_file() and (self.folder / f"{key}.json").is_file()

    def store(self, key: str, before: Listing, after: Listing, env: Path, side_dir: Path) -> None:
        """Keep the files the install created or changed (best effort: a failure only costs a reinstall)."""
        written = sorted(k for k, v in after.items() if before.get(k) != v)
        try:
            private_dirs.make_dir(self.folder)
            tmp = self.folder / f".{key}.tar.tmp"
            with tarfile.open(tmp, "w") as tar:
                for rel in written:
                    tar.add(_real(rel, env, side_dir), arcname=rel, recursive=False)
            os.chmod(tmp, private_dirs.FILE_MODE)
            os.replace(tmp, self.folder / f"{key}.tar")
            digest = _digest(self.folder / f"{key}.tar")
            index = {"written": written, "tar": digest, "seal": seal.mac(json.dumps([key, written, digest]))}
            write_atomic(self.folder / f"{key}.json", json.dumps(index), durable=False)
        except (OSError, ToolFailure):
            self.drop(key)
            return
        self._evict()

    def _index(self, key: str) -> tuple[list[str], str] | None:
        """(files, archive digest) of an entry this user's perfkit stored (seal.py); None for any other."""
        try:
            data = json.loads(read_private(self.folder / f"{key}.json", 64 * 1024 * 1024) or "{}")
            written, digest = [str(x) for x in data["written"]], str(data["tar"])
            if seal.valid(json.dumps([key, written, digest]), str(data["seal"])):
                return written, digest
        except (OSError, ValueError, KeyError, TypeError, ToolFailure):
            pass
        return None

    def written(self, key: str) -> list[str]:
        index = self._index(key)
        return index[0] if index else []

    def restore(self, key: str, current: str | None, env: Path, side_dir: Path) -> bool:
        """Take away what the side's current install (cache key `current`) wrote, put `key`'s files back.

        Only an entry sealed by this user's perfkit whose archive is the one it stored is put back: a
        planted or edited one would put files into an environment the next run executes."""
        index = self._index(key)
        try:
            if index is None or _digest(self.folder / f"{key}.tar") != index[1]:
                return False
        except (OSError, ToolFailure):
            return False
        new = set(index[0])
        try:
            for rel in self.written(current) if current else []:
                if rel not in new:
                    _real(rel, env, side_dir).unlink(missing_ok=True)
            with tarfile.open(self.folder / f"{key}.tar") as tar:
                for member in tar.getmembers():
                    _put(tar, member, _real(member.name, env, side_dir))
            os.utime(self.folder / f"{key}.tar")  # recently used: evicted last
            return True
        except (OSError, tarfile.TarError):
            return False

    def drop(self, key: str) -> None:
        for ext in ("tar", "json"):
            (self.folder / f"{key}.{ext}").unlink(missing_ok=True)

    def _evict(self) -> None:
        with self._lock:
            tars = sorted(self.folder.glob("*.tar"), key=lambda p: p.stat().st_mtime_ns)
            total = sum(p.stat().st_size for p in tars)
            for p in tars:
                if total <= self.limit:
                    break
                total -= p.stat().st_size
                self.drop(p.stem)

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _digest(path: Path) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        h = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            h.update(chunk)
        return h.hexdigest()
    finally:
        os.close(fd)


def _real(rel: str, env: Path, side_dir: Path) -> Path:
    """Where a cached file belongs; refused (OSError: the install runs instead) when the name leads out
    of the worker's environment or checkout, as a planted cache index or archive would."""
    root, _, rest = rel.partition("/")
    base = env if root == "env" else side_dir
    target = base / rest
    if not rest or os.path.isabs(rest) or ".." in rest.split("/") or not confine.within(base, target.parent):
        raise OSError(f"the build cache names {rel!r}, outside the folder it belongs to")
    return target


def _put(tar: tarfile.TarFile, member: tarfile.TarInfo, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or target.is_file():
        target.unlink()
    if member.issym():
        os.symlink(member.linkname, target)
    elif member.isfile():
        src = tar.extractfile(member)
        if src is None:
            raise OSError(f"cannot read {member.name} from the build cache")
        target.write_bytes(src.read())
        os.chmod(target, member.mode & 0o777)
        os.utime(target, (member.mtime, member.mtime))
