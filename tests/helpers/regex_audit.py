"""Find every regular expression in the perfkit package and time it on blow-up inputs.

Two finders, so no pattern hides: the source is parsed (every `re.<function>(literal, ...)` call,
wherever it is) and every module is imported (every compiled pattern a module holds, in a name, a
list, a tuple or a dict, however it was built). A call whose pattern is built at run time inside a
function cannot be timed here; `dynamic_calls` lists those so a test can hold them to a reviewed set.

The inputs are built from each pattern itself: for every prefix of the pattern's sequence of items,
a short text it matches, followed by a long run of a character some repeat of the pattern consumes
(the way a nested or adjacent quantifier is baited), plus the classic runs (spaces, tokens, the
named cases). Time is measured at doubling sizes and the growth exponent between the two largest
sizes is what a test judges: 1 is linear, 2 quadratic, 3 cubic.
"""

from __future__ import annotations

import ast
import gc
import importlib
import pkgutil
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import perfkit

# The parser behind `re` (public as sre_parse before 3.11, deprecated under that name since).
sre_parse = importlib.import_module("re._parser")
C = importlib.import_module("re._constants")

PACKAGE = Path(perfkit.__file__).resolve().parent
RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"}
ANCHORED = {"match": "match", "fullmatch": "fullmatch"}


@dataclass
class Found:
    pattern: str
    flags: int
    where: set[str] = field(default_factory=set)
    modes: set[str] = field(default_factory=set)  # match, fullmatch or search (any scan over the text)


def _flags(node: ast.expr | None) -> int | None:
    """The value of a flags expression made of re.X names and |, or None when it is anything else."""
    if node is None:
        return 0
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re":
        value = getattr(re, node.attr, None)
        return int(value) if isinstance(value, re.RegexFlag) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _flags(node.left), _flags(node.right)
        return None if left is None or right is None else left | right
    return None


def _mode(name: str) -> str:
    return ANCHORED.get(name, "search")


def _modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        yield ".".join(rel.parts).removesuffix(".__init__"), path


def source_patterns() -> tuple[dict[tuple[str, int], Found], list[str]]:
    """Patterns written as literals in re.* calls, with how each is used; and the calls built at run time."""
    found: dict[tuple[str, int], Found] = {}
    dynamic: list[str] = []
    for module, path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        compiled_names: dict[str, tuple[str, int]] = {}
        scopes: dict[int, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    scopes.setdefault(id(inner), node.name)
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.func.attr in RE_FUNCTIONS
                and node.args
            ):
                continue
            where = f"{module}:{node.lineno}"
            pattern = node.args[0]
            flag_node = next((k.value for k in node.keywords if k.arg == "flags"), None)
            if flag_node is None:
                position = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "findall": 2, "finditer": 2}
                index = position.get(node.func.attr)
                if index is not None and len(node.args) > index:
                    flag_node = node.args[index]
                elif node.func.attr in {"sub", "subn"} and len(node.args) > 4:
                    flag_node = node.args[4]
                elif node.func.attr == "split" and len(node.args) > 3:
                    flag_node = node.args[3]
            flags = _flags(flag_node)
            if not (isinstance(pattern, ast.Constant) and isinstance(pattern.value, str)) or flags is None:
                dynamic.append(f"{module}:{scopes.get(id(node), '<module>')}")
                continue
            key = (pattern.value, flags)
            entry = found.setdefault(key, Found(pattern.value, flags))
            entry.where.add(where)
            if node.func.attr != "compile":
                entry.modes.add(_mode(node.func.attr))
        # how each compiled name is used: NAME.match(...) is anchored, anything else scans
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = node.value
                if (
                    isinstance(value, ast.Call)
                    and isinstance(value.func, ast.Attribute)
                    and value.func.attr == "compile"
                    and isinstance(value.func.value, ast.Name)
                    and value.func.value.id == "re"
                    and value.args
                    and isinstance(value.args[0], ast.Constant)
                    and isinstance(value.args[0].value, str)
                ):
                    flags = _flags(value.args[1] if len(value.args) > 1 else None)
                    if flags is not None:
                        compiled_names[node.targets[0].id] = (value.args[0].value, flags)
        uses: dict[str, set[str]] = {}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in compiled_names
            ):
                uses.setdefault(node.func.value.id, set()).add(_mode(node.func.attr))
            elif isinstance(node, ast.Name) and node.id in compiled_names and not isinstance(node.ctx, ast.Store):
                uses.setdefault(node.id, set())
        for name, key in compiled_names.items():
            modes = uses.get(name, set())
            # a name handed on (to a list, a helper, another module) is taken as scanned: the worst case
            found[key].modes |= modes if modes and _only_called(name, tree) else {"search"}
    return found, dynamic


def _only_called(name: str, tree: ast.Module) -> bool:
    """Whether a compiled name is only ever used as NAME.method(...) in its module."""
    called: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
            called.add(id(node.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and id(node) not in called:
            return False
    return True


def _patterns_in(value: object, depth: int = 0) -> Iterator[re.Pattern[str]]:
    if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
        yield value
    elif depth < 2 and isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _patterns_in(item, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item, depth + 1)


def runtime_patterns() -> dict[tuple[str, int], Found]:
    """Compiled patterns every module of the package holds at import, however they were built."""
    found: dict[tuple[str, int], Found] = {}
    for info in pkgutil.walk_packages(perfkit.__path__, "perfkit."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional backend (Ray) that is not installed
            continue
        for attr, value in vars(module).items():
            for compiled in _patterns_in(value):
                flags = compiled.flags & ~re.UNICODE
                entry = found.setdefault((compiled.pattern, flags), Found(compiled.pattern, flags))
                entry.where.add(f"{info.name}.{attr}")
    return found


def all_patterns() -> list[Found]:
    found, _ = source_patterns()
    for key, entry in runtime_patterns().items():
        merged = found.setdefault(key, Found(entry.pattern, entry.flags))
        merged.where |= entry.where
    for entry in found.values():
        if not entry.modes:
            entry.modes.add("search")
    return sorted(found.values(), key=lambda f: (f.pattern, f.flags))


# ---- inputs built from the pattern -------------------------------------------------------------


def _char_for(op: object, av: object, flags: int) -> str | None:
    """One character the item matches, or None when it matches no character of its own."""
    if op is C.LITERAL:
        return chr(av)  # type: ignore[arg-type]
    if op is C.NOT_LITERAL:
        return "a" if av != ord("a") else "b"
    if op is C.ANY:
        return "a"
    if op is C.IN:
        items = list(av)  # type: ignore[call-overload]
        if items and items[0][0] is C.NEGATE:
            banned = {chr(a) for o, a in items if o is C.LITERAL}
            return next(c for c in "a ,1x_" if c not in banned)
        for o, a in items:
            if o is C.LITERAL:
                return chr(a)
            if o is C.RANGE:
                return chr(a[0])
            if o is C.CATEGORY:
                return {C.CATEGORY_DIGIT: "1", C.CATEGORY_SPACE: " ", C.CATEGORY_WORD: "a"}.get(a, "!")
    return None


def _samples(items: list[tuple[object, object]], flags: int, limit: int) -> tuple[list[str], set[str]]:
    """Texts that match growing prefixes of a sequence, and the characters its repeats consume."""
    prefixes = [""]
    fillers: set[str] = set()
    for op, av in items:
        extended: list[str] = []
        for prefix in prefixes[-4:]:
            for piece in _piece(op, av, flags, fillers, limit):
                extended.append(prefix + piece)
        prefixes.extend(dict.fromkeys(extended))
        if len(prefixes) > limit:
            break
    return prefixes[:limit], fillers


_CATEGORY_CHARS = {"CATEGORY_DIGIT": "1", "CATEGORY_SPACE": " \t", "CATEGORY_WORD": "a_1"}


def _members(op: object, av: object) -> str:
    """A few characters a one-character item matches: for a class, one of each kind it names."""
    if op is C.IN:
        out = ""
        for o, a in av:  # type: ignore[attr-defined]
            if o is C.LITERAL:
                out += chr(a)
            elif o is C.RANGE:
                out += chr(a[0])
            elif o is C.CATEGORY:
                out += _CATEGORY_CHARS.get(str(a), "")
        return out[:6]
    if op is C.CATEGORY:
        return _CATEGORY_CHARS.get(str(av), "")
    return ""


def _piece(op: object, av: object, flags: int, fillers: set[str], limit: int) -> list[str]:
    char = _char_for(op, av, flags)
    if char is not None:
        return [char]
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
        low, _high, sub = av  # type: ignore[misc]
        items = list(sub)
        if len(items) == 1:
            fillers.update(_members(*items[0]))
        subs, inner = _samples(list(sub), flags, limit)
        fillers |= inner
        whole = [s for s in subs if s]
        if whole:
            fillers.add(whole[-1] if len(whole[-1]) <= 4 else whole[-1][:1])
            fillers.add(whole[-1][:1])
        return [whole[-1] * max(low, 1)] if whole else [""]
    if op in (C.SUBPATTERN, C.ATOMIC_GROUP):
        sub = av[-1] if op is C.SUBPATTERN else av  # type: ignore[index]
        subs, inner = _samples(list(sub), flags, limit)
        fillers |= inner
        return [s for s in subs if s][-3:] or [""]
    if op is C.BRANCH:
        out = []
        for alternative in av[1]:  # type: ignore[index]
            subs, inner = _samples(list(alternative), flags, limit)
            fillers |= inner
            out.extend(s for s in subs if s)
        return out[:8] or [""]
    return [""]


CLASSIC: list[tuple[str, str]] = [
    ("", " "),
    ("", "\t"),
    ("", "a"),
    ("", "a "),
    ("", "1"),
    ("", "-"),
    ("", "."),
    ("", "="),
    ("", ", "),
    ("", "x("),
    ("", '"'),
    ("", "'"),
    ("", "\n"),
    ("", " \n"),
    ("", "a:"),
    ("", "--a "),
    ("", "a=1 "),
    ("", "@a "),
    ("", "<a "),
    ("", "`"),
    ("", "*"),
    ("", "#"),
    ("", "|"),
    ("", "a."),
    ('"lr": x', " "),
    ("def f(a: ", " "),
    ("- ", " "),
    ("x = ", " "),
    ("| ", " "),
    ("export A=", " "),
]


def baits(pattern: str, flags: int) -> list[tuple[str, str, str]]:
    """(prefix, filler, suffix): the classic runs, then texts shaped by the pattern's own items.

    Each run is tried as is and followed by a character nothing expects, the ending that makes a
    backtracking engine try every way of splitting the run before it gives up.
    """
    parsed = sre_parse.parse(pattern, flags)
    prefixes, fillers = _samples(list(parsed), flags, 32)
    fillers |= {" ", "a", "1"}
    pairs = list(CLASSIC)
    for prefix in dict.fromkeys(prefixes):
        for filler in sorted(fillers):
            if filler:
                pairs.append((prefix, filler))
    return [(p, f, s) for p, f in dict.fromkeys(pairs) for s in ("", "\x00")]


# ---- timing ------------------------------------------------------------------------------------


def runner(compiled: re.Pattern[str], mode: str) -> Callable[[str], object]:
    if mode == "match":
        return compiled.match
    if mode == "fullmatch":
        return compiled.fullmatch
    return lambda text: sum(1 for _ in compiled.finditer(text))


def _best(run: Callable[[str], object], text: str, repeat: int) -> float:
    """The least CPU time of repeat runs: CPU time, not wall time, so a busy machine that takes the
    processor away mid-run does not look like a pattern that backtracks; the collector is held off."""
    best = float("inf")
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            start = time.process_time()
            run(text)
            best = min(best, time.process_time() - start)
    finally:
        if enabled:
            gc.enable()
    return best


@dataclass
class Growth:
    sizes: list[int]
    seconds: list[float]

    @property
    def exponent(self) -> float:
        """Growth between the two largest sizes measured above the clock's noise; 0 when all were tiny."""
        import math

        pairs = [(n, t) for n, t in zip(self.sizes, self.seconds, strict=True) if t >= 2e-4]
        if len(pairs) < 2:
            return 0.0
        (n1, t1), (n2, t2) = pairs[-2], pairs[-1]
        return math.log(t2 / t1) / math.log(n2 / n1)


def growth(
    run: Callable[[str], object],
    prefix: str,
    filler: str,
    suffix: str = "",
    *,
    factor: int = 4,
    top: int = 16000,
    repeat: int = 1,
    stop_at: float = 0.05,
) -> Growth:
    """Time at growing lengths from 250 characters, stopping early once one run takes stop_at seconds.

    Starting small and stopping early is what keeps a cubic pattern from holding the audit itself.
    """
    sizes, seconds = [], []
    n = 250
    while n <= top:
        text = prefix + filler * max(1, n // len(filler)) + suffix
        t = _best(run, text, repeat)
        sizes.append(n)
        seconds.append(t)
        if t > stop_at:
            break
        n *= factor
    return Growth(sizes, seconds)
