"""The target repository's templates, issue forms and CONTRIBUTING, read from git objects at one commit.

A repository perfkit did not write may commit a template as a symlink to /proc/self/environ or to a
file outside itself; the working tree would follow it. Read as a git object, a symlink is only the
name of its target, so it is refused and reported ("skipped: X is a symlink"), never followed. Only
plumbing runs (`ls-tree`, `cat-file --batch`): neither applies a filter or textconv, nor runs any
program the repository's config names. Each file is capped in size, so a 256 MiB template is
reported, not read. publish (PR templates, issue forms, repo notes) and lint (the repo's own lines)
both read through here, so they see the same files.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.errors import ToolFailure
from perfkit.repo import gitrepo

MAX_FILE_BYTES = 1 << 20  # a template or CONTRIBUTING is a few pages
BASES = (".github", "", "docs")  # where GitHub looks, in its order
FOLDERS = ("pull_request_template", "issue_template")  # multi-template folders inside a base
# single files inside a base (any suffix); an AI policy file states rules CONTRIBUTING links to
_NAMES = ("pull_request_template", "issue_template", "contributing", "ai_policy", "ai-policy", "ai_usage", "ai-usage")
_SYMLINK, _GITLINK = "120000", "160000"


@dataclass(frozen=True)
class Entry:
    path: str  # repo-relative, as committed
    mode: str
    kind: str  # 'blob', 'tree' or 'commit'
    oid: str
    size: int | None

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def folder(self) -> str:
        return self.path.rsplit("/", 1)[0] if "/" in self.path else ""


@dataclass
class RepoFiles:
    """The template-related files of one commit: listings, texts, and what was refused and why."""

    commit: str | None
    listing: dict[str, list[Entry]] = field(default_factory=dict)  # folder ('' is the root) -> children
    texts: dict[str, str] = field(default_factory=dict)  # path -> text, for every file read
    skipped: list[str] = field(default_factory=list)  # "skipped: X is a symlink", one line each

    def child(self, folder: str, name: str) -> Entry | None:
        """The entry of folder whose name matches case-insensitively (GitHub accepts any case)."""
        want = name.lower()
        return next((e for e in self.listing.get(folder, []) if e.name.lower() == want), None)

    def children(self, folder: str) -> list[Entry]:
        return sorted(self.listing.get(folder, []), key=lambda e: e.path)

    def text(self, path: str) -> str | None:
        return self.texts.get(path)

    def files(self, folder: str) -> list[str]:
        """Paths of the readable files directly in folder, sorted."""
        return [e.path for e in self.children(folder) if e.path in self.texts]


def _ls(top: Path, commit: str, paths: list[str]) -> list[Entry]:
    """Entries of the given folders (the root when paths is empty), one level deep."""
    args = ["ls-tree", "-z", "-l", "--end-of-options", commit]
    if paths:
        args += ["--", *(p + "/" for p in paths)]
    out = gitrepo.git(top, *args)
    entries = []
    for rec in out.split("\0"):
        if not rec:
            continue
        meta, path = rec.split("\t", 1)
        mode, kind, oid, size = meta.split()
        entries.append(Entry(path, mode, kind, oid, int(size) if size.isdigit() else None))
    return entries


def _read_blobs(top: Path, oids: list[str]) -> dict[str, bytes]:
    """Blob contents by oid, in one `cat-file --batch` (plumbing: no filter, no textconv, no program)."""
    if not oids:
        return {}
    cmd = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-C", str(top), "cat-file", "--batch"]
    proc = subprocess.run(
        cmd, input="".join(o + "\n" for o in oids).encode(), capture_output=True, env=gitrepo.git_env(), timeout=60
    )
    if proc.returncode != 0:
        raise ToolFailure(f"git cat-file --batch failed: {proc.stderr.decode('utf-8', 'replace').strip()[-200:]}")
    data, pos, out = proc.stdout, 0, {}
    for oid in oids:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].decode("ascii", "replace").split()
        pos = nl + 1
        if len(header) < 3 or header[1] != "blob":
            continue
        size = int(header[2])
        out[oid] = data[pos : pos + size]
        pos += size + 1
    return out


def decode(raw: bytes) -> str:
    """Template text as GitHub shows it: UTF-8 (with or without BOM), else Latin-1; CRLF folded."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return text.replace("\r\n", "\n")


def _wanted(e: Entry, in_folder: bool) -> bool:
    stem = e.name.lower().split(".", 1)[0]
    return in_folder or stem in _NAMES


def _refusal(e: Entry) -> str | None:
    if e.mode == _SYMLINK:
        return f"skipped: {e.path} is a symlink (committed links are not followed)"
    if e.mode == _GITLINK:
        return f"skipped: {e.path} is a submodule, not a file"
    if e.size is not None and e.size > MAX_FILE_BYTES:
        return f"skipped: {e.path} is {e.size / 2**20:,.1f} MiB, more than the {MAX_FILE_BYTES >> 20} MiB cap"
    return None


def _folders(top: Path, commit: str, res: RepoFiles) -> None:
    """List the bases, then the template folders inside them, refusing linked folders."""
    res.listing[""] = _ls(top, commit, [])
    bases = []
    for base in BASES[::2]:  # '.github' and 'docs'; the root is listed
        e = res.child("", base)
        if e is None:
            continue
        if e.kind == "tree":
            bases.append(e.path)
        elif e.mode == _SYMLINK:
            res.skipped.append(f"skipped: {e.path} is a symlink (committed links are not followed)")
    for e in _ls(top, commit, bases) if bases else []:
        res.listing.setdefault(e.folder, []).append(e)
    inner = []
    for base in ("", *bases):
        for e in res.listing.get(base, []):
            if e.name.lower() in FOLDERS:
                if e.kind == "tree":
                    inner.append(e.path)
                elif e.mode == _SYMLINK:
                    res.skipped.append(f"skipped: {e.path} is a symlink (committed links are not followed)")
    for e in _ls(top, commit, inner) if inner else []:
        res.listing.setdefault(e.folder, []).append(e)


def read_repo_files(top: Path, commit: str | None = None, field_name: str = "repo_commit") -> RepoFiles:
    """Every PR template, issue form or template, CONTRIBUTING and AI policy file at commit (default HEAD).

    A repository without any commit yet has none: the result says so in `skipped`.
    """
    if commit is None:
        try:
            sha = gitrepo.git(top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").strip()
        except ToolFailure:
            return RepoFiles(commit=None, skipped=["skipped: the repo has no commit yet, so no template was read"])
    else:
        sha = gitrepo.resolve_commit(top, commit, field_name)
    res = RepoFiles(commit=sha)
    _folders(top, sha, res)
    folders = {e.path for es in res.listing.values() for e in es if e.kind == "tree" and e.name.lower() in FOLDERS}
    take: list[Entry] = []
    for folder, entries in res.listing.items():
        for e in entries:
            if e.kind == "tree" or not _wanted(e, folder in folders):
                continue
            why = _refusal(e)
            if why:
                res.skipped.append(why)
            else:
                take.append(e)
    blobs = _read_blobs(top, sorted({e.oid for e in take}))
    for e in take:
        if e.oid in blobs:
            res.texts[e.path] = decode(blobs[e.oid])
    return res


def _take(top: Path, entries: list[Entry]) -> dict[str, str]:
    """Texts of the plain files among entries: links, submodules and files over the cap are left out."""
    take = [e for e in entries if e.kind == "blob" and _refusal(e) is None]
    blobs = _read_blobs(top, sorted({e.oid for e in take}))
    return {e.path: decode(blobs[e.oid]) for e in take if e.oid in blobs}


def read_folder(top: Path, commit: str, folder: str, limit: int, suffixes: tuple[str, ...]) -> dict[str, str]:
    """The files of one folder at commit (the repo's workflows, for the checks they run on a PR body)."""
    try:
        entries = _ls(top, commit, [folder])
    except ToolFailure:
        return {}
    entries = [e for e in entries if e.name.lower().rsplit(".", 1)[-1] in suffixes][:limit]
    return _take(top, entries)


def read_paths(top: Path, commit: str, paths: list[str]) -> dict[str, str]:
    """Named files at commit (the scripts a workflow runs); names that are no file are skipped."""
    clean = [p for p in paths if p and not p.startswith(("/", "-")) and ".." not in p.split("/")]
    if not clean:
        return {}
    try:
        out = gitrepo.git(top, "ls-tree", "-z", "-l", "--end-of-options", commit, "--", *clean)
    except ToolFailure:
        return {}
    entries = []
    for rec in out.split("\0"):
        if rec:
            meta, path = rec.split("\t", 1)
            mode, kind, oid, size = meta.split()
            entries.append(Entry(path, mode, kind, oid, int(size) if size.isdigit() else None))
    return _take(top, entries)
