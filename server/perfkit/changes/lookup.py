"""Ask a whole revision where words occur, in one `git grep` per revision rather than one per word."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.repo import gitrepo

_CHUNK = 400
_KEEP = 5


@dataclass(frozen=True)
class Hit:
    path: str
    line: int
    text: str


@dataclass
class WordHits:
    count: int = 0
    by_role: dict[str, list[Hit]] = field(default_factory=dict)
    roles: dict[str, int] = field(default_factory=dict)

    def first(self, *roles: str) -> Hit | None:
        for r in roles:
            if self.by_role.get(r):
                return self.by_role[r][0]
        return None

    def in_roles(self, *roles: str) -> int:
        return sum(self.roles.get(r, 0) for r in roles)

    def hits(self) -> list[Hit]:
        return [h for hs in self.by_role.values() for h in hs]


def _grep(repo: Path, rev: str, args: list[str]) -> list[tuple[str, int, str] | None]:
    """(path, line, text) per output line; None for a group separator."""
    out = gitrepo.git_paths(repo, "grep", "-n", "-z", "-I", "--no-color", *args, rev, "--", check=False)
    rows: list[tuple[str, int, str] | None] = []
    prefix = f"{rev}:"
    for line in out.split("\n"):
        if line == "--":
            rows.append(None)
            continue
        parts = line.split("\0", 2)
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        path = parts[0][len(prefix) :] if parts[0].startswith(prefix) else parts[0]
        rows.append((path, int(parts[1]), parts[2]))
    return rows


def _ere(word: str) -> str:
    return re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", word)


def _word_re(words: list[str]) -> re.Pattern[str]:
    alt = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alt})(?![A-Za-z0-9_])")


def grep_words(repo: Path, rev: str, words: Iterable[str], role: Callable[[str], str]) -> dict[str, WordHits]:
    """Every line at rev holding each word (as a whole word), counted per file role, a few kept as evidence."""
    wanted = sorted({w for w in words if w and len(w) >= 2})
    result = {w: WordHits() for w in wanted}
    roles: dict[str, str] = {}
    for i in range(0, len(wanted), _CHUNK):
        chunk = wanted[i : i + _CHUNK]
        rx = _word_re(chunk)
        # one alternation: git matches many -F patterns one by one per line, hundreds of times slower
        args = ["-w", "-E", "-e", "(" + "|".join(_ere(w) for w in chunk) + ")"]
        for row in _grep(repo, rev, args):
            if row is None:
                continue
            path, no, text = row
            if path not in roles:
                roles[path] = role(path)
            r = roles[path]
            for w in set(rx.findall(text)):
                wh = result[w]
                wh.count += 1
                wh.roles[r] = wh.roles.get(r, 0) + 1
                kept = wh.by_role.setdefault(r, [])
                if len(kept) < _KEEP:
                    kept.append(Hit(path, no, text))
    return result


@dataclass
class ImportUse:
    guarded: list[list[Hit]] = field(default_factory=list)  # each: try line, import line, except line
    plain: list[Hit] = field(default_factory=list)


def import_uses(repo: Path, rev: str, modules: Iterable[str]) -> dict[str, ImportUse]:
    """Where each module is imported at rev, and whether a `try: ... except ImportError` guards the import."""
    mods = sorted({m for m in modules if re.fullmatch(r"[A-Za-z_][\w.]*", m)})
    result = {m: ImportUse() for m in mods}
    if not mods:
        return result
    alt = "|".join(re.escape(m) for m in mods)
    pattern = rf"^[[:space:]]*(import|from)[[:space:]]+({alt})([.[:space:],]|$)|find_spec\([[:space:]]*.({alt})."
    rows = _grep(repo, rev, ["-E", "-B", "12", "-A", "12", "-e", pattern])
    by_file: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        if row is not None:
            by_file.setdefault(row[0], []).append((row[1], row[2]))
    imp = re.compile(rf"^(\s*)(?:import|from)\s+({alt})(?:[.\s,]|$)")
    spec = re.compile(rf"find_spec\(\s*[\"']({alt})[\"']")
    for path, lines in by_file.items():
        text = dict(lines)
        for no, line in lines:
            m = imp.match(line)
            s = spec.search(line)
            if s:
                result[s.group(1)].guarded.append([Hit(path, no, line)])
                continue
            if not m:
                continue
            guard = _try_block(text, no, len(m.group(1)))
            if guard:
                t, e = guard
                result[m.group(2)].guarded.append([Hit(path, t, text[t]), Hit(path, no, line), Hit(path, e, text[e])])
            else:
                result[m.group(2)].plain.append(Hit(path, no, line))
    return result


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip())


_IMPORT_ERRORS = ("ImportError", "ModuleNotFoundError", "Exception")
_EXCEPT_LIST = re.compile(r"\s*+except\s*+\(?([\w.,\s]*+)")


def _catches_import_error(line: str) -> bool:
    """An `except:` or an except clause whose leading list of names holds an import error.

    One possessive run over the names, then a plain substring test: the same lines the old single
    pattern took, without its cubic backtracking over spaces.
    """
    m = _EXCEPT_LIST.match(line)
    if not m:
        return False
    return line[m.end(1) :].startswith(":") and not m.group(1).strip() or any(e in m.group(1) for e in _IMPORT_ERRORS)


def _try_block(text: dict[int, str], no: int, indent: int) -> tuple[int, int] | None:
    t = no - 1
    while t in text:
        s = text[t]
        if s.strip() and _indent(s) < indent:
            if not re.match(r"\s*try\s*:", s):
                return None
            break
        t -= 1
    else:
        return None
    e = no + 1
    while e in text:
        s = text[e]
        if s.strip() and _indent(s) <= _indent(text[t]):
            if _catches_import_error(s):
                return t, e
            if not re.match(r"\s*except\b", s):
                return None
        e += 1
    return None
