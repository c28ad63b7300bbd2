"""Which changed lines can move numbers at all, and what exactly changed in them.

A rule that fires on every line holding a numeric word would flag renames, reworded messages,
log calls and comments, and bury the one line that matters. So each changed line is first seen
as a reader sees it: prose (a comment, a docstring sentence, documentation, a log call) or code,
and for code the part that is code (string literals emptied, the trailing comment cut). A removed
line and the added line that replaces it are then compared token by token: when the only
difference is whitespace, a comment, a renamed plain identifier or the text of a message, the
pair cannot move numbers and is left out. Otherwise the differing tokens are what the highlight
shows as the change. Every step is one pass over the line, so the cost stays linear in diff size.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Protocol

from perfkit.changes.diff_parse import DiffLine, Hunk

_HASH_COMMENT = {
    ".py", ".pyx", ".pxd", ".pyi", ".sh", ".bash", ".zsh", ".cmake", ".yml", ".yaml", ".toml", ".cfg", ".ini",
    ".conf", ".r", ".rb", ".pl", ".mk", ".bzl", ".txt",
}  # fmt: skip
_SLASH_COMMENT = {
    ".c", ".cc", ".cpp", ".cxx", ".c++", ".h", ".hh", ".hpp", ".hxx", ".inl", ".cu", ".cuh", ".cl", ".metal",
    ".java", ".kt", ".scala", ".js", ".mjs", ".ts", ".rs", ".go", ".swift", ".m", ".mm", ".cs", ".td", ".mlir",
}  # fmt: skip
_HASH_NAMES = {"makefile", "gnumakefile", "cmakelists.txt", "build", "build.bazel", "workspace", "meson.build"}
# languages whose string literals are messages; in data and config files a string is the value itself
_MASKED = (_HASH_COMMENT | _SLASH_COMMENT) - {".yml", ".yaml", ".toml", ".cfg", ".ini", ".conf", ".txt"}

_STRING_OR_COMMENT = re.compile(r"\"(?:[^\"\\\n]|\\.)*+\"|'(?:[^'\\\n]|\\.)*+'|//|/\*|#")
_MARKS = {"#": ("'", '"', "#"), "//": ("'", '"', "/")}
_TOKEN = re.compile(
    r"\"(?:[^\"\\\n]|\\.)*+\"|'(?:[^'\\\n]|\\.)*+'|[A-Za-z_]\w*+|\d[\w.]*+|//|/\*|#|->|::|\S"
)  # fmt: skip
_LOG_CALL = re.compile(
    r"(?:(?:self|cls|this)(?:\.|->))?(?:_{0,2}log(?:ger)?|logging|LOG(?:GER)?|_{0,2}LOGGER|warnings|console)"
    r"\s*\.\s*(?:debug|info|warn|warning|error|exception|critical|fatal|trace|log|verbose)\s*\("
    r"|(?:V?D?LOG|LOG_[A-Z]{1,16}|spdlog::\w{1,16}|ALOG[DIWEV]?)\s*\("
    r"|std::c(?:err|log)(?!\w)|fprintf\s*\(\s*stderr"
)
IMPORT_RE = re.compile(r"(?:from\s+[\w.]{1,128}\s+)?import\s|#\s*include\b|using\s+namespace\b|use\s+\w")
_PREPROCESSOR = re.compile(r"#\s*(?:include|define|undef|if|ifdef|ifndef|elif|else|endif|pragma)\b")
_CODE_START = {
    "if", "for", "while", "return", "def", "class", "elif", "else", "with", "import", "from", "assert", "raise",
    "try", "except", "finally", "yield", "lambda", "not", "and", "or", "del", "pass", "break", "continue",
    "global", "nonlocal", "async", "await", "case", "switch", "do", "goto", "using", "namespace", "template",
    "typedef", "struct", "union", "enum", "const", "static", "public", "private", "protected", "virtual",
}  # fmt: skip
_PROSE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,.;:!?'-\u2019")
_OPEN = {",", "(", "[", "{", "=", ";", ":", "->"}
_CLOSE = {",", ")", "]", "}", ";", ":"}


@dataclass(frozen=True)
class Language:
    comment: str | None  # '#' or '//', or None when the file kind is unknown
    masks_strings: bool


def language(path: str) -> Language:
    p = PurePosixPath(path)
    name, suffix = p.name.lower(), p.suffix.lower()
    if name in _HASH_NAMES or suffix in _HASH_COMMENT:
        return Language("#", suffix in _MASKED)
    if suffix in _SLASH_COMMENT:
        return Language("//", True)
    return Language(None, False)


def _is_comment(s: str, lang: Language) -> bool:
    if not s:
        return True
    if s.startswith(("//", "/*", "* ", "*/", '"""', "'''")) or s == "*":
        return True
    if s.startswith("#"):
        return not _PREPROCESSOR.match(s) or lang.comment == "#"
    return False


def is_prose(text: str) -> bool:
    """A sentence, not code: four or more words of letters and punctuation, not opening like code.

    Lines inside a docstring or a multi-line comment look like this; no statement does."""
    s = text.strip()
    if len(s) < 12 or not _PROSE_CHARS.issuperset(s):
        return False
    words = [w for w in s.replace(",", " ").replace(".", " ").split() if w.strip(";:!?'-")]
    lettered = [w for w in words if w[0].isalpha()]
    return len(lettered) >= 4 and words[0][0].isalpha() and words[0].lower() not in _CODE_START


@dataclass(frozen=True)
class LineView:
    prose: bool  # a comment, a sentence, a log call or documentation: only named types count here
    text: str  # the line as written
    code: str  # the code: strings emptied (where they are messages) and the trailing comment cut
    unmasked: str  # the code with its strings kept: where format specs, constants and flags are read


def view(text: str, lang: Language, doc: bool) -> LineView:
    stripped = text.strip()
    if doc or _is_comment(stripped, lang) or is_prose(stripped) or _LOG_CALL.match(stripped):
        return LineView(True, text, "", "")
    if lang.comment is None or not any(c in text for c in _MARKS[lang.comment]):
        return LineView(False, text, text, text)  # no string and no comment: the line is all code
    code: list[str] = []
    last = 0
    cut = len(text)
    for m in _STRING_OR_COMMENT.finditer(text):
        t = m.group()
        if t[0] not in "\"'":
            if (t in ("//", "/*") and lang.comment == "//") or (t == "#" and lang.comment == "#"):
                cut = m.start()
                break
            continue
        code.append(text[last : m.start()] + (t[0] * 2 if lang.masks_strings else t))
        last = m.end()
    code.append(text[last:cut])
    return LineView(False, text, "".join(code), text[:cut])


def _kind(t: str) -> str:
    return "str" if t[0] in "\"'" else "id" if t[0].isalpha() or t[0] == "_" else "num" if t[0].isdigit() else "op"


class Judge(Protocol):
    """What the rules read in a piece of a line (highlights.py answers with the rule table)."""

    def plain_name(self, name: str) -> bool:
        """No rule reads this identifier (given with '(' when it is called)."""

    def same_strings(self, a: str, b: str, numeric_line: bool) -> bool:
        """The two string literals carry the same numbers (format specs, constants, flags, type names)."""

    def plain_prose(self, word: str) -> bool:
        """No rule reads this word of a comment or document."""

    def numeric(self, code: str) -> bool:
        """A rule reads this code (strings emptied): a string on such a line is a value, not a message."""


@dataclass(frozen=True)
class Pair:
    neutral: bool  # the change cannot move numbers
    old: LineView
    new: LineView

    def change(self) -> str:
        """'old -> new' of the tokens that differ, widened to the expression around them, for the reader."""
        a, b = _TOKEN.findall(self.old.unmasked or self.old.text), _TOKEN.findall(self.new.unmasked or self.new.text)
        p, s = _common_ends(a, b)
        old = _span(self.old.unmasked or self.old.text, a, p, len(a) - s)
        new = _span(self.new.unmasked or self.new.text, b, p, len(b) - s)
        return f"{old} -> {new}"


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    """How many tokens the two lists share at the start, and then at the end."""
    p = 0
    while p < len(a) and p < len(b) and a[p] == b[p]:
        p += 1
    s = 0
    while s < len(a) - p and s < len(b) - p and a[len(a) - 1 - s] == b[len(b) - 1 - s]:
        s += 1
    return p, s


def compare(old: LineView, new: LineView, judge: Judge) -> Pair:
    """How a removed line and the added line that replaces it differ."""
    if old.prose != new.prose:
        return Pair(False, old, new)
    a = _TOKEN.findall(old.text if old.prose else old.unmasked)
    b = _TOKEN.findall(new.text if new.prose else new.unmasked)
    p, s = _common_ends(a, b)
    mid_a, mid_b = a[p : len(a) - s], b[p : len(b) - s]
    if not mid_a and not mid_b:
        return Pair(True, old, new)  # whitespace or a comment
    if old.prose:
        if all(judge.plain_prose(t) for t in mid_a + mid_b):
            return Pair(True, old, new)  # reworded, with no named type coming or going
    elif len(mid_a) == len(mid_b):
        numeric: bool | None = None  # asked once, and only when a string differs

        def is_numeric() -> bool:
            nonlocal numeric
            if numeric is None:
                numeric = judge.numeric(old.code) or judge.numeric(new.code)
            return numeric

        if all(
            x == y or _plain_twin(x, y, a, b, i + p, judge, is_numeric)
            for i, (x, y) in enumerate(zip(mid_a, mid_b, strict=True))
        ):
            return Pair(True, old, new)  # a renamed plain name, or a message reworded
    return Pair(False, old, new)


def _plain_twin(
    x: str, y: str, a: list[str], b: list[str], i: int, judge: Judge, is_numeric: Callable[[], bool]
) -> bool:
    kind = _kind(x)
    if kind != _kind(y) or kind not in ("id", "str"):
        return False
    if kind == "str":
        return judge.same_strings(x, y, is_numeric())
    # a name is read with the call it makes: 'mean(' is a reduction where 'mean' alone is only a name
    call_a = "(" if i + 1 < len(a) and a[i + 1] == "(" else ""
    call_b = "(" if i + 1 < len(b) and b[i + 1] == "(" else ""
    return judge.plain_name(x + call_a) and judge.plain_name(y + call_b)


def _span(text: str, toks: list[str], lo: int, hi: int) -> str:
    """The text of toks[lo:hi], widened to the expression around it (up to three tokens each way)."""
    for _ in range(3):
        if lo > 0 and toks[lo - 1] not in _OPEN:
            lo -= 1
    for _ in range(3):
        if hi < len(toks) and toks[hi] not in _CLOSE:
            hi += 1
    if lo >= hi:  # nothing on this side: the other side added tokens here
        return "(nothing)"
    spans = [m.span() for m in _TOKEN.finditer(text)]
    out = text[spans[lo][0] : spans[hi - 1][1]]
    return out if len(out) <= 80 else out[:77] + "..."


@dataclass
class Changed:
    sign: str
    line: DiffLine
    view: LineView
    pair: Pair | None = None  # the comparison with the line it replaces, when there is one

    @property
    def change(self) -> str | None:
        return self.pair.change() if self.pair else None


def import_key(text: str) -> tuple[str, ...] | None:
    """An import line's names in sorted order (so a sorted import is the same import), or None for other lines."""
    s = text.strip()
    return tuple(sorted(_TOKEN.findall(s))) if IMPORT_RE.match(s) else None


def changed_lines(hunk: Hunk, path: str, doc: bool, judge: Judge, moved_imports: set[tuple[str, ...]]) -> list[Changed]:
    """The changed lines of a hunk that can move numbers, in patch order, each with what changed in it.

    moved_imports: import_key of the imports the file both removes and adds (sorted imports), left out."""
    out: list[Changed] = []
    lang = language(path)
    for run in _runs(hunk.lines()):
        removed = [Changed("-", ln, view(ln.text, lang, doc)) for sign, ln in run if sign == "-"]
        added = [Changed("+", ln, view(ln.text, lang, doc)) for sign, ln in run if sign == "+"]
        keys = {id(c): _key(c.view) for c in removed + added}
        before = _unwrapped(_no_trailing_commas([t for c in removed for t in keys[id(c)]]))
        after = _unwrapped(_no_trailing_commas([t for c in added for t in keys[id(c)]]))
        if before == after or (_imports(removed) and _imports(added) and sorted(before) == sorted(after)):
            continue  # the same tokens laid out again: joined, split, wrapped or re-indented lines, sorted imports
        neutral = {id(c) for c in removed + added if import_key(c.line.text) in moved_imports}
        unmatched: dict[tuple[str, ...], list[Changed]] = {}
        for r in removed:
            if id(r) not in neutral:
                unmatched.setdefault(keys[id(r)], []).append(r)
        for a in added:  # a line re-indented or moved inside the run, with its tokens unchanged
            twins = unmatched.get(keys[id(a)])
            if twins and id(a) not in neutral:
                neutral |= {id(a), id(twins.pop(0))}
        rest_r = [c for c in removed if id(c) not in neutral]
        rest_a = [c for c in added if id(c) not in neutral]
        for r, a in zip(rest_r, rest_a, strict=False):  # the i-th added line left replaces the i-th removed one
            pair = compare(r.view, a.view, judge)
            if pair.neutral:
                neutral |= {id(r), id(a)}
            else:
                r.pair = a.pair = pair
        out += [c for c in removed + added if id(c) not in neutral]
    return out


def _imports(lines: list[Changed]) -> bool:
    return bool(lines) and all(IMPORT_RE.match(c.line.text.strip()) for c in lines)


def _unwrapped(toks: list[str]) -> list[str]:
    """Tokens without the parentheses a formatter puts around a whole right-hand side (`x = (a + b)`)."""
    if len(toks) < 3 or toks[-1] != ")":
        return toks
    depth = 0
    for i in range(len(toks) - 1, -1, -1):  # the "(" that the last ")" closes
        depth += {")": 1, "(": -1}.get(toks[i], 0)
        if depth == 0:
            if i > 0 and toks[i] == "(" and toks[i - 1] in ("=", "return", ":", "+=", "-="):
                return toks[:i] + toks[i + 1 : -1]
            return toks
    return toks


def _key(v: LineView) -> tuple[str, ...]:
    """A line's tokens as a formatter cannot change them: quote style and line continuations aside."""
    toks = _TOKEN.findall(v.text if v.prose else v.unmasked)
    return tuple('"' + t[1:-1] + '"' if t[0] in "\"'" else t for t in toks if t != "\\")


def _no_trailing_commas(toks: list[str]) -> list[str]:
    """Tokens without a comma that only closes a list (`f(a, b,)`), which a formatter adds or drops."""
    return [t for i, t in enumerate(toks) if not (t == "," and i + 1 < len(toks) and toks[i + 1] in (")", "]", "}"))]


def _runs(lines: Iterable[tuple[str, DiffLine]]) -> Iterable[list[tuple[str, DiffLine]]]:
    """Runs of changed lines with no context between them: removals, then the additions that replace them."""
    run: list[tuple[str, DiffLine]] = []
    for sign, ln in lines:
        if run:
            prev_sign, prev = run[-1]
            if sign == "-":
                joined = prev_sign == "-" and ln.no == prev.no + 1
            elif prev_sign == "+":
                joined = ln.no == prev.no + 1
            else:
                joined = ln.no == prev.at
            if not joined:
                yield run
                run = []
        run.append((sign, ln))
    if run:
        yield run
