"""Compare the generated code of a known-good build output with the failing one."""

from __future__ import annotations

import difflib
import os
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Annotated

from pydantic import Field

from perfkit.errors import InputError
from perfkit.toolspec import Progress, no_progress
from perfkit.triage.models import FileDiff, SubdirTriage, TriageReport
from perfkit.triage.normalise import Normaliser, sniff

_DIFF_LINE_CAP = 50_000  # beyond this many lines a file is compared as a multiset of lines, without a diff
_TEXT_BYTES_CAP = 64 * 1024**2  # generated code is far smaller; a bigger file is compared byte for byte, unread


def _folder(value: str, field: str) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise InputError(field, "is empty", "pass the build output folder of a run")
    p = Path(value).expanduser()
    if not p.exists():
        raise InputError(field, f"'{value}' does not exist", "pass an existing build output folder")
    if not p.is_dir():
        raise InputError(field, f"'{value}' is not a folder", "pass the build output folder, not a file in it")
    return p.resolve()


def _subdir_names(subdirs: list[str]) -> list[str]:
    if not subdirs:
        raise InputError("subdirs", "is empty", "name the subfolders to compare, for example kernels")
    out: list[str] = []
    for s in subdirs:
        rel = PurePosixPath(s.strip().replace("\\", "/"))
        if not s.strip() or rel.is_absolute() or ".." in rel.parts:
            raise InputError("subdirs", f"'{s}' is not a relative subfolder", "pass names like kernels or ptoas")
        name = str(rel)
        if name not in out:
            out.append(name)
    return out


def _files(root: Path, top: Path, outside: list[str]) -> dict[str, Path]:
    """Relative path -> file, without following symlinked folders; links that lead out of top are left
    unread and named in outside (a build folder is the only thing this tool reads)."""
    found: dict[str, Path] = {}
    if not root.is_dir():
        return found
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for f in sorted(filenames):
            p = Path(dirpath) / f
            if not p.is_file():
                continue
            real = p.resolve()
            if top not in real.parents:
                outside.append(f"{top.name}/{p.relative_to(top).as_posix()}")
                continue
            found[p.relative_to(root).as_posix()] = p
    return found


def _read(p: Path) -> str:
    return p.read_bytes().decode("utf-8", "replace")


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
    return all(x == y or norm.text(x, fired) == norm.text(y, fired) for x, y in zip(la, lb))


def _changed(a: list[str], b: list[str]) -> tuple[int, list[tuple[str, int, int, int, int]] | None]:
    """Changed-line count and the opcodes of a line diff (None when too big to diff)."""
    if len(a) > _DIFF_LINE_CAP or len(b) > _DIFF_LINE_CAP:
        ca, cb = Counter(a), Counter(b)
        return sum(((ca - cb) + (cb - ca)).values()), None
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum((i2 - i1) + (j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal"), ops


def _unified(name: str, a: list[str], b: list[str], na: list[str], nb: list[str], limit: int) -> tuple[str, bool]:
    """Unified diff of the original lines a -> b, grouped by where the normalised lines na -> nb differ."""
    sm = difflib.SequenceMatcher(None, na, nb, autojunk=False)
    out = [f"--- good/{name}", f"+++ bad/{name}"]
    for group in sm.get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(f"@@ -{i1 + 1},{i2 - i1} +{j1 + 1},{j2 - j1} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += [" " + ln for ln in b[b1:b2]]
                continue
            out += ["-" + ln for ln in a[a1:a2]]
            out += ["+" + ln for ln in b[b1:b2]]
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
    with NUL bytes or not UTF-8, any file over 64 MiB) are listed and compared byte for byte, not read as
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
    norm = Normaliser(good, bad)
    outside: list[str] = []
    trees = [(n, _files(good / n, good, outside), _files(bad / n, bad, outside)) for n in names]
    total = sum(len(set(g) | set(b)) for _, g, b in trees)
    done = 0
    fired: Counter[str] = Counter()
    candidates: list[tuple[int, str, str, Path, Path]] = []
    results: list[SubdirTriage] = []
    warnings: list[str] = []
    if outside:
        warnings.append(
            f"{len(outside)} file(s) are links to outside the build folders and were not read: {', '.join(outside[:5])}"
        )
    for n, gfiles, bfiles in trees:
        st = SubdirTriage(
            name=n,
            in_good=(good / n).is_dir(),
            in_bad=(bad / n).is_dir(),
            compared=0,
            identical=0,
            differ=[],
            added=[],
            missing=[],
            timestamp_only=[],
            binary_differ=[],
        )
        if st.in_good != st.in_bad:
            warnings.append(f"{n}/ exists only in the {'good' if st.in_good else 'bad'} build")
        elif not st.in_good:
            warnings.append(f"{n}/ exists in neither build")
        for rel in sorted(set(gfiles) | set(bfiles)):
            g, b = gfiles.get(rel), bfiles.get(rel)
            binary = any(_unreadable(p) for p in (g, b) if p)
            if g is None or b is None:
                target = (
                    (st.binary_added if g is None else st.binary_missing)
                    if binary
                    else (st.added if g is None else st.missing)
                )
                target.append(rel)
            elif binary:
                if _same_bytes(g, b):
                    st.binary_identical += 1
                else:
                    st.binary_differ.append(rel)
            else:
                st.compared += 1
                ta, tb = _read(g), _read(b)
                if ta == tb:
                    st.identical += 1
                else:
                    rules: set[str] = set()
                    if _same_after_normalising(ta, tb, norm, rules):
                        st.timestamp_only.append(rel)
                        fired.update(rules)
                    else:
                        st.differ.append(rel)
                        na, nb = norm.text(ta).splitlines(), norm.text(tb).splitlines()
                        count, _ = _changed(na, nb)
                        candidates.append((count, n, rel, g, b))
            done += 1
            if done % 50 == 0 or done == total:
                progress(done, total, f"{n}/{rel}")
        results.append(st)
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    diffs: list[FileDiff] = []
    for count, n, rel, g, b in candidates[:max_diffs]:
        a, bl = _read(g).splitlines(), _read(b).splitlines()
        if len(a) > _DIFF_LINE_CAP or len(bl) > _DIFF_LINE_CAP:
            diffs.append(
                FileDiff(
                    subdir=n,
                    path=rel,
                    changed_lines=count,
                    truncated=True,
                    diff=f"(not diffed: more than {_DIFF_LINE_CAP} lines; compare with `diff -u`)",
                )
            )
            continue
        text, cut = _unified(
            f"{n}/{rel}",
            a,
            bl,
            norm.text("\n".join(a)).split("\n") if a else [],
            norm.text("\n".join(bl)).split("\n") if bl else [],
            diff_lines,
        )
        diffs.append(FileDiff(subdir=n, path=rel, changed_lines=count, diff=text, truncated=cut))
    return _report(good, bad, results, diffs, dict(fired), warnings)


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
