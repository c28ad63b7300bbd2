"""Where a repository writes its rules for contributors: the files to start from, and the links they follow.

Maintainers put rules in many places: CONTRIBUTING (at the root, in .github/ or docs/), a guide it
only links to (`docs/.../contribution/index.md`, `CONTRIBUTING_PR.md`), an AI usage policy file, the
PR template, the README's contributing section, and the files written for coding agents (AGENTS.md,
CLAUDE.md, .github/copilot-instructions.md and the like). Looking under a few names misses most of
them, so the search starts from all of those and follows their links to other text files of the repo:

- Markdown and RST links, `<a href>`, `.. include::`, an agent file's `@path/to/guide.md` import and a
  file name in prose or code (`See CLAUDE.md`), resolved against the linking file's folder;
- GitHub links to a file (`https://github.com/o/r/blob/main/docs/x.md`) when that path is a file here;
- a documentation-site link (`https://docs.example.org/en/latest/contributing/overview.html`) when its
  last path segments name exactly one Markdown or RST file under the repo's documentation folders.

Contribution guides under the documentation folders (`docs/**/contributing.md`, `docs/**/contribution/
index.md`, a translated `how-to-be-a-contributor.zh.md`) are start files too, found by name, nearest
first, at most MAX_DOC_GUIDES: a guide no other file links to is still where the rules are written.

It is bounded: links are followed breadth first at most DEPTH links away from a start file, at most
MAX_LINKED linked files are read, each at most MAX_LINKED_BYTES, TOTAL_BYTES in all. Everything is
read from git objects at the commit (`ls-tree`, one `cat-file --batch` per round), never from the
working tree. A committed symlink is read as the name of its target: a target inside the repo is
followed as a link (within the same bounds), one outside (`../..`, `/etc/passwd`) is refused and said.
A link that leaves the repo is never followed; a file reached twice is read once.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import unquote

from perfkit.markdown.blocks import atx_heading, underline_level
from perfkit.repo import contribution_files
from perfkit.repo.contribution_files import Entry, RepoFiles

DEPTH = 2  # links away from a start file
MAX_LINKED = 24  # linked files read, in all
MAX_LINKED_BYTES = 256 * 1024  # one linked file; a guide is a few pages
TOTAL_BYTES = 4 * 1024 * 1024  # all linked files together
MAX_LINKS_PER_FILE = 200  # links looked at in one file
MAX_DOC_PATHS = 20_000  # documentation files listed to map a site link
MAX_SYMLINK_HOPS = 4  # a chain of committed symlinks longer than this is refused (a loop never ends)
MAX_DOC_GUIDES = 6  # contribution guides found by name under the documentation folders
_DOC_FOLDERS = ("docs", "doc", "documentation", "website", "site")
_TEXT_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".mdc")

Start = Literal["contributing", "ai-policy", "pr-template", "readme", "agents", "linked"]

_CONTRIBUTING_RE = re.compile(r"^contributing(?:[_.-]|$)", re.I)
_AI_POLICY_RE = re.compile(
    r"^(?:ai|genai|llm)[_-]?(?:usage|use|policy|contribution|contributions|assistance|assisted|disclosure)\b|"
    r"^(?:using|use)[_-](?:ai|llms?)\b|^ai[_-].*polic",
    re.I,
)
_AGENT_FILES = (
    "AGENTS.md",
    "AGENT.md",
    "CLAUDE.md",
    "GEMINI.md",
    ".cursorrules",
    ".windsurfrules",
    ".clinerules",
    ".github/copilot-instructions.md",
    ".github/AGENTS.md",
    ".github/CLAUDE.md",
    "docs/AGENTS.md",
)
_DOC_GUIDE_RE = re.compile(r"contribut(?:e|ing|ion|or(?!s))|developer[_-]guide/(?:index|readme)\.", re.I)
_TRANSLATION_RE = re.compile(r"/(?:locales?|i18n|translations?|zh[_-]?cn|ja|ko)/", re.I)
_README_RE = re.compile(r"^readme(?:\.(?:md|markdown|rst|txt))?$", re.I)
_CONTRIB_HEADING_RE = re.compile(r"\bcontribut\w*|\bdevelop(?:ing|ment|ers?)\b.*\bguid", re.I)

_MD_LINK_RE = re.compile(r"(?<!!)\[[^\]\n]{0,300}\]\(\s*<?([^()\s<>]{1,500})>?(?:\s+\"[^\"\n]*\")?\s*\)")
_REF_DEF_RE = re.compile(r"^ {0,3}\[[^\]\n]{1,200}\]:\s*<?(\S{1,500}?)>?(?:\s|$)")
_HREF_RE = re.compile(r"""href\s*=\s*["']([^"'\s]{1,500})["']""", re.I)
_RST_LINK_RE = re.compile(r"`[^`<\n]{0,300}<([^<>`\s]{1,500})>`_{1,2}")
_RST_DOC_RE = re.compile(r":doc:`(?:[^`<\n]*<)?([^`<>\s]{1,300})>?`")
_RST_INCLUDE_RE = re.compile(r"^\s*\.\. (?:include|mdinclude)::\s*(\S{1,500})")
_URL_RE = re.compile(r"(?<![\w/])https?://[^\s<>()\"'`\]]{1,500}")
_AT_IMPORT_RE = re.compile(r"(?<![\w@/.])@((?:[\w.-]+/)*[\w.-]+\.(?:md|mdc|rst|txt))\b")
_FILE_NAME_RE = re.compile(r"(?<![\w/@.-])((?:\.?[\w-]+/)*[\w.-]*\w\.(?:md|mdc|rst|txt))(?![\w/])")
_GITHUB_RE = re.compile(r"^https?://(?:www\.)?github\.com/[^/]+/[^/]+/(?:blob|tree|raw)/[^/]+/(.+)$", re.I)
_RAW_RE = re.compile(r"^https?://raw\.githubusercontent\.com/[^/]+/[^/]+/[^/]+/(.+)$", re.I)


@dataclass(frozen=True)
class Source:
    """One file the rules are read from."""

    path: str
    text: str
    start: Start  # why it was read: a start file's kind, or 'linked'
    via: tuple[str, ...] = ()  # 'FILE:LINE' of each link followed to reach it, first link first
    span: tuple[int, int] | None = None  # 1-based lines to read (the README's contributing section)


@dataclass
class Search:
    """What the search read, in the order rules are reported, and what it refused and why."""

    sources: list[Source] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Link:
    target: str  # a repo path, normalised
    line: int  # where the link is written in the linking file


def _is_text(path: str) -> bool:
    low = path.lower()
    return low.endswith(_TEXT_SUFFIXES) or posixpath.basename(low) in (".cursorrules", ".windsurfrules", ".clinerules")


def readme_span(text: str) -> tuple[int, int] | None:
    """The lines of a README's contributing section (heading to the next heading of its level or above)."""
    lines = text.split("\n")
    start = level = None
    for n, line in enumerate(lines, 1):
        atx = atx_heading(line)
        under = underline_level(lines[n]) if n < len(lines) and line.strip() else 0
        if not atx and not under:
            continue
        lvl, title = atx or (under, line.strip())
        if start is None:
            if _CONTRIB_HEADING_RE.search(title):
                start, level = n, lvl
        elif level is not None and lvl <= level:
            return start, n - 1
    return (start, len(lines)) if start is not None else None


def _resolve(raw: str, folder: str) -> str | None:
    """A link's target as a repo path, or None when it leaves the repo or is not a path."""
    target = unquote(raw.strip().strip("<>")).split("#", 1)[0].split("?", 1)[0]
    if not target or target.startswith(("mailto:", "tel:", "javascript:", "data:")):
        return None
    if "://" in target:
        m = _GITHUB_RE.match(target) or _RAW_RE.match(target)
        return posixpath.normpath(m.group(1)).strip("/") if m else None
    if target.startswith("/"):
        path = posixpath.normpath(target.lstrip("/"))
    else:
        path = posixpath.normpath(posixpath.join(folder, target))
    if path in (".", "") or path == ".." or path.startswith("../"):
        return None
    return path


def _site_segments(url: str) -> list[str] | None:
    """The path segments of a documentation-site link, without '.html' ('…/contributing/overview.html')."""
    if _GITHUB_RE.match(url) or _RAW_RE.match(url) or re.match(r"^https?://(?:www\.)?github\.com/", url, re.I):
        return None
    m = re.match(r"^https?://[^/\s]+/([^?#\s]*)", url)
    if not m:
        return None
    path = re.sub(r"\.html?$", "", unquote(m.group(1)).rstrip("/"))
    segs = [s for s in path.split("/") if s]
    return segs or None


def _norm_seg(s: str) -> str:
    return s.lower().replace("-", "_")


def map_site_link(segments: list[str], doc_paths: list[str]) -> str | None:
    """The one documentation file a site link names: its last two or more segments (or one, for a
    contributing page) match the file's path without suffix; None when nothing or several match."""
    best: list[str] = []
    best_k = 0
    for path in doc_paths:
        if not path.lower().endswith((".md", ".rst", ".markdown")):
            continue
        parts = path.rsplit(".", 1)[0].split("/")
        k = 0
        while k < min(len(parts), len(segments)) and _norm_seg(parts[-1 - k]) == _norm_seg(segments[-1 - k]):
            k += 1
        ok = k >= 2 or (k == 1 and "contribut" in segments[-1].lower())
        if not ok or k < best_k:
            continue
        if k > best_k:
            best, best_k = [path], k
        else:
            best.append(path)
    return best[0] if len(best) == 1 else None


def links(text: str, path: str, span: tuple[int, int] | None = None) -> tuple[list[_Link], list[tuple[list[str], int]]]:
    """(links to repo paths, documentation-site links as (path segments, line)), in the file's order, capped."""
    folder = posixpath.dirname(path)
    found: list[_Link] = []
    sites: list[tuple[list[str], int]] = []
    lines = text.split("\n")
    lo, hi = span or (1, len(lines))
    for n in range(lo, min(hi, len(lines)) + 1):
        line = lines[n - 1]
        if len(found) + len(sites) >= MAX_LINKS_PER_FILE:
            break
        raws: list[str] = []
        for rx in (_MD_LINK_RE, _REF_DEF_RE, _HREF_RE, _RST_LINK_RE, _RST_INCLUDE_RE):
            raws += [m.group(1) for m in rx.finditer(line)]
        raws += [
            m.group(1) + (".rst" if "." not in posixpath.basename(m.group(1)) else "")
            for m in _RST_DOC_RE.finditer(line)
        ]
        raws += [m.group(0).rstrip(".,;:") for m in _URL_RE.finditer(line)]
        raws += [m.group(1) for m in _AT_IMPORT_RE.finditer(line)]
        raws += [m.group(1) for m in _FILE_NAME_RE.finditer(_URL_RE.sub(" ", line))]
        for raw in raws:
            if "://" in raw and not (_GITHUB_RE.match(raw) or _RAW_RE.match(raw)):
                segs = _site_segments(raw)
                if segs:
                    sites.append((segs, n))
                continue
            target = _resolve(raw, folder)
            if target:
                found.append(_Link(target, n))
            if target and not raw.startswith(("/", ".", "http")) and "/" not in raw:
                found.append(_Link(posixpath.normpath(raw), n))  # 'See CLAUDE.md': also from the root
    return found, sites


def doc_guides(doc_paths: list[str]) -> list[str]:
    """Contribution guides among the documentation files, by name, nearest the root first (translations last)."""
    found = [p for p in doc_paths if p.lower().endswith((".md", ".rst", ".markdown")) and _DOC_GUIDE_RE.search(p)]
    found.sort(key=lambda p: (bool(_TRANSLATION_RE.search("/" + p)), p.count("/"), p))
    return found[:MAX_DOC_GUIDES]


def _candidates(target: str) -> list[str]:
    out = [target]
    if not _is_text(target):
        out += [target + ".md", target + ".rst", f"{target}/README.md", f"{target}/index.md", f"{target}/index.rst"]
    return out


def _start_paths(files: RepoFiles, template_paths: list[str]) -> list[tuple[str, Start]]:
    """The start files present at the commit, in report order: policies, CONTRIBUTING, agents, templates, README."""
    starts: list[tuple[str, Start]] = []
    for base in ("", ".github", "docs"):
        for e in files.children(base):
            stem = e.name.rsplit(".", 1)[0] if "." in e.name[1:] else e.name
            if e.kind == "tree":
                continue
            if _AI_POLICY_RE.search(stem):
                starts.append((e.path, "ai-policy"))
    for base in ("", ".github", "docs"):
        for e in files.children(base):
            if e.kind != "tree" and _CONTRIBUTING_RE.match(e.name):
                starts.append((e.path, "contributing"))
    for name in _AGENT_FILES:
        folder, _, base = name.rpartition("/")
        agent = files.child(folder, base)
        if agent is not None and agent.kind != "tree":
            starts.append((agent.path, "agents"))
    starts += [(p, "pr-template") for p in template_paths]
    readme = next((e for e in files.children("") if e.kind != "tree" and _README_RE.match(e.name)), None)
    if readme is not None:
        starts.append((readme.path, "readme"))
    first: dict[str, Start] = {}
    for p, k in starts:
        first.setdefault(p, k)
    return list(first.items())


def _refused(e: Entry, target: str | None) -> str | None:
    if e.mode == "160000":
        return f"skipped: {e.path} is a submodule, not a file"
    if e.mode == "120000" and target is None:
        return f"skipped: {e.path} is a symlink to a path outside the repo (not followed)"
    return None


Visit = tuple[str, Start, tuple[str, ...]]  # (path, why it is read, the links that led to it)


@dataclass
class _Walk:
    """One search's state: what was read, the linked files' budget, and the documentation listing."""

    top: Path
    commit: str
    doc_paths: list[str]
    out: Search
    seen: set[str] = field(default_factory=set)
    linked: int = 0
    total: int = 0

    def admit(self, path: str, text: str, depth: int) -> bool:
        """Whether a linked file fits the budget (start files always do); said in skipped when not."""
        if depth == 0:
            return True
        if self.linked >= MAX_LINKED or self.total + len(text) > TOTAL_BYTES:
            self.out.skipped.append(
                f"skipped: {path}: the rule search reads at most {MAX_LINKED} linked files, "
                f"{TOTAL_BYTES // 1024:,} KiB in all"
            )
            return False
        self.linked += 1
        self.total += len(text)
        return True

    def round(self, frontier: list[Visit], depth: int, known: dict[str, Entry] | None = None) -> list[Visit]:
        """Read one depth of files (known: their entries, when already looked up); the links they hold."""
        entries = (
            known
            if known is not None
            else contribution_files.lookup(self.top, self.commit, [p for p, _, _ in frontier])
        )
        if any(e.mode == "120000" for e in entries.values()):
            frontier = _through_symlinks(self.top, self.commit, frontier, self.out)
            entries = contribution_files.lookup(self.top, self.commit, [p for p, _, _ in frontier])
        cap = contribution_files.MAX_FILE_BYTES if depth == 0 else MAX_LINKED_BYTES
        texts, _ = contribution_files.read_entries(self.top, list(entries.values()), cap)
        nxt: list[Visit] = []
        for path, start, via in frontier:
            e = entries.get(path)
            if path in self.seen or e is None or e.kind != "blob":
                continue
            self.seen.add(path)
            if path not in texts:
                size = f"{e.size / 1024:,.0f} KiB" if e.size is not None else "unreadable"
                self.out.skipped.append(f"skipped: {path} ({size}) is over the {cap // 1024:,} KiB cap for a rule file")
                continue
            text = texts[path]
            span = readme_span(text) if start == "readme" else None
            if (start == "readme" and span is None) or not self.admit(path, text, depth):
                continue
            self.out.sources.append(Source(path, text, start, via, span))
            if depth < DEPTH:
                nxt += [
                    (cand, "linked", (*via, f"{path}:{link.line}"))
                    for link in self.links_of(text, path, span)
                    for cand in _candidates(link.target)
                    if cand not in self.seen
                ]
        return nxt

    def links_of(self, text: str, path: str, span: tuple[int, int] | None) -> list[_Link]:
        found, sites = links(text, path, span)
        for segments, line in sites:
            mapped = map_site_link(segments, self.doc_paths)
            if mapped:
                found.append(_Link(mapped, line))
        return found


def search(top: Path, files: RepoFiles, template_paths: list[str]) -> Search:
    """Every file the repo's rules may be written in, from the start files through their links, bounded."""
    out = Search()
    if files.commit is None:
        return out
    starts = _start_paths(files, template_paths)
    doc_paths = contribution_files.list_tree(top, files.commit, list(_DOC_FOLDERS), MAX_DOC_PATHS)
    starts += [(p, "contributing") for p in doc_guides(doc_paths) if p not in {q for q, _ in starts}]
    walk = _Walk(top, files.commit, doc_paths, out)
    frontier: list[Visit] = [(p, k, ()) for p, k in starts]  # start files first, then each depth of links
    known: dict[str, Entry] | None = None
    for depth in range(DEPTH + 1):
        if not frontier:
            break
        frontier, known = _existing(top, files.commit, walk.round(frontier, depth, known))
    return out


def _existing(top: Path, commit: str, wanted: list[Visit]) -> tuple[list[Visit], dict[str, Entry]]:
    """The wanted paths that are text files or symlinks at commit (first way of reaching each kept), and
    their entries, so the next round need not look them up again."""
    if not wanted:
        return [], {}
    entries = contribution_files.lookup(top, commit, [p for p, _, _ in wanted])
    out, seen = [], set()
    for path, start, via in wanted:
        e = entries.get(path)
        if e is None or path in seen or e.kind != "blob" or not (_is_text(path) or e.mode == "120000"):
            continue
        seen.add(path)
        out.append((path, start, via))
    return out, entries


def _through_symlinks(
    top: Path, commit: str, frontier: list[tuple[str, Start, tuple[str, ...]]], out: Search
) -> list[tuple[str, Start, tuple[str, ...]]]:
    """The frontier with each symlink replaced by its target inside the repo (chains of MAX_SYMLINK_HOPS),
    the link added to the way it was reached ('CLAUDE.md -> AGENTS.md')."""
    current = frontier
    for _ in range(MAX_SYMLINK_HOPS):
        entries = contribution_files.lookup(top, commit, [p for p, _, _ in current])
        links_here = [e for e in entries.values() if e.mode == "120000"]
        if not links_here:
            break
        _, targets = contribution_files.read_entries(top, links_here)
        nxt = []
        for path, start, via in current:
            e = entries.get(path)
            if e is None or e.mode != "120000":
                nxt.append((path, start, via))
                continue
            raw = targets.get(path, "")
            target = _resolve(raw, posixpath.dirname(path)) if raw and not raw.startswith("/") else None
            why = _refused(e, target)
            if why:
                out.skipped.append(why)
                continue
            assert target is not None
            nxt.append((target, start, (*via, f"{path} -> {target}")))
        current = nxt
    else:
        entries = contribution_files.lookup(top, commit, [p for p, _, _ in current])
        loops = [p for p, _, _ in current if (e := entries.get(p)) is not None and e.mode == "120000"]
        out.skipped += [
            f"skipped: {p} is a chain of more than {MAX_SYMLINK_HOPS} symlinks (not followed)" for p in loops
        ]
        current = [c for c in current if c[0] not in loops]
    return current
