"""Rank the hunks of a commit by how likely they are to move numerical results.

The rules (numeric_rules.py) are plain token patterns; changed_lines.py first leaves out the
lines that cannot move numbers (renames, reworded messages, comments, log calls), then each kept
line is matched and weighted by where its file sits, so a reader can check why a hunk was flagged.
The weights are documented in docs/culprit.md and must be kept in step with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from perfkit.changes.diff_parse import DiffLine, FileDiff, Hunk
from perfkit.culprit.changed_lines import IMPORT_RE, Changed, changed_lines, import_key, language
from perfkit.culprit.models import Highlight
from perfkit.culprit.numeric_rules import KIND_RE, PASS_RE, RULES, SYNC_GATE_RE, SYNC_RE, TYPE_GATE_RE, Rule, union_gate

_DOC_EXT = {".md", ".rst", ".txt", ".adoc"}
_DOC_NAMES = {"changelog", "changes", "news", "history", "readme", "authors", "contributors", "license", "copying"}
_MAX_FILE_CHANGES = 20000
_COMMENT_WEIGHT, _DOC_WEIGHT, _TEST_WEIGHT, _CI_WEIGHT, _CORE_WEIGHT = 0.3, 0.2, 0.6, 0.2, 1.2
_IMPORT_WEIGHT = 0.5
_CORE_RE = re.compile(r"codegen|pass|kernel|(?<![a-z])ops?(?![a-z])|backend|lower|runtime|src/", re.IGNORECASE)
_BUILD_NAMES = {"cmakelists.txt", "makefile", "gnumakefile", "meson.build", "setup.py", "pyproject.toml", "build"}
_BUILD_EXT = {".cmake", ".mk", ".bzl", ".bazel"}


def path_weight(path: str) -> tuple[float, str | None]:
    p = PurePosixPath(path)
    low, name = path.lower(), p.name.lower()
    build_file = name in _BUILD_NAMES or p.suffix.lower() in _BUILD_EXT or name.startswith("requirements")
    doc_file = (p.suffix.lower() in _DOC_EXT and not build_file) or (not p.suffix and name in _DOC_NAMES)
    if doc_file or low.startswith(("docs/", "doc/")) or "/docs/" in low:
        return _DOC_WEIGHT, "documentation"
    if low.startswith((".github/", ".gitlab", ".ci/")) or name in {"dockerfile", ".gitmodules"}:
        return _CI_WEIGHT, "CI or packaging"
    if re.search(r"(^|/)tests?/|(^|/)test_|_test\.|\.test\.", low):
        return _TEST_WEIGHT, "test file"
    if build_file or _CORE_RE.search(low):
        return _CORE_WEIGHT, None
    return 1.0, None


_CODE_RULES = [r for r in RULES if r.scope != "prose"]
_STRING_RULES = [r for r in RULES if r.scope == "text"]
_PROSE_RULES = [r for r in RULES if r.scope == "prose"]
_CODE_ONLY_RULES = [r for r in RULES if r.scope == "code"]
_SCOPE_GATES = {scope: union_gate([r for r in RULES if r.scope == scope]) for scope in ("prose", "code", "text")}
_NAME_GATE = union_gate(_CODE_RULES)
_SPEC_NAME = re.compile(r"\{[^{}:\n]{0,80}:")


class _Judge:
    """The rule table's answer to what changed_lines asks about a piece of a line of one file."""

    def __init__(self, path: str):
        self.masks = language(path).masks_strings
        self._names: dict[str, bool] = {}

    def plain_name(self, name: str) -> bool:
        known = self._names.get(name)
        if known is None:  # names repeat across a file's lines: each is read once
            low = name.lower()
            known = (_NAME_GATE is not None and not _NAME_GATE.search(low)) or not any(
                r.search(name, low) for r in _CODE_RULES
            )
            self._names[name] = known
        return known

    def same_strings(self, a: str, b: str, numeric_line: bool) -> bool:
        if not self.masks:  # a config value: any rule may read it
            return self.plain_name(a) and self.plain_name(b)
        return not numeric_line and self._signature(a) == self._signature(b)

    @staticmethod
    def _signature(text: str) -> list[tuple[str, str]]:
        """What the string-reading rules find, with the names before a format spec's ':' left out."""
        low = text.lower()
        found = [
            (r.kind, m.group())
            for r in _STRING_RULES
            if r.gate is None or r.gate.search(low)
            for m in r.pattern.finditer(text)
        ]
        return sorted((k, _SPEC_NAME.sub("{:", g)) for k, g in found)

    def plain_prose(self, word: str) -> bool:
        low = word.lower()
        return not any(r.search(word, low) for r in _PROSE_RULES)

    def numeric(self, code: str) -> bool:
        low = code.lower()
        return any(r.search(code, low) for r in _CODE_ONLY_RULES)


@dataclass
class _Hit:
    rule: Rule
    score: float
    why: str
    line: Changed


def _line_hits(c: Changed, weight: float, doc: bool, sync_removed: bool) -> list[_Hit]:
    v = c.view
    lw = weight * (_COMMENT_WEIGHT if v.prose and not doc else 1.0)
    if not v.prose and IMPORT_RE.match(v.text.strip()):
        lw *= _IMPORT_WEIGHT  # a new import says where to look; the line that uses it is the change
    hits: list[_Hit] = []
    seen: set[str] = set()
    lows = {"code": v.code.lower(), "text": v.unmasked.lower(), "prose": v.text.lower()}
    open_scopes = {s for s, g in _SCOPE_GATES.items() if g is None or g.search(lows[s])}
    for rule in RULES:
        if rule.category in seen or (rule.removed_only and not (c.sign == "-" and sync_removed)):
            continue
        if v.prose != (rule.scope == "prose") or rule.scope not in open_scopes:
            continue
        target = v.code if rule.scope == "code" else v.unmasked if rule.scope == "text" else v.text
        m = rule.search(target, lows[rule.scope])
        if m:
            seen.add(rule.category)
            hits.append(_Hit(rule, rule.weight * lw, f"{rule.kind} '{m.group().strip()[:60]}'", c))
    return hits


def _score_hunk(
    path: str, hunk: Hunk, moved: set[str], moved_imports: set[tuple[str, ...]]
) -> tuple[float, list[_Hit], list[str]]:
    weight, place = path_weight(path)
    doc = place == "documentation"
    removed_sync = sum(_syncs(ln.text) for ln in hunk.removed)
    added_sync = sum(_syncs(ln.text) for ln in hunk.added)
    kept = changed_lines(hunk, path, doc, _Judge(path), moved_imports)
    hits: list[_Hit] = []
    for c in kept:
        line_hits = _line_hits(c, weight, doc, removed_sync > added_sync)
        hits += line_hits
        text = c.line.text.strip()
        if c.sign == "+" and text in moved and PASS_RE.search(c.line.text):
            lw = line_hits[0].score / line_hits[0].rule.weight if line_hits else weight
            pass_rule = next(r for r in RULES if r.pattern is PASS_RE)
            hits.append(_Hit(pass_rule, 3.5 * lw, f"moves '{text[:60]}' (pass order changed)", c))
    if not hits:
        return 0.0, [], []
    extra: list[str] = []
    before = {t for c in kept if c.sign == "-" and not c.view.prose for t in _kinds(c.view.unmasked)}
    after = {t for c in kept if c.sign == "+" and not c.view.prose for t in _kinds(c.view.unmasked)}
    bonus = 0.0
    if before and after and before != after:
        bonus = 2.0 * weight
        extra.append(
            f"changes type {'/'.join(sorted(before - after) or sorted(before))} -> "
            f"{'/'.join(sorted(after - before) or sorted(after))}"
        )
    if place:
        extra.append(f"weighted down: {place}")
    hits.sort(key=lambda h: (-h.score, h.line.sign != "+"))
    rest = sorted((h.score for h in hits[1:]), reverse=True)[:8]
    return round(hits[0].score + 0.25 * sum(rest) + bonus, 2), hits, extra


def _syncs(text: str) -> int:
    low = text.lower()
    return sum(1 for _ in SYNC_RE.finditer(text)) if SYNC_GATE_RE.search(low) else 0


def _kinds(text: str) -> set[str]:
    """The floating and precision type names a line holds, in lower case."""
    low = text.lower()
    return {t.lower() for t in KIND_RE.findall(text)} if TYPE_GATE_RE.search(low) else set()


def _position(c: Changed) -> tuple[int, int]:
    """(line in the culprit's version, line in the parent's) of a changed line."""
    return (c.line.no, c.line.at) if c.sign == "+" else (c.line.at, c.line.no)


def rank(files: list[FileDiff], limit: int = 15, skip: frozenset[str] = frozenset()) -> tuple[list[Highlight], int]:
    """The flagged hunks of a parsed diff, best first, cut to limit; and how many were flagged.

    Binary files, gitlinks and the paths in skip are not read."""
    readable = [f for f in files if not f.binary and not f.submodule and f.path not in skip]
    out: list[Highlight] = []
    for f in readable:
        removed = {ln.text.strip() for h in f.hunks for ln in h.removed if ln.text.strip()}
        added = {ln.text.strip() for h in f.hunks for ln in h.added if ln.text.strip()}
        moved = removed & added
        imports = [({import_key(ln.text) for ln in side} - {None}) for side in _sides(f)]
        moved_imports: set[tuple[str, ...]] = imports[0] & imports[1]  # type: ignore[assignment]
        for h in f.hunks:
            highlight = _highlight(f.path, h, moved, moved_imports)
            if highlight is not None:
                out.append(highlight)
    out.sort(key=lambda x: (-x.score, x.file, x.line))
    return out[:limit], len(out)


def _sides(f: FileDiff) -> tuple[list[DiffLine], list[DiffLine]]:
    return [ln for h in f.hunks for ln in h.removed], [ln for h in f.hunks for ln in h.added]


def _highlight(path: str, hunk: Hunk, moved: set[str], moved_imports: set[tuple[str, ...]]) -> Highlight | None:
    score, hits, extra = _score_hunk(path, hunk, moved, moved_imports)
    if not hits:
        return None
    lines = sorted({id(x.line): x.line for x in hits}.values(), key=lambda c: (_position(c)[0], c.sign != "-"))
    shown = lines[:6]
    excerpt = "\n".join(f"{c.sign}{c.line.text.rstrip()[:160]}" for c in shown)
    if len(lines) > len(shown):
        excerpt += f"\n... {len(lines) - len(shown)} more flagged lines"
    top = hits[0]
    line, old_line = _position(top.line)
    return Highlight(
        file=path,
        line=line,
        old_line=old_line,
        category=top.rule.category,
        categories=list(dict.fromkeys(x.rule.category for x in hits)),
        kind=top.rule.kind,
        effect=top.rule.effect,
        change=top.line.change,
        score=score,
        excerpt=excerpt,
        why=_reasons(hits)[:5] + extra,
    )


def _reasons(hits: list[_Hit]) -> list[str]:
    """One reason per kind of rule, strongest first (a moved pass line is a reason of its own)."""
    seen: dict[str, str] = {}
    for x in hits:
        seen.setdefault(x.why if x.why.startswith("moves ") else x.rule.kind, x.why)
    return list(seen.values())


def too_big(added: int | None, deleted: int | None) -> bool:
    return (added or 0) + (deleted or 0) > _MAX_FILE_CHANGES
