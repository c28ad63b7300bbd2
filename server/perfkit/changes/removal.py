"""Decide whether a hunk deletes code, and what it deletes (a function, a guard, a branch, a call).

Lines a hunk deletes and adds back with other indentation (the body of an unwrapped `if`) are
kept, not removed; lines moved elsewhere were taken out by the caller before this runs. What is
left is the net deletion, and its first lines say what kind of code it was.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Set
from dataclasses import dataclass

from perfkit.changes.diff_parse import DiffLine
from perfkit.changes.models import RemovalShape
from perfkit.changes.moved import norm

_DEF_RE = re.compile(
    r"^\s*(?:async\s+def|def|class)\s+([A-Za-z_]\w*)"
    r"|^\s*(?:export\s+)?function\s+([A-Za-z_$][\w$]*)"
    r"|^\s*(?:[\w:<>*&,~]+\s+)+\**&?([A-Za-z_~][\w:~]*)\s*\([^;]*\)\s*(?:const\s*)?"
    r"(?:override\s*)?\{?\s*$"
)
_IF_RE = re.compile(r"^\s*if\b")
_BRANCH_RE = re.compile(r"^\s*(?:\}\s*)?(?:if|elif|else|switch|case|try|except|catch|finally|for|while|with|default)\b")
_GUARD_LINE_RE = re.compile(r"^\s*(?:assert\b|static_assert\b|[A-Z][A-Z0-9_]*(?:CHECK|ASSERT)\w*\s*\(|raise\b|throw\b)")
_EXIT_RE = re.compile(r"^\s*(?:raise|return|continue|break|throw|sys\.exit|exit|abort)\b|\b(?:warn|warning|error)\s*\(")
_IMPORT_RE = re.compile(r"^\s*(?:import\s+\w|from\s+[\w.]+\s+import\b|#\s*include\b|using\s+namespace\b)")
_CALL_RE = re.compile(r"^\s*+(?:await\s+|return\s+)?[\w.\[\]\"'>:-]*\w\s*+\(.*\)\s*+;?\s*+$")
_COMMENT_RE = re.compile(r"^\s*(?:#|//|/\*|\*|<!--|\"\"\"|''')")
_STATEMENTS = {
    "return",
    "await",
    "yield",
    "raise",
    "not",
    "else",
    "new",
    "delete",
    "throw",
    "assert",
    "print",
    "if",
    "elif",
    "while",
    "for",
    "case",
    "and",
    "or",
    "in",
    "is",
    "lambda",
    "with",
    "del",
    "goto",
    "co_await",
    "co_return",
    "using",
    "typedef",
    "sizeof",
}
_KEYWORDS = {"if", "for", "while", "switch", "return", "catch", "sizeof", "elif", "with", "assert", "print"}


def is_code(text: str) -> bool:
    s = text.strip()
    return bool(s) and not _COMMENT_RE.match(s) and s not in {"{", "}", "};", ")", "]", "pass", "..."}


def defined_name(text: str) -> str | None:
    """The function or class a line starts to define (Python, JavaScript, C-like), if any."""
    m = _DEF_RE.match(text)
    if not m:
        return None
    if m.group(3) and text.split(None, 1)[0] in _STATEMENTS:  # `return f(x)`, `await g(y)`: calls
        return None
    name = next(g for g in m.groups() if g)
    return None if name in _KEYWORDS else name.split("::")[-1]


@dataclass
class Net:
    removed: list[DiffLine]
    added: list[DiffLine]
    kept: list[DiffLine]  # deleted lines added back within the hunk (re-indented)


def net_lines(
    removed: list[DiffLine],
    added: list[DiffLine],
    moved_removed: Set[int] = frozenset(),
    moved_added: Set[int] = frozenset(),
) -> Net:
    """Split a hunk into lines really deleted, really added, and deleted-then-re-added."""
    rem = [d for d in removed if d.no not in moved_removed]
    add = [d for d in added if d.no not in moved_added]
    pool = Counter(norm(d.text) for d in add if norm(d.text))
    kept, net_removed = [], []
    for d in rem:
        k = norm(d.text)
        if k and pool[k] > 0:
            pool[k] -= 1
            kept.append(d)
        else:
            net_removed.append(d)
    back = Counter(norm(d.text) for d in kept)
    net_added = []
    for d in add:
        k = norm(d.text)
        if k and back[k] > 0:
            back[k] -= 1
        else:
            net_added.append(d)
    return Net(net_removed, net_added, kept)


@dataclass
class Verdict:
    shape: RemovalShape
    confidence: float
    reason: str
    evidence: list[DiffLine]


def judge(net: Net, whole_file: bool) -> Verdict | None:
    """A removal verdict for a hunk, or None when it is not a deletion of code."""
    code_removed = [d for d in net.removed if is_code(d.text)]
    code_added = [d for d in net.added if is_code(d.text)]
    if not code_removed:
        return None
    if whole_file and not code_added:
        return Verdict("file", 0.9, f"deletes the whole file ({len(code_removed)} lines of code)", code_removed[:3])
    names = [n for n in (defined_name(d.text) for d in code_removed) if n]
    if code_added:
        added_text = "\n".join(d.text for d in code_added)
        gone = [n for n in names if not re.search(rf"\b{re.escape(n)}\b", added_text)]
        if gone:
            heads = [d for d in code_removed if defined_name(d.text) in gone]
            return Verdict("function", 0.6, f"deletes {_list(gone)} and adds other code", heads[:5])
        return None
    return _shape(code_removed, names, bool(net.kept))


def _shape(code: list[DiffLine], names: list[str], kept: bool) -> Verdict:
    if names:
        heads = [d for d in code if defined_name(d.text)]
        return Verdict("function", 0.9, f"deletes {_list(names)}", heads[:5])
    conds = [d for d in code if _IF_RE.match(d.text)]
    guards = [d for d in code if _GUARD_LINE_RE.match(d.text)]
    exits = [d for d in code if _EXIT_RE.search(d.text)]
    if conds:
        why = (
            "drops the condition and keeps its body"
            if kept and len(code) == len(conds)
            else "returns or raises early"
            if exits
            else "handles a special case"
        )
        return Verdict(
            "guard", 0.85, f"deletes an if-block that {why} ({conds[0].text.strip()[:60]})", (conds + exits)[:5]
        )
    if guards:
        return Verdict("guard", 0.85, "deletes a check (assert, raise or CHECK)", guards[:5])
    branches = [d for d in code if _BRANCH_RE.match(d.text)]
    if branches:
        return Verdict("branch", 0.85, f"deletes a branch ({branches[0].text.strip()[:60]})", branches[:5])
    if all(_IMPORT_RE.match(d.text) for d in code):
        return Verdict("import", 0.8, f"deletes {len(code)} import line(s)", code[:5])
    if all(_CALL_RE.match(d.text) and not re.match(r"^\s*[\w.\[\]]+\s*=[^=]", d.text) for d in code):
        return Verdict("call", 0.8, f"deletes {len(code)} call(s)", code[:5])
    return Verdict("lines", 0.7, f"deletes {len(code)} line(s) of code", code[:5])


def _list(names: list[str]) -> str:
    shown = ", ".join(names[:4]) + (" ..." if len(names) > 4 else "")
    return f"definition{'s' if len(names) > 1 else ''} {shown}"
