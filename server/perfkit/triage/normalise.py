"""Tell binaries from text, and strip from text what changes on every build.

Two builds of the same source differ in dates, times, build ids, random temporary folder names
and the name of the build folder itself (build_output/<Program>_<timestamp>). Those are replaced
by placeholders before comparing, so only a difference in the generated code itself counts.
The rules are listed in docs/culprit.md.
"""

from __future__ import annotations

import re
from pathlib import Path

BINARY_SUFFIXES = {
    ".o",
    ".obj",
    ".so",
    ".a",
    ".ar",
    ".lib",
    ".dll",
    ".dylib",
    ".bin",
    ".elf",
    ".out",
    ".exe",
    ".ko",
    ".pyc",
    ".pyo",
    ".zip",
    ".tar",
    ".gz",
    ".tgz",
    ".bz2",
    ".xz",
    ".zst",
    ".whl",
    ".npy",
    ".npz",
    ".pt",
    ".pth",
    ".pb",
    ".onnx",
    ".om",
    ".png",
    ".jpg",
    ".pdf",
}
_SNIFF = 8192

_MONTHS = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_DAYS = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_YEAR = r"(?:19|20)\d{2}"
_MD = r"(?:0[1-9]|1[0-2])[-/.]?(?:0[1-9]|[12]\d|3[01])"
_HMS = r"(?:[01]\d|2[0-3]):?[0-5]\d(?::?[0-5]\d(?:[.,]\d+)?)?"
RULES: list[tuple[str, re.Pattern[str], str]] = [
    (
        "key=value stamp",
        re.compile(
            r"(?i)\b(build[_ -]?(?:id|time|date|stamp)|timestamp|generated[_ ](?:at|on)|created[_ ]at|"
            r"compiled[_ ](?:at|on)|uuid)(\"?[ \t]*[:=][ \t]*)(\"[^\"\n]*\"|'[^'\n]*'|[^\s,;]+)"
        ),
        r"\1\2<stamp>",
    ),
    (
        "ISO date-time",
        re.compile(rf"(?<!\d){_YEAR}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])[T _]{_HMS}(?:Z|[+-]\d{{2}}:?\d{{2}})?"),
        "<datetime>",
    ),
    (
        "compact stamp",
        re.compile(
            rf"(?<!\d){_YEAR}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])[_-]?"
            rf"(?:[01]\d|2[0-3])[0-5]\d[0-5]\d(?:\d{{3,6}})?(?!\d)"
        ),
        "<stamp>",
    ),
    ("date", re.compile(rf"(?<!\d){_YEAR}[-/.]{_MD}(?!\d)"), "<date>"),
    ("clock time", re.compile(r"(?<![\d:\[])(?:[01]?\d|2[0-3]):[0-5]\d:[0-5]\d(?:[.,]\d+)?(?![\d:])"), "<time>"),
    ("C date", re.compile(rf"(?:{_DAYS},?[ \t]+)?{_MONTHS}[ \t]+\d{{1,2}},?[ \t]+(?:<time>[ \t]+)?\d{{4}}"), "<date>"),
    ("uuid", re.compile(r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>"),
    (
        "hash id",
        re.compile(r"(?<![0-9A-Za-z_])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{12,64}(?![0-9A-Za-z_])"),
        "<hash>",
    ),
    ("temporary folder", re.compile(r"\btmp[a-z0-9_]{6,}\b"), "<tmp>"),
]


def is_binary(path: Path, head: bytes) -> bool:
    """Binary by suffix (.o, .so.1, archives...) or by content (a NUL byte, or not UTF-8)."""
    if any(s.lower() in BINARY_SUFFIXES for s in path.suffixes):
        return True
    if b"\0" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 4  # a multi-byte character cut by the sniff window is still text
    return False


def sniff(path: Path) -> bool:
    with path.open("rb") as fh:
        return is_binary(path, fh.read(_SNIFF))


class Normaliser:
    """Applies the rules, with the two build folders' own paths and names as extra volatile text."""

    def __init__(self, *build_dirs: Path):
        names: list[str] = []
        for d in build_dirs:
            names += [str(d), d.name]
        names = sorted({n for n in names if len(n) >= 6}, key=len, reverse=True)
        self.own = re.compile("|".join(re.escape(n) for n in names)) if names else None

    def text(self, text: str, fired: set[str] | None = None) -> str:
        if self.own is not None:
            new = self.own.sub("<build>", text)
            if fired is not None and new != text:
                fired.add("build folder name")
            text = new
        for name, pattern, repl in RULES:
            new = pattern.sub(repl, text)
            if fired is not None and new != text:
                fired.add(name)
            text = new
        return text
