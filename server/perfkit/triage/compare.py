"""Compare the generated code of a known-good build output with the failing one."""

from __future__ import annotations

import difflib
import os
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Annotated

from pydantic import Field

from perfkit.errors import InputError
from perfkit.guards import limits
from perfkit.tools.spec import Progress, no_progress
from perfkit.triage.models import FileDiff, SubdirTriage, TriageReport
from perfkit.triage.normalise import Normaliser, sniff

_DIFF_WINDOW_CAP = 2_000  # lines of a changed region diffed line by line; a longer region is counted, not diffed
_TEXT_BYTES_CAP = 16 * 1024**2  # generated code is far smaller; a bigger file is compared byte for byte, unread
_MAX_ENTRIES = 50_000  # files and folders walked per build: a build output, not a file system
_CONTEXT = 3


def _folder(value: str, field: str) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise InputError(field, "is empty", "pass the build output folder of a run")
    limits.check_argument(value, field, limits.MAX_PATH_CHARS)
    p = Path(value).expanduser()
    if not p.exists():
        raise InputError(field, f"'{value}' does not exist", "pass an existing build output folder")
    if not p.is_dir():
        raise InputError(field, f"'{value}' is not a folder", "pass the build output folder, not a file in it")
    return p.resolve()


def _subdir_names(subdirs: list[str]) -> list[str]:
    if not subdirs:
        raise InputError("subdirs", "is empty", "name the subfolders to compare, for example kernels")
    if len(subdirs) > 100:
        raise InputError("subdirs", f"names {len(subdirs)} subfolders, more than 100", "name fewer, or pass '.'")
    out: list[str] = []
    for s in subdirs:
        limits.check_argument(s, "subdirs", limits.MAX_PATH_CHARS)
        rel = PurePosixPath(s.strip().replace("\\", "/"))
        if not s.strip() or rel.is_absolute() or ".." in rel.parts:
            raise InputError("subdirs", f"'{s}' is not a relative subfolder", "pass names like kernels or ptoas")
        name = str(rel)
        if name not in out:
            out.append(name)
    return out


def _inside(path: Path, top: Path) -> bool:
    try:
        real = path.resolve()
    except (OSError, RuntimeError):  # a link loop leads nowhere, so not inside
        return False
    return real == top or top in real.parents


class _Walk:
    """Files of one build folder, never following a link that leaves it, within _MAX_ENTRIES entries."""

    def __init__(self, top: Path, side: str):
        self.top, self.side = top, side
        self.entries = 0
        self.outside: list[str] = []

    def files(self, name: str) -> dict[str, Path]:
        """Relative path -> regular file under top/name (symlinked folders are not entered)."""
        root = self.top / name
        if not root.is_dir():
            return {}
        if not _inside(root, self.top):
            self.outside.append(f"{self.side}/{name}/")
            return {}
        found: dict[str, Path] = {}
        stack = [root]
        while stack:
            folder = stack.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                self._count(name)
                self._visit(entry, root, stack, found)
        return dict(sorted(found.items()))

    def _count(self, name: str) -> None:
        self.entries += 1
        if self.entries > _MAX_ENTRIES:
            raise InputError(
                "subdirs",
                f"the {self.side} build holds more than {_MAX_ENTRIES:,} files and folders under {name}/",
                "name the subfolders that hold the generated code (kernels, ptoas...) instead of a whole tree",
            )

    def _visit(self, entry: os.DirEntry[str], root: Path, stack: list[Path], found: dict[str, Path]) -> None:
        p = Path(entry.path)
        if entry.is_symlink():
            if not _inside(p, self.top):
                self.outside.append(f"{self.side}/{p.relative_to(self.top).as_posix()}")
                return
            if p.is_file():  # a link to a file of the same build; linked folders are not entered
                found[p.relative_to(root).as_posix()] = p
            return
        if entry.is_dir(follow_symlinks=False):
            stack.append(p)
        elif entry.is_file(follow_symlinks=False):
            found[p.relative_to(root).as_posix()] = p


def _read(p: Path) -> str:
    data = limits.read_regular_bytes(p, str(p), _TEXT_BYTES_CAP, "compare it by hand")
    return data.decode("utf-8", "replace")


def _same_bytes(a: Path, b: Path) -> bool:
    """Equal contents, read in chunks: build outputs hold binaries of any size."""
    import filecmp

    return filecmp.cmp(a, b, shallow=False)


def _unreadable(p: Path) -> bool:
    """Binary, or too big to read as text: listed and compared by bytes only."""
    return sniff(p) or p.stat().st_size > _TEXT_BYTES_CAP


def _same_after_normalising(a: str, b: str, norm: Normaliser, fired: set[str]) -> bool:
    """Line by line, normalising only the lines that differ: the rules never span or add lines."""
    la, lb = a.split("\n"), b.split("\n")
    if len(la) != len(lb):
        return False
    return all(x == y or norm.text(x, fired) == norm.text(y, fired) for x, y in zip(la, lb, strict=True))


def _trim(a: list[str], b: list[str]) -> tuple[int, int]:
    """Lengths of the common prefix and of the common suffix (not overlapping it): linear."""
    n = min(len(a), len(b))
    pre = 0
    while pre < n and a[pre] == b[pre]:
        pre += 1
    suf = 0
    while suf < n - pre and a[len(a) - 1 - suf] == b[len(b) - 1 - suf]:
        suf += 1
    return pre, suf


def _changed(a: list[str], b: list[str], norm: Normaliser) -> int:
    """Lines removed plus lines added after normalising: a line diff of the changed region, or, when that
    region is longer than _DIFF_WINDOW_CAP, the size of the multiset difference of its lines (linear
    either way). Lines equal before normalising are equal after, so only the raw changed region is
    normalised."""
    pre, suf = _trim(a, b)
    ma = norm.text("\n".join(a[pre : len(a) - suf])).split("\n") if len(a) - suf > pre else []
    mb = norm.text("\n".join(b[pre : len(b) - suf])).split("\n") if len(b) - suf > pre else []
    pre2, suf2 = _trim(ma, mb)
    ma, mb = ma[pre2 : len(ma) - suf2], mb[pre2 : len(mb) - suf2]
    if len(ma) > _DIFF_WINDOW_CAP or len(mb) > _DIFF_WINDOW_CAP:
        ca, cb = Counter(ma), Counter(mb)
        return sum(((ca - cb) + (cb - ca)).values())
    ops = difflib.SequenceMatcher(None, ma, mb, autojunk=False).get_opcodes()
    return sum((i2 - i1) + (j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


def _unified(name: str, a: list[str], b: list[str], na: list[str], nb: list[str], limit: int) -> tuple[str, bool]:
    """Unified diff of the original lines a -> b, grouped by where the normalised lines na -> nb differ.

    Only the changed region (after the common prefix and suffix) is diffed, with its context, so the
    time is linear in the file and bounded in the region; a region too long to diff is shown whole."""
    pre, suf = _trim(na, nb)
    lo = max(0, pre - _CONTEXT)
    hi_a, hi_b = min(len(na), len(na) - suf + _CONTEXT), min(len(nb), len(nb) - suf + _CONTEXT)
    out = [f"--- good/{name}", f"+++ bad/{name}"]
    if hi_a - lo > _DIFF_WINDOW_CAP or hi_b - lo > _DIFF_WINDOW_CAP:
        out.append(f"@@ -{lo + 1},{hi_a - lo} +{lo + 1},{hi_b - lo} @@")
        out += ["-" + ln for ln in a[lo:hi_a]] + ["+" + ln for ln in b[lo:hi_b]]
    else:
        sm = difflib.SequenceMatcher(None, na[lo:hi_a], nb[lo:hi_b], autojunk=False)
        for group in sm.get_grouped_opcodes(_CONTEXT):
            i1, i2, j1, j2 = group[0][1] + lo, group[-1][2] + lo, group[0][3] + lo, group[-1][4] + lo
            out.append(f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@")
            for tag, a1, a2, b1, b2 in group:
                if tag == "equal":
                    out += [" " + ln for ln in b[b1 + lo : b2 + lo]]
                    continue
                out += ["-" + ln for ln in a[a1 + lo : a2 + lo]]
                out += ["+" + ln for ln in b[b1 + lo : b2 + lo]]
    truncated = len(out) > limit
    if truncated:
        out = out[:limit] + [f"... {len(out) - limit} more diff lines"]
    return "\n".join(out), truncated


def triage_builds(
    good_dir: Annotated[
        str,
        Field(
            description="Build output folder of a run that passed the precision check "
            "(for example build_output/<Program>_<timestamp>)."
        ),
    ],
    bad_dir: Annotated[str, Field(description="Build output folder of the failing run.")],
    subdirs: Annotated[
        list[str], Field(description="Subfolders of both build outputs to compare; '.' compares the whole folder.")
    ] = ["kernels", "ptoas", "orchestration"],  # noqa: B006
    max_diffs: Annotated[
        int, Field(ge=0, le=50, description="How many of the most changed files get a unified diff.")
    ] = 5,
    diff_lines: Annotated[int, Field(ge=5, le=5000, description="Lines kept of each unified diff.")] = 60,
    *,
    progress: Progress = no_progress,
) -> TriageReport:
    """Compare the generated code of a known-good build output with the failing one: per subfolder, the text
    files (.cpp, .pto, .h, .py and any other text) that differ, were added or are missing, after replacing
    dates, times, build ids, hashes and the build folder's own name; binaries (.o, .so, archives, anything
    with NUL bytes or not UTF-8, any file over 16 MiB) are listed and compared byte for byte, not read as
    text. Returns short unified diffs of the most changed files and the reading: generated code differs
    (likely the compiler) or only binaries and timestamps differ (likely the runtime). Reads both folders
    only."""
    good, bad = _folder(good_dir, "good_dir"), _folder(bad_dir, "bad_dir")
    if good == bad or os.path.samefile(good, bad):
        raise InputError(
            "bad_dir",
            f"'{bad_dir}' is the same folder as good_dir",
            "pass the build output of the failing run and the one of a passing run",
        )
    names = _subdir_names(subdirs)
    if not any((good / n).is_dir() or (bad / n).is_dir() for n in names):
        raise InputError(
            "subdirs",
            f"none of {', '.join(names)} exists in either build folder",
            "pass the subfolder names your build output uses, or '.' for the whole folder",
        )
    walks = _Walk(good, good.name), _Walk(bad, bad.name)
    trees = [(n, walks[0].files(n), walks[1].files(n)) for n in names]
    outside = walks[0].outside + walks[1].outside
    warnings: list[str] = []
    if outside:
        warnings.append(
            f"{len(outside)} link(s) lead outside the build folders and were not followed: {', '.join(outside[:5])}"
        )
    run = _Comparison(Normaliser(good, bad), sum(len(set(g) | set(b)) for _, g, b in trees), progress)
    results = []
    for n, gfiles, bfiles in trees:
        st = run.subdir(n, (good / n).is_dir(), (bad / n).is_dir(), gfiles, bfiles)
        if st.in_good != st.in_bad:
            warnings.append(f"{n}/ exists only in the {'good' if st.in_good else 'bad'} build")
        elif not st.in_good:
            warnings.append(f"{n}/ exists in neither build")
        results.append(st)
    return _report(good, bad, results, run.diffs(max_diffs, diff_lines), dict(run.fired), warnings)


class _Comparison:
    """The file-by-file stage: sorts every pair into identical, timestamp-only, differ or binary."""

    def __init__(self, norm: Normaliser, total: int, progress: Progress):
        self.norm, self.total, self.progress = norm, total, progress
        self.done = 0
        self.fired: Counter[str] = Counter()
        self.candidates: list[tuple[int, str, str, Path, Path]] = []

    def subdir(
        self, n: str, in_good: bool, in_bad: bool, gfiles: dict[str, Path], bfiles: dict[str, Path]
    ) -> SubdirTriage:
        st = SubdirTriage(
            name=n,
            in_good=in_good,
            in_bad=in_bad,
            compared=0,
            identical=0,
            differ=[],
            added=[],
            missing=[],
            timestamp_only=[],
            binary_differ=[],
        )
        for rel in sorted(set(gfiles) | set(bfiles)):
            self._pair(st, n, rel, gfiles.get(rel), bfiles.get(rel))
            self.done += 1
            if self.done % 50 == 0 or self.done == self.total:
                self.progress(self.done, self.total, f"{n}/{rel}")
        return st

    def _pair(self, st: SubdirTriage, n: str, rel: str, g: Path | None, b: Path | None) -> None:
        binary = any(_unreadable(p) for p in (g, b) if p)
        if g is None or b is None:
            if binary:
                (st.binary_added if g is None else st.binary_missing).append(rel)
            else:
                (st.added if g is None else st.missing).append(rel)
        elif binary:
            if _same_bytes(g, b):
                st.binary_identical += 1
            else:
                st.binary_differ.append(rel)
        else:
            st.compared += 1
            ta, tb = _read(g), _read(b)
            rules: set[str] = set()
            if ta == tb:
                st.identical += 1
            elif _same_after_normalising(ta, tb, self.norm, rules):
                st.timestamp_only.append(rel)
                self.fired.update(rules)
            else:
                st.differ.append(rel)
                count = _changed(ta.splitlines(), tb.splitlines(), self.norm)
                self.candidates.append((count, n, rel, g, b))

    def diffs(self, max_diffs: int, diff_lines: int) -> list[FileDiff]:
        """Unified diffs of the most changed files, most changed first."""
        self.candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
        out: list[FileDiff] = []
        for count, n, rel, g, b in self.candidates[:max_diffs]:
            a, bl = _read(g).splitlines(), _read(b).splitlines()
            text, cut = _unified(
                f"{n}/{rel}",
                a,
                bl,
                self.norm.text("\n".join(a)).split("\n") if a else [],
                self.norm.text("\n".join(bl)).split("\n") if bl else [],
                diff_lines,
            )
            out.append(FileDiff(subdir=n, path=rel, changed_lines=count, diff=text, truncated=cut))
        return out


def _report(
    good: Path, bad: Path, subs: list[SubdirTriage], diffs: list[FileDiff], fired: dict[str, int], warnings: list[str]
) -> TriageReport:
    code = [(s.name, len(s.differ) + len(s.added) + len(s.missing)) for s in subs]
    changed = [(n, k) for n, k in code if k]
    noise = sum(
        len(s.timestamp_only) + len(s.binary_differ) + len(s.binary_added) + len(s.binary_missing) for s in subs
    )
    if changed:
        where = ", ".join(f"{n}/ ({k} file{'s' if k != 1 else ''})" for n, k in changed)
        verdict = (
            f"generated code differs in {where}: the compiler (superproject) most likely produced different "
            f"code; bisect it first and expect a source commit"
        )
    elif noise:
        verdict = (
            f"the generated code is the same; only {noise} binary or timestamp-only file(s) differ: the same "
            f"code behaves differently, which points at the runtime (a submodule bump)"
        )
    else:
        verdict = (
            "the generated code is identical and so are the binaries: the difference is outside these "
            "folders, most likely the runtime (a submodule bump) or the environment"
        )
    return TriageReport(
        good_dir=str(good),
        bad_dir=str(bad),
        subdirs=subs,
        generated_code_differs=bool(changed),
        reading="compiler" if changed else "runtime",
        verdict=verdict,
        diffs=diffs,
        normalised=fired,
        warnings=warnings,
    )
