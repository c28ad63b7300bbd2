"""The rules behind the four kinds: judge each hunk of a range with what the whole range sets and reads.

The whole range is read first, because the kinds depend on each other across commits and files:
a recipe line is a `default` only when source in the range reads that new key, and a source line
reading a new key is a `default` only when a recipe in the range turns it on. The base tree says
what already existed (an option read, an ImportError fallback), the head tree who reads a key now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from perfkit.changes import lookup, recipes
from perfkit.changes.diff_parse import DiffLine, FileDiff, Hunk
from perfkit.changes.models import ChangeKind, Evidence, FileChanges, FileRole, HunkChange, MovedBlock, RemovalShape
from perfkit.changes.moved import Run, find_moves
from perfkit.changes.removal import Net, is_code, judge, net_lines
from perfkit.changes.revrange import Range
from perfkit.errors import InputError
from perfkit.repo import gitrepo

_RECIPE_ROLES = ("launcher", "config", "recipe", "dependency")


@dataclass
class FileCtx:
    commit: str
    diff: FileDiff
    role: FileRole
    moved_removed: set[int] = field(default_factory=set)
    moved_added: set[int] = field(default_factory=set)
    moved_to: dict[int, str] = field(default_factory=dict)
    moved_from: dict[int, str] = field(default_factory=dict)


@dataclass
class Found:
    """A line of the range with what it sets or reads."""

    ctx: FileCtx
    line: DiffLine
    key: str
    value: str | None
    style: str


def check_globs(recipe_globs: list[str] | None) -> list[str]:
    if recipe_globs is None:
        return list(recipes.DEFAULT_RECIPE_GLOBS)
    globs = [g.strip() for g in recipe_globs if isinstance(g, str)]
    if not globs or any(not g for g in globs):
        raise InputError(
            "recipe_globs",
            "holds an empty pattern",
            "pass path patterns such as 'examples/*' or '*.yaml', or leave it unset for the defaults",
        )
    return globs


def role_for(repo: Path, f: FileDiff, globs: list[str]) -> FileRole:
    path = f.path
    role = recipes.role_of(path, globs)
    suffix = PurePosixPath(path).suffix.lower()
    if role == "source" and (not suffix or suffix in recipes.LAUNCHER_EXT) and not f.binary and not f.submodule:
        blob = f.new_blob if f.status != "D" else f.old_blob
        first = (
            gitrepo.git_paths(repo, "cat-file", "-p", blob, check=False).split("\n", 1)[0] if set(blob) != {"0"} else ""
        )
        role = recipes.role_of(path, globs, first)
    return role


class Analysis:
    """What the whole range sets, reads and installs, checked against the base and head trees."""

    def __init__(self, r: Range, ctxs: list[FileCtx], globs: list[str]):
        self.r = r
        self.sets: dict[str, list[Found]] = {}
        self.reads: dict[str, list[Found]] = {}
        words: set[str] = set()
        packages: set[str] = set()
        for c in ctxs:
            if c.diff.binary or c.diff.submodule:
                continue
            for h in c.diff.hunks:
                for d in h.added:
                    if d.no in c.moved_added:
                        continue
                    if c.role in _RECIPE_ROLES:
                        for it in recipes.settings_in(d.text, c.role, c.diff.path):
                            self.sets.setdefault(recipes.canon(it.key), []).append(
                                Found(c, d, it.key, it.value, it.style)
                            )
                            words |= recipes.spellings(it.key)
                        for p in recipes.packages_in(d.text, c.role, c.diff.path):
                            packages.add(p)
                    if c.role in ("source", "recipe"):
                        for o in recipes.option_reads(d.text):
                            self.reads.setdefault(recipes.canon(o.key), []).append(
                                Found(c, d, o.key, o.default, o.style)
                            )
                            words |= recipes.spellings(o.key)
                        for w in recipes.env_writes(d.text):
                            words |= recipes.spellings(w.key)
        self.modules = {p: recipes.import_names(p) for p in packages}
        mods = {m for ms in self.modules.values() for m in ms}

        def role(path: str) -> str:
            return recipes.role_of(path, globs)

        self.base = lookup.grep_words(r.repo, r.base, words, role)
        self.head = lookup.grep_words(r.repo, r.head, words, role)
        self.base_imports = lookup.import_uses(r.repo, r.base, mods)
        self.head_imports = lookup.import_uses(r.repo, r.head, mods)

    def _hits(self, tree: dict[str, lookup.WordHits], key: str, *roles: str) -> tuple[int, lookup.Hit | None]:
        n, first = 0, None
        for s in recipes.spellings(key):
            wh = tree.get(s)
            if wh:
                n += wh.in_roles(*roles)
                first = first or wh.first(*roles)
        return n, first

    def key_status(self, key: str) -> tuple[ChangeKind, float, str, list[Evidence]]:
        """Whether setting `key` is a setting (something already reads it) or turns on a new option."""
        n, hit = self._hits(self.base, key, "source")
        if n:
            return "setting", 0.85, f"{key} is already read at base", [_ev(hit, "base", "read at base")]
        new = self.reads.get(recipes.canon(key), [])
        n_head, head_hit = self._hits(self.head, key, "source")
        if new:
            f = new[0]
            off = recipes.keeps_old_behaviour(f.value)
            note = f"new option, default {f.value or 'unset'}" + ("" if off else " (may change behaviour)")
            return (
                "default",
                0.85 if off else 0.6,
                f"turns on new option {f.key}, read in {f.ctx.diff.path}",
                [Evidence(path=f.ctx.diff.path, line=f.line.no, at="added", text=f.line.text, note=note)],
            )
        if n_head:
            return (
                "default",
                0.6,
                f"{key} is read at head but not at base (default not recognised)",
                [_ev(head_hit, "head", "read at head only")],
            )
        n_other, other = self._hits(self.base, key, "launcher", "config", "recipe", "dependency", "test")
        if n_other:
            return "setting", 0.7, f"{key} is already set elsewhere at base", [_ev(other, "base", "set at base")]
        return "setting", 0.55, f"nothing in the repository reads {key}: a library or the launcher does", []

    def package_status(self, package: str) -> tuple[ChangeKind, float, str, list[Evidence]]:
        mods = self.modules.get(package, set())
        base = [self.base_imports[m] for m in mods if m in self.base_imports]
        guarded = [g for u in base for g in u.guarded]
        if guarded:
            return (
                "setting",
                0.9,
                f"installs {package}, which the code at base imports with an ImportError fallback",
                [_ev(h, "base", "ImportError fallback at base") for h in guarded[0]],
            )
        plain = [h for u in base for h in u.plain]
        if plain:
            return (
                "setting",
                0.6,
                f"installs {package}, already imported (without fallback) at base",
                [_ev(plain[0], "base", "imported at base")],
            )
        head = [
            h
            for m in mods
            if m in self.head_imports
            for h in self.head_imports[m].plain + [g[1] if len(g) > 1 else g[0] for g in self.head_imports[m].guarded]
        ]
        if head:
            return (
                "source",
                0.7,
                f"installs {package}, a new dependency of code added in the range",
                [_ev(head[0], "head", "imported at head only")],
            )
        return "setting", 0.5, f"installs {package}, which no code in the repository imports", []


def _ev(hit: lookup.Hit | None, at: str, note: str) -> Evidence:
    assert hit is not None
    return Evidence(path=hit.path, line=hit.line, at=at, text=hit.text, note=note)


def _line_ev(c: FileCtx, d: DiffLine, at: str, note: str) -> Evidence:
    return Evidence(path=c.diff.path if at == "added" else c.diff.old_path, line=d.no, at=at, text=d.text, note=note)


def mark_moves(ctxs: list[FileCtx]) -> list[MovedBlock]:
    """Record on each file which deleted and added lines are moves, and list the moved blocks."""
    removed, added = [], []
    for c in ctxs:
        if c.diff.binary or c.diff.submodule:
            continue
        for h in c.diff.hunks:
            if h.removed:
                removed.append(Run((c, id(h)), c.diff.old_path, [d.no for d in h.removed], [d.text for d in h.removed]))
            if h.added:
                added.append(Run((c, id(h)), c.diff.path, [d.no for d in h.added], [d.text for d in h.added]))
    blocks = []
    for m in find_moves(removed, added):
        if m.removed.owner[0] is m.added.owner[0] and m.removed.owner[1] == m.added.owner[1]:
            continue  # re-indented inside one hunk: net_lines treats it as kept
        src, dst = m.removed.owner[0], m.added.owner[0]
        src.moved_removed.update(m.removed_numbers)
        dst.moved_added.update(m.added_numbers)
        for n in m.removed_numbers:
            src.moved_to[n] = f"{dst.diff.path}:{m.added_numbers[0]}"
        for n in m.added_numbers:
            dst.moved_from[n] = f"{src.diff.old_path}:{m.removed_numbers[0]}"
        blocks.append(
            MovedBlock(
                from_path=src.diff.old_path,
                from_start=m.removed_numbers[0],
                from_end=m.removed_numbers[-1],
                to_path=dst.diff.path,
                to_start=m.added_numbers[0],
                to_end=m.added_numbers[-1],
                lines=len(m.removed_numbers),
                from_commit=src.commit,
                to_commit=dst.commit,
            )
        )
    return blocks


_WHAT = {"env": "environment variable", "flag": "flag", "config": "config value", "kwarg": "argument"}


def _judge_recipe(a: Analysis, c: FileCtx, net: Net) -> HunkChange | None:
    """One kind for a recipe hunk from the keys and packages it sets; each evidence line names its own kind."""
    path, role = c.diff.path, c.role
    if not net.added and not net.removed:
        return None  # moved or re-indented lines only
    before = {(recipes.canon(it.key), it.value) for d in net.removed for it in recipes.settings_in(d.text, role, path)}
    after_keys: set[str] = set()
    found: list[tuple[ChangeKind, float, str, list[Evidence]]] = []
    for d in net.added:
        for it in recipes.settings_in(d.text, role, path):
            after_keys.add(recipes.canon(it.key))
            if (recipes.canon(it.key), it.value) in before:
                continue  # already set so on the line this one rewrites
            kind, conf, why, ev = a.key_status(it.key)
            found.append(
                (kind, conf, why, [_line_ev(c, d, "added", f"sets {_WHAT[it.style]} {it.key}: {kind}, {why}")] + ev)
            )
        for p in recipes.packages_in(d.text, role, path):
            kind, conf, why, ev = a.package_status(p)
            found.append((kind, conf, why, [_line_ev(c, d, "added", f"installs {p}: {kind}")] + ev))
    dropped = [
        (d, it)
        for d in net.removed
        for it in recipes.settings_in(d.text, role, path)
        if recipes.canon(it.key) not in after_keys
    ]
    if not found and dropped:
        ev = [_line_ev(c, d, "removed", f"no longer sets {it.key}") for d, it in dropped[:5]]
        if c.diff.status == "D":
            return _hunk("removal", 0.8, f"deletes the {role} file", ev, removal="file")
        return _hunk("setting", 0.7, f"drops {', '.join(dict.fromkeys(it.key for _, it in dropped))} from a {role}", ev)
    if not found:
        if role == "recipe" and PurePosixPath(path).suffix == ".py":
            return None  # code in an example script: judged like source
        if c.diff.status == "D":
            return _hunk(
                "removal",
                0.8,
                f"deletes the {role} file",
                [_line_ev(c, d, "removed", "deleted") for d in net.removed[:3]],
                removal="file",
            )
        lines = net.added or net.removed
        return _hunk(
            "setting",
            0.5,
            f"changes a {role} file; no new key or package recognised",
            [_line_ev(c, d, "added" if net.added else "removed", "changed line") for d in lines[:3]],
        )
    for kind in ("default", "source", "setting"):
        picked = [f for f in found if f[0] == kind]
        if picked:
            best = max(picked, key=lambda f: f[1])
            others = [f for f in found if f[0] != kind]
            why = best[2] + (
                f"; {len(others)} other key(s) on these lines are of other kinds (see evidence)" if others else ""
            )
            ev = [e for f in picked + others for e in f[3]]
            return _hunk(kind, best[1], why, ev[:12])
    return None


def _judge_source(a: Analysis, c: FileCtx, h: Hunk, net: Net) -> HunkChange:
    code_added = [d for d in net.added if is_code(d.text)]
    code_removed = [d for d in net.removed if is_code(d.text)]
    if not code_added and not code_removed:
        moved = [d for d in h.removed if d.no in c.moved_removed] + [d for d in h.added if d.no in c.moved_added]
        if moved:
            ev = [_line_ev(c, d, "removed", f"moved to {c.moved_to[d.no]}") for d in h.removed if d.no in c.moved_to][
                :2
            ]
            ev += [
                _line_ev(c, d, "added", f"moved from {c.moved_from[d.no]}") for d in h.added if d.no in c.moved_from
            ][:2]
            return _hunk("source", 0.9, "moves code without deleting it (a move, not a removal)", ev)
        return _hunk(
            "source",
            0.6,
            "changes comments, blank lines or indentation only",
            [_line_ev(c, d, "added", "changed line") for d in (net.added or net.kept)[:2]],
        )
    verdict = judge(net, whole_file=c.diff.status == "D")
    if verdict and not code_added:
        return _hunk(
            "removal",
            verdict.confidence,
            verdict.reason,
            [_line_ev(c, d, "removed", "deleted") for d in verdict.evidence],
            removal=verdict.shape,
        )
    writes = [(d, w) for d in code_added for w in recipes.env_writes(d.text)]
    if writes and all(recipes.env_writes(d.text) or d.text.strip().startswith("import ") for d in code_added):
        d, w = writes[0]
        kind, conf, why, ev = a.key_status(w.key)
        conf = min(conf, 0.75)
        return _hunk(
            "setting",
            conf,
            f"sets environment variable {w.key} in code; {why}",
            [_line_ev(c, d, "added", f"sets {w.key}") for d, w in writes[:4]] + ev,
        )
    old_reads = {recipes.canon(o.key): o for d in h.removed for o in recipes.option_reads(d.text)}
    changed, new = [], []
    for d in code_added:
        for o in recipes.option_reads(d.text):
            prev = old_reads.get(recipes.canon(o.key))
            if prev is not None:
                if (prev.default or "") != (o.default or ""):
                    changed.append((d, o, prev))
            elif a.key_status(o.key)[0] == "default":
                new.append((d, o))
    for d, o in new:
        enabling = a.sets.get(recipes.canon(o.key), [])
        if enabling:
            off = recipes.keeps_old_behaviour(o.default)
            ev = [_line_ev(c, d, "added", f"new option {o.key}, default {o.default or 'unset'}")]
            ev += [_line_ev(f.ctx, f.line, "added", f"recipe turns it on ({f.key}={f.value})") for f in enabling[:3]]
            why = (
                f"adds option {o.key} whose default keeps the old behaviour, and a recipe turns it on"
                if off
                else f"adds option {o.key} with default {o.default}, which may change behaviour for other callers; "
                "a recipe turns it on"
            )
            return _hunk("default", 0.85 if off else 0.6, why, ev)
    if changed:
        d, o, prev = changed[0]
        return _hunk(
            "source",
            0.85,
            f"changes the default of {o.key} from {prev.default} to {o.default} for every caller",
            [_line_ev(c, d, "added", "new default")],
        )
    if verdict:
        return _hunk(
            "removal",
            verdict.confidence,
            verdict.reason,
            [_line_ev(c, d, "removed", "deleted") for d in verdict.evidence],
            removal=verdict.shape,
        )
    ev = []
    if new:
        d, o = new[0]
        ev.append(
            _line_ev(
                c, d, "added", f"new option {o.key}, default {o.default or 'unset'}; no recipe in the range sets it"
            )
        )
    else:
        ev = [_line_ev(c, d, "added", "added") for d in code_added[:2]] or [
            _line_ev(c, d, "removed", "rewritten") for d in code_removed[:2]
        ]
    what = "tests" if c.role == "test" else "code"
    return _hunk(
        "source",
        0.75 if new else 0.8,
        f"changes {what}" + (f"; adds option {new[0][1].key} that no recipe in the range turns on" if new else ""),
        ev,
    )


def _hunk(
    kind: ChangeKind, confidence: float, reason: str, evidence: list[Evidence], removal: RemovalShape | None = None
) -> HunkChange:
    return HunkChange(
        kind=kind,
        confidence=round(confidence, 2),
        reason=reason,
        old_start=0,
        old_lines=0,
        new_start=0,
        new_lines=0,
        removal=removal,
        evidence=evidence,
    )


def judge_hunk(a: Analysis, c: FileCtx, h: Hunk) -> HunkChange:
    net = net_lines(h.removed, h.added, c.moved_removed, c.moved_added)
    out = None
    if c.role == "doc" and c.diff.status == "D":
        out = _hunk(
            "removal",
            0.6,
            "deletes the documentation file",
            [_line_ev(c, d, "removed", "deleted") for d in net.removed[:2]],
            removal="file",
        )
    elif c.role == "doc":
        out = _hunk("source", 0.5, "documentation", [_line_ev(c, d, "added", "added") for d in net.added[:2]])
    elif c.role in _RECIPE_ROLES:
        out = _judge_recipe(a, c, net)
    if out is None:
        out = _judge_source(a, c, h, net)
    out.old_start, out.old_lines, out.new_start, out.new_lines = h.old_start, h.old_count, h.new_start, h.new_count
    return out


def file_changes(a: Analysis, c: FileCtx) -> FileChanges:
    f = c.diff
    if f.submodule:
        hunks = [_hunk("source", 0.5, f"moves the submodule pointer {f.old_blob[:12]} -> {f.new_blob[:12]}", [])]
    elif f.binary:
        hunks = [
            _hunk(
                "removal" if f.status == "D" else "source",
                0.3,
                "binary file: not inspected" + (" (deleted)" if f.status == "D" else ""),
                [],
                removal="file" if f.status == "D" else None,
            )
        ]
    elif not f.hunks:
        what = f"renames {f.old_path} without changing it" if f.status in "RC" else "changes the file mode or type"
        hunks = [_hunk("source", 0.9, what, [])]
    else:
        hunks = [judge_hunk(a, c, h) for h in f.hunks]
    return FileChanges(
        path=f.path,
        old_path=f.old_path if f.old_path != f.path else None,
        status=f.status_word,
        role=c.role,
        binary=f.binary,
        submodule=f.submodule,
        similarity=f.similarity,
        kinds=list(dict.fromkeys(h.kind for h in hunks)),
        hunks=hunks,
    )
