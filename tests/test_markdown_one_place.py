"""Markdown syntax is read in one place: perfkit.markdown.

Two fence models once disagreed with GitHub the same way ("```text" closed a fence for the
sanitiser and the lint alike) because each reader matched the syntax itself. This test reads every
string literal of the package's source (regular expressions are written as literals) and every
literal collection of strings, and fails when one outside server/perfkit/markdown/ writes the
syntax of a fence line, a heading line or a `<details>` tag as a pattern, or lists HTML tag names.
A reader that needs to know where those are asks the layer.

The PR template parser still walks lines with patterns of its own until its rewrite moves it onto
the layer; it is named below, and the test fails once it no longer needs the exemption, so the
exemption cannot outlive its reason.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import perfkit
from perfkit.markdown import html

PACKAGE = Path(perfkit.__file__).resolve().parent
PENDING = {
    "perfkit.publish.template_parts.parse": "the PR template parser walks lines; its rewrite reads the layer",
    "perfkit.publish.template_parts.words": "its angle-bracket prompt names a few tags; it moves with the parser",
}

# the syntax itself, as a pattern writes it
_SYNTAX = {
    "a fence line": re.compile(r"`\{3|~\{3|```|~~~"),
    "an ATX heading": re.compile(r"#\{1,6\}"),
    "a setext underline": re.compile(r"=\+\|-\+|-\+\|=\+"),
    "a <details> tag": re.compile(r"</?details\\[bs]", re.I),
}


def _tags_named(source: str) -> set[str]:
    """The HTML tag names a pattern lists as alternatives ('img|script|iframe')."""
    alternatives = set()
    for group in re.findall(r"[(:|]([A-Za-z0-9|]+)(?=[)|\\])", source):
        alternatives |= {w.lower() for w in group.split("|") if w}
    return alternatives & html.KNOWN


def _offences(source: str) -> list[str]:
    found = [what for what, rx in _SYNTAX.items() if rx.search(source)]
    tags = _tags_named(source)
    if len(tags) >= 3:
        found.append(f"a list of HTML tags ({', '.join(sorted(tags))})")
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
        ):
            out.add(id(body[0].value))
    return out


@cache
def _modules() -> dict[str, ast.Module]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        out[".".join(rel.parts).removesuffix(".__init__")] = ast.parse(path.read_text(encoding="utf-8"))
    return out


def _module_offences(tree: ast.Module, module: str) -> list[str]:
    out = []
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            out += [f"{module}:{node.lineno}: {what}: {node.value[:80]!r}" for what in _offences(node.value)]
        items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
        if isinstance(node, ast.Set | ast.List | ast.Tuple | ast.Dict) and items:
            words = [e.value.lower() for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            tags = [w for w in words if w in html.KNOWN]
            if len(tags) >= 3 and len(tags) * 2 >= len(words):
                out.append(f"{module}:{node.lineno}: a list of HTML tags ({', '.join(tags)})")
    return out


@cache
def _offending_modules(inside_layer: bool = False) -> dict[str, list[str]]:
    found = {}
    for module, tree in _modules().items():
        if module.startswith("perfkit.markdown") != inside_layer:
            continue
        lines = _module_offences(tree, module)
        if lines:
            found[module] = lines
    return found


def test_no_module_outside_the_layer_matches_markdown_syntax_or_lists_tags():
    outside = {m: v for m, v in _offending_modules().items() if m not in PENDING}
    assert not outside, "read these through perfkit.markdown:\n" + "\n".join(x for v in outside.values() for x in v)


def test_the_pending_exemptions_are_still_needed():
    """Once the template parser reads the layer, its entry here must go."""
    stale = sorted(set(PENDING) - set(_offending_modules()))
    assert not stale, f"no longer match Markdown syntax themselves: remove them from PENDING: {stale}"


def test_the_check_catches_what_it_looks_for():
    """The check can fail: each shape the old readers used is caught, and plain patterns are not."""
    assert _offences(r"^\s{0,3}(`{3,}|~{3,})") == ["a fence line"]
    assert _offences(r"^\s{0,3}(#{1,6})(?:\s++(.*))?$") == ["an ATX heading"]
    assert _offences(r"^\s{0,3}(=+|-+)\s*$") == ["a setext underline"]
    assert _offences(r"<details\b") == ["a <details> tag"]
    assert _offences(r"</?(?:details|summary|br|p|div|span)\b[^<>]*+>") == [
        "a list of HTML tags (br, details, div, p, span, summary)"
    ]
    assert _offences("end with '<details><summary>Details: ...</summary>'") == []  # a message, not a pattern
    assert _offences(r"(?<![\w-])(?:robust|powerful|code)(?![\w-])") == []
    tree = ast.parse('ACTIVE = {"img", "script", "iframe", "form"}\nKINDS = ("textarea", "input", "dropdown", "x")')
    assert _module_offences(tree, "m") == ["m:1: a list of HTML tags (img, script, iframe, form)"]


def test_the_layer_itself_is_found_by_the_check():
    """Run on the layer, the same check finds its patterns and its tag list: it looks where the syntax is."""
    layer = _offending_modules(inside_layer=True)
    assert "perfkit.markdown.blocks" in layer and "perfkit.markdown.html" in layer
