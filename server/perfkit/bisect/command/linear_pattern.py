"""A user's verdict pattern, run by a linear-time engine (RE2) with exactly the meaning Python gives it.

The verdict patterns are the user's, and Python's own engine can backtrack for hours on one line
(`(a+)+$`). RE2 cannot: its time is linear in the text. But the two do not read a pattern the same
way (`a{,3}`, `\\s`, Unicode `\\w` and `\\b`), so the pattern is parsed by Python's parser, and each
node is written out for RE2 with the meaning Python gives it:

- every node that takes one character (a literal, a set, `.`, `\\d`, a character folded by `(?i)`)
  becomes an explicit set of ASCII characters, computed by asking Python's own engine which of the
  128 it matches. RE2 then reads bytes (Latin-1), so its own classes and case folding never apply;
- text that is not ASCII is searched through stand-ins: each other character is replaced by an ASCII
  character that every node of the pattern (and `\\b`, for word characters) treats exactly as it
  treats the original, so the match is found at the same place and the line and the metric are
  taken from the original text. A character with no such stand-in (a pattern that names it, say),
  or a block with more than 512 runs of such characters (each costs a call into Python: a flood of
  progress bars), hands the rest of the output to Python's engine in a child process (linear_scan.py);
- what RE2 cannot express with Python's meaning is refused with the reason (`NotLinear`):
  backreferences, lookarounds, atomic groups and possessive repeats, `$` outside multi-line mode,
  repeats of something that can match nothing, counts over 1,000, a program over RE2's memory. Such
  a pattern is searched in a child process stopped at the step's deadline, as before.

Python's private parser (re._parser) is used: it is the only exact reading of a Python pattern.
Anything it answers that this file does not know is refused as not linear, never guessed.
"""

from __future__ import annotations

import codecs
import re
import threading
from dataclasses import dataclass
from typing import Any

import re2  # type: ignore[import-untyped]  # google-re2: RE2's Python binding (linear time, no backtracking)

from perfkit.bisect.command.scan import Found

try:  # the parser Python itself compiles patterns with
    from re import _compiler as _sre_compile  # type: ignore[attr-defined]
    from re import _constants as _K  # type: ignore[attr-defined]
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - another Python: every pattern goes to the child process
    _sre_parse = _sre_compile = _K = None

_ASCII = [chr(i) for i in range(128)]
_NEWLINE = 10
_MAX_MEM = 64 << 20  # RE2's memory for one pattern's program and DFA (its default is 8 MiB)
_RUNS_MAX = 512  # runs of characters outside ASCII per block given stand-ins, before handing over
_SIGNATURE_BUDGET = 4_000_000  # node checks for characters outside ASCII, per scan's patterns, before handing over


class NotLinear(Exception):
    """The pattern uses something RE2 cannot run with Python's meaning; str(exc) says what."""


@dataclass
class _Atom:
    """One node that takes one character: which ASCII characters it takes, and a Python test for others."""

    members: frozenset[int]
    test: Any  # a compiled one-character Python pattern, safe: it never backtracks


@dataclass
class Linear:
    """A pattern compiled for RE2 over ASCII text."""

    pattern: str
    flags: int
    rx: Any  # re2 regexp over Latin-1 bytes
    wider: Any | None  # the same without its leading assertions: where no match can start before
    group1: int | None  # RE2's number for Python's group 1, when the pattern has groups
    groups: int
    min_width: int  # the shortest text it matches
    atoms: list[_Atom]
    words: list[Any]  # a Python `\w` test per word-boundary flag setting the pattern uses

    def search(self, data: bytes, pos: int = 0) -> Found | None:
        """The first match in data (ASCII bytes) at or after pos, as Python's search(text, pos) finds it."""
        if not data:  # Python's \B never matches an empty text, RE2's does: ask Python, which has nothing to try
            return self._found_py(re.compile(self.pattern, self.flags).search(""))
        rx = self.rx
        if self.wider is None:
            return self._found(rx.search(data, pos))
        tries = 0
        while True:
            w = self.wider.search(data, pos)
            if w is None:
                return None
            start = w.start()
            if tries >= 16:  # a text dense with near misses: one plain search from here
                return self._found(rx.search(data, start))
            m = rx.match(data, start)
            if m is not None:
                return self._found(m)
            pos, tries = start + 1, tries + 1

    def _found_py(self, m: re.Match[str] | None) -> Found | None:
        if m is None:
            return None
        span = m.span(1) if self.groups else (-1, -1)
        return Found(m.start(), m.end(), span[0], span[1])

    def _found(self, m: Any) -> Found | None:
        if m is None:
            return None
        span = m.span(self.group1) if self.group1 is not None else (-1, -1)
        return Found(m.start(), m.end(), span[0], span[1])


class Alphabet:
    """Stand-ins for the characters outside ASCII, valid for every node of several patterns at once.

    Two characters are interchangeable for a set of patterns when every one-character node and every
    word boundary of them takes both or neither. Each ASCII character but the newline stands for its
    own kind; a character outside ASCII gets the ASCII character of its kind, or none."""

    def __init__(self, patterns: list[Linear]):
        self.atoms = [a for p in patterns for a in p.atoms]
        self.words = [w for p in patterns for w in p.words]
        self._lock = threading.Lock()
        self._standins: dict[str, str | None] = {}
        self._budget = _SIGNATURE_BUDGET
        self._by_signature: dict[tuple[bool, ...], str] = {}
        for c in _ASCII:
            if ord(c) != _NEWLINE:  # the newline is the one ASCII character with a role of its own
                self._by_signature.setdefault(self._signature(c), c)
        self._calls = threading.local()  # runs of characters outside ASCII left in this call, per thread
        self._handler = f"perfkit-standin-{id(self):x}"
        codecs.register_error(self._handler, self._replace)

    def _signature(self, c: str) -> tuple[bool, ...]:
        return tuple(a.test.match(c) is not None for a in self.atoms) + tuple(
            w.match(c) is not None for w in self.words
        )

    def standin(self, c: str) -> str | None:
        """An ASCII character every node treats as it treats c; None when there is none."""
        with self._lock:
            if c in self._standins:
                return self._standins[c]
            if self._budget <= 0:  # a flood of distinct characters: bounded work, then the child
                return None
            self._budget -= len(self.atoms) + len(self.words) + 1
            found = self._by_signature.get(self._signature(c))
            self._standins[c] = found
            return found

    def ascii_text(self, text: str) -> bytes | None:
        """text with every character outside ASCII replaced by its stand-in (same length, same places);
        None when some character has none, or when the text holds more than _RUNS_MAX runs of them (each
        run costs a call into Python: a flood of progress bars is searched faster by the child)."""
        self._calls.left = _RUNS_MAX
        try:
            return text.encode("ascii", errors=self._handler)
        except _NoStandin:
            return None

    def _replace(self, exc: UnicodeError) -> tuple[str, int]:
        if not isinstance(exc, UnicodeEncodeError):
            raise exc
        self._calls.left -= 1
        if self._calls.left < 0:
            raise _NoStandin
        out = []
        for c in exc.object[exc.start : exc.end]:
            s = self.standin(c)
            if s is None:
                raise _NoStandin
            out.append(s)
        return "".join(out), exc.end


class _NoStandin(Exception):
    pass


_ALPHABETS: dict[tuple[int, ...], Alphabet] = {}


def alphabet(patterns: list[Linear]) -> Alphabet:
    """The stand-ins of these patterns together, made once per process (patterns are cached too)."""
    key = tuple(id(p) for p in patterns)
    with _CACHE_LOCK:
        found = _ALPHABETS.get(key)
        if found is None:
            found = _ALPHABETS[key] = Alphabet(patterns)
        return found


# ---- translation -----------------------------------------------------------------------------------------


class _Writer:
    def __init__(self) -> None:
        self.atoms: dict[tuple[Any, ...], _Atom] = {}
        self.words: dict[int, Any] = {}

    def atom(self, node: tuple[Any, Any], flags: int) -> str:
        key = (_freeze(node), flags & (re.IGNORECASE | re.ASCII | re.DOTALL | re.UNICODE))
        a = self.atoms.get(key)
        if a is None:
            state = _sre_parse.State()
            state.flags = flags
            test = _sre_compile.compile(_sre_parse.SubPattern(state, [node]), flags)
            a = _Atom(frozenset(i for i, c in enumerate(_ASCII) if test.match(c) is not None), test)
            self.atoms[key] = a
        return _charset(a.members)

    def word(self, flags: int) -> None:
        key = flags & (re.ASCII | re.UNICODE)
        if key not in self.words:
            self.words[key] = re.compile(r"\w", key)

    def seq(self, items: Any, flags: int) -> str:
        return "".join(self.node(op, av, flags) for op, av in items)

    def node(self, op: Any, av: Any, flags: int) -> str:
        K = _K
        if op in (K.LITERAL, K.NOT_LITERAL, K.ANY, K.IN):
            return self.atom((op, av), flags)
        if op is K.AT:
            return self.at(av, flags)
        if op is K.BRANCH:
            return "(?:" + "|".join(self.seq(alt, flags) for alt in av[1]) + ")"
        if op is K.SUBPATTERN:
            group, add, remove, sub = av
            inner = self.seq(sub, (flags | add) & ~remove)
            return f"(?P<g{group}>{inner})" if group is not None else f"(?:{inner})"
        if op in (K.MAX_REPEAT, K.MIN_REPEAT):
            lo, hi, sub = av
            if hi > 1 and _sre_parse.SubPattern(_sre_parse.State(), list(sub)).getwidth()[0] == 0:
                raise NotLinear("a repeat of something that can match nothing")
            if lo > 1000 or (hi != _K.MAXREPEAT and hi > 1000):
                raise NotLinear("a repeat count over 1,000")
            count = f"{{{lo},}}" if hi == _K.MAXREPEAT else f"{{{lo},{hi}}}"
            return f"(?:{self.seq(sub, flags)}){count}{'?' if op is K.MIN_REPEAT else ''}"
        raise NotLinear(_WHY.get(str(op), f"the node {str(op).lower()}"))

    def at(self, code: Any, flags: int) -> str:
        K = _K
        if code is K.AT_BEGINNING:
            return "(?m:^)" if flags & re.MULTILINE else r"\A"
        if code is K.AT_BEGINNING_STRING:
            return r"\A"
        if code is K.AT_END and flags & re.MULTILINE:
            return "(?m:$)"
        if code is K.AT_END_STRING:
            return r"\z"
        if code in (K.AT_BOUNDARY, K.AT_NON_BOUNDARY):
            self.word(flags)
            return r"\b" if code is K.AT_BOUNDARY else r"\B"
        raise NotLinear("a $ outside multi-line mode" if code is K.AT_END else f"the assertion {str(code).lower()}")


_WHY = {
    "GROUPREF": "a backreference",
    "GROUPREF_EXISTS": "a conditional group",
    "ASSERT": "a lookahead or lookbehind",
    "ASSERT_NOT": "a negative lookahead or lookbehind",
    "ATOMIC_GROUP": "an atomic group",
    "POSSESSIVE_REPEAT": "a possessive repeat",
}


def _freeze(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _charset(members: frozenset[int]) -> str:
    """An RE2 set of exactly these ASCII codes, each written as \\xNN."""
    if not members:
        return r"[^\x00-\xff]"  # matches nothing
    codes = sorted(members)
    if len(codes) == 1:
        return f"\\x{codes[0]:02x}"
    runs: list[tuple[int, int]] = []
    start = prev = codes[0]
    for c in codes[1:]:
        if c != prev + 1:
            runs.append((start, prev))
            start = c
        prev = c
    runs.append((start, prev))
    return "[" + "".join(f"\\x{a:02x}" if a == b else f"\\x{a:02x}-\\x{b:02x}" for a, b in runs) + "]"


def _options() -> Any:
    o = re2.Options()
    o.encoding = re2.Options.Encoding.LATIN1
    o.log_errors = False
    o.max_mem = _MAX_MEM
    return o


def _compile(text: str) -> Any:
    try:
        return re2.compile(text.encode("ascii"), _options())
    except re2.error as exc:
        detail = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise NotLinear(f"something RE2 refuses ({detail})") from None


_CACHE: dict[tuple[str, int], Linear | NotLinear] = {}
_CACHE_LOCK = threading.Lock()


def translate(pattern: str, flags: int) -> Linear:
    """pattern (Python syntax and meaning, with flags) ready for RE2; raises NotLinear with the reason."""
    key = (pattern, flags)
    with _CACHE_LOCK:
        got = _CACHE.get(key)
    if got is None:
        try:
            got = _translate(pattern, flags)
        except NotLinear as exc:
            got = exc
        with _CACHE_LOCK:
            _CACHE[key] = got
    if isinstance(got, NotLinear):
        raise got
    return got


def _translate(pattern: str, flags: int) -> Linear:
    if _sre_parse is None:
        raise NotLinear("this Python's pattern parser is not the one perfkit knows")
    try:
        parsed = _sre_parse.parse(pattern, flags)
    except re.error as exc:
        raise NotLinear(f"a syntax Python refuses ({exc})") from None
    top = parsed.state.flags
    w = _Writer()
    items = list(parsed)
    try:
        text = w.seq(items, top)
        lead = 0
        while lead < len(items) and items[lead][0] is _K.AT:
            lead += 1
        wider = w.seq(items[lead:], top) if 0 < lead < len(items) else None
    except NotLinear:
        raise
    except (TypeError, ValueError, AttributeError, IndexError, KeyError, RecursionError) as exc:
        raise NotLinear(f"a construct perfkit cannot translate ({type(exc).__name__})") from None
    rx = _compile(text)
    groups = parsed.state.groups - 1
    min_width = parsed.getwidth()[0]
    group1 = None
    if groups:
        index = {k.decode() if isinstance(k, bytes) else k: v for k, v in rx.groupindex.items()}
        group1 = index.get("g1")
        if group1 is None:
            raise NotLinear("a first group RE2's program does not keep")
    return Linear(
        pattern=pattern,
        flags=flags,
        rx=rx,
        wider=_compile(wider) if wider is not None else None,
        group1=group1,
        groups=groups,
        min_width=min_width,
        atoms=list(w.atoms.values()),
        words=list(w.words.values()),
    )
