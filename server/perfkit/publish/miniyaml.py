"""A strict reader for the small part of YAML that GitHub issue forms and perfkit drafts use.

perfkit depends on no YAML library, yet issue forms (`.github/ISSUE_TEMPLATE/*.yml`) and the
Markdown templates' front matter are YAML. This reader covers block mappings and sequences,
plain, quoted and block (`|`, `>`) scalars, one-line flow lists and maps, and comments. Anything
outside that subset (anchors, aliases, tags, several documents, complex keys) is refused with the
line number, never guessed: a form read wrongly would put the paragraphs under the wrong headings.
"""

from __future__ import annotations

import re
from typing import Any

_INT_RE = re.compile(r"^[-+]?\d+$")
_FLOAT_RE = re.compile(r"^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "/": "/", "0": "\0", " ": " ", "b": "\b"}


class YamlSubsetError(ValueError):
    """The text is not in the supported subset (or not YAML at all); carries a 1-based line."""

    def __init__(self, line: int, problem: str):
        self.line = line
        self.problem = problem
        super().__init__(f"line {line}: {problem}")


def loads(text: str) -> Any:
    """Parse one YAML document of the supported subset into dicts, lists and scalars."""
    return _Parser(text.replace("\r\n", "\n").replace("\r", "\n").split("\n")).document()


def _strip_comment(s: str) -> str:
    """Drop a trailing `# comment` that is outside quotes and preceded by whitespace (or starts the line)."""
    quote = None
    for i, ch in enumerate(s):
        if quote:
            if ch == quote:
                if quote == "'" and i + 1 < len(s) and s[i + 1] == "'":
                    continue
                quote = None
            elif ch == "\\" and quote == '"':
                continue
        elif ch in "\"'" and (i == 0 or s[i - 1] in " \t[{,:-"):
            quote = ch
        elif ch == "#" and (i == 0 or s[i - 1] in " \t"):
            return s[:i].rstrip()
    return s.rstrip()


def _split_top(s: str, sep: str) -> list[str]:
    """Split on sep at nesting depth zero, outside quotes."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in s:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _key_split(s: str) -> tuple[str, str] | None:
    """('key', 'rest') for a `key: rest` line, or None when the line is not a mapping entry."""
    if s[:1] in "\"'":
        q = s[0]
        end = s.find(q, 1)
        while q == "'" and end != -1 and s[end + 1 : end + 2] == "'":
            end = s.find(q, end + 2)
        if end == -1 or s[end + 1 : end + 2] != ":" or s[end + 2 : end + 3] not in ("", " "):
            return None
        return _quoted(s[: end + 1], 0), s[end + 2 :].strip()
    m = re.match(r"^([^#\[\]{},][^:]*?|[^#\[\]{},]):(?:\s+|$)(.*)$", s)
    if not m:
        return None
    return m.group(1).strip(), m.group(2).strip()


def _quoted(s: str, line: int) -> str:
    q = s[0]
    if len(s) < 2 or s[-1] != q:
        raise YamlSubsetError(line, f"unterminated quoted string {s[:40]!r}")
    body = s[1:-1]
    if q == "'":
        return body.replace("''", "'")
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "u" and i + 5 < len(body) + 0 and re.match(r"[0-9a-fA-F]{4}", body[i + 2 : i + 6]):
                out.append(chr(int(body[i + 2 : i + 6], 16)))
                i += 6
                continue
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
                continue
            raise YamlSubsetError(line, f"unsupported escape \\{nxt} in a double-quoted string")
        out.append(ch)
        i += 1
    return "".join(out)


def _plain(s: str) -> Any:
    low = s.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "~", ""):
        return None
    if _INT_RE.match(s):
        return int(s)
    if _FLOAT_RE.match(s) and any(c.isdigit() for c in s):
        return float(s)
    return s


class _Parser:
    def __init__(self, lines: list[str]):
        self.lines = lines
        self.i = 0

    # -- line helpers -------------------------------------------------------------------------
    def _eof(self) -> bool:
        return self.i >= len(self.lines)

    def _skip_blank(self) -> None:
        while not self._eof() and not _strip_comment(self.lines[self.i]).strip():
            self.i += 1

    def _indent(self) -> int:
        line = self.lines[self.i]
        body = line.lstrip(" ")
        if body.startswith("\t"):
            raise YamlSubsetError(self.i + 1, "tab used for indentation; indent with spaces")
        return len(line) - len(body)

    def _content(self) -> str:
        return _strip_comment(self.lines[self.i]).strip()

    # -- structure ----------------------------------------------------------------------------
    def document(self) -> Any:
        self._skip_blank()
        if not self._eof() and self._content() == "---":
            self.i += 1
            self._skip_blank()
        if self._eof():
            return None
        value = self.node(self._indent())
        self._skip_blank()
        if not self._eof():
            c = self._content()
            if c == "...":
                return value
            what = "a second document" if c == "---" else f"unexpected text {c[:40]!r}"
            raise YamlSubsetError(self.i + 1, f"{what}; only one document of block mappings and lists is read")
        return value

    def node(self, indent: int) -> Any:
        c = self._content()
        self._refuse(c)
        if c == "-" or c.startswith("- "):
            return self.seq(indent)
        if _key_split(c) is not None:
            return self.mapping(indent)
        self.i += 1
        return self.scalar(c, indent)

    def _refuse(self, c: str) -> None:
        if c[:1] in "&*!" or c.startswith("? ") or re.search(r":\s+[&*!]\S", c):
            raise YamlSubsetError(
                self.i + 1, "anchors, aliases, tags and complex keys are not supported; write the value out in full"
            )

    def seq(self, indent: int) -> list[Any]:
        items: list[Any] = []
        while True:
            self._skip_blank()
            if self._eof() or self._indent() < indent:
                break
            if self._indent() > indent:
                raise YamlSubsetError(self.i + 1, "unexpected indentation inside a list")
            c = self._content()
            if not (c == "-" or c.startswith("- ")):
                break
            if c == "-":
                self.i += 1
                self._skip_blank()
                items.append(self.node(self._indent()) if not self._eof() and self._indent() > indent else None)
                continue
            raw = self.lines[self.i]
            dash = raw.index("-")
            rest = raw[dash + 1 :]
            col = dash + 1 + (len(rest) - len(rest.lstrip(" ")))
            self.lines[self.i] = " " * col + rest.lstrip(" ")
            items.append(self.node(col))
        return items

    def mapping(self, indent: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while True:
            self._skip_blank()
            if self._eof() or self._indent() < indent:
                break
            if self._indent() > indent:
                raise YamlSubsetError(self.i + 1, "unexpected indentation; align the keys of a mapping")
            c = self._content()
            if c.startswith("- ") or c in ("-", "---", "..."):
                break
            self._refuse(c)
            kv = _key_split(c)
            if kv is None:
                raise YamlSubsetError(self.i + 1, f"expected 'key: value', found {c[:40]!r}")
            key, rest = kv
            if key in out:
                raise YamlSubsetError(self.i + 1, f"duplicate key {key!r}")
            self.i += 1
            if rest == "":
                self._skip_blank()
                if self._eof():
                    out[key] = None
                elif self._indent() > indent:
                    out[key] = self.node(self._indent())
                elif self._indent() == indent and (self._content() == "-" or self._content().startswith("- ")):
                    out[key] = self.seq(indent)
                else:
                    out[key] = None
            elif rest[0] in "|>":
                out[key] = self.block_scalar(rest, indent)
            else:
                out[key] = self.scalar(rest, indent)
        return out

    # -- scalars ------------------------------------------------------------------------------
    def scalar(self, s: str, indent: int) -> Any:
        line = self.i  # the scalar's line is self.i - 1 (already consumed); 1-based that is self.i
        if s[:1] in "[{":
            close = "]" if s[0] == "[" else "}"
            while _balance(s) > 0 and not self._eof():
                s += " " + self._content()
                self.i += 1
            if _balance(s) != 0 or not s.endswith(close):
                raise YamlSubsetError(line, f"unclosed or malformed flow collection {s[:40]!r}")
            return self.flow(s, line)
        if s[:1] in "\"'":
            q = s[0]
            while not _closed_quote(s) and not self._eof():
                nxt = self.lines[self.i].strip()
                s = s + ("\n" if not nxt else " ") + nxt
                self.i += 1
            return _quoted(s, line)
        # plain scalar: continuation lines are indented deeper than the key
        parts = [s]
        while not self._eof():
            raw = self.lines[self.i]
            if not raw.strip():
                j = self.i
                while j < len(self.lines) and not self.lines[j].strip():
                    j += 1
                if (
                    j < len(self.lines)
                    and len(self.lines[j]) - len(self.lines[j].lstrip(" ")) > indent
                    and _key_split(_strip_comment(self.lines[j]).strip()) is None
                ):
                    parts.append("\n")
                    self.i = j
                    continue
                break
            if self._indent() <= indent:
                break
            c = self._content()
            if _key_split(c) is not None or c.startswith("- "):
                raise YamlSubsetError(self.i + 1, "unexpected indentation after a value")
            parts.append(c)
            self.i += 1
        if len(parts) == 1:
            return _plain(s)
        text = ""
        for p in parts:
            text += p if p == "\n" or not text or text.endswith("\n") else " " + p
        return text

    def flow(self, s: str, line: int) -> Any:
        s = s.strip()
        inner = s[1:-1].strip()
        if s[0] == "[":
            return [self.flow_item(p.strip(), line) for p in _split_top(inner, ",") if p.strip()]
        out: dict[str, Any] = {}
        for p in _split_top(inner, ","):
            if not p.strip():
                continue
            kv = _key_split(p.strip())
            if kv is None:
                raise YamlSubsetError(line, f"expected 'key: value' in {s[:40]!r}")
            out[kv[0]] = self.flow_item(kv[1], line)
        return out

    def flow_item(self, p: str, line: int) -> Any:
        if p[:1] in "[{":
            return self.flow(p, line)
        if p[:1] in "\"'":
            return _quoted(p, line)
        if p[:1] in "&*!":
            raise YamlSubsetError(line, "anchors, aliases and tags are not supported")
        return _plain(p)

    def block_scalar(self, header: str, parent_indent: int) -> str:
        m = re.match(r"^([|>])([+-]?)(\d?)([+-]?)$", header)
        if not m:
            raise YamlSubsetError(self.i, f"malformed block scalar header {header!r}")
        style, chomp = m.group(1), (m.group(2) or m.group(4))
        explicit = int(m.group(3)) if m.group(3) else None
        raw: list[str] = []
        block_indent = parent_indent + explicit if explicit else None
        while not self._eof():
            line = self.lines[self.i]
            if not line.strip():
                raw.append("")
                self.i += 1
                continue
            ind = len(line) - len(line.lstrip(" "))
            if block_indent is None:
                if ind <= parent_indent:
                    break
                block_indent = ind
            if ind < block_indent:
                break
            raw.append(line[block_indent:])
            self.i += 1
        # trailing blank lines belong to chomping, and a following key must not see them as content
        trailing = 0
        while raw and raw[-1] == "":
            raw.pop()
            trailing += 1
        if style == "|":
            body = "\n".join(raw)
        else:
            body = ""
            prev_blank = True
            for ln in raw:
                if ln == "":
                    body += "\n"
                    prev_blank = True
                elif ln.startswith(" ") or prev_blank:
                    body += ("\n" if ln.startswith(" ") and body and not body.endswith("\n") else "") + ln
                    prev_blank = False
                else:
                    body += " " + ln
        if chomp == "-":
            return body
        if chomp == "+":
            return body + "\n" + "\n" * trailing if body else "\n" * trailing
        return body + "\n" if body else ""


def _balance(s: str) -> int:
    depth, quote = 0, None
    for ch in s:
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
    return depth


def _closed_quote(s: str) -> bool:
    q = s[0]
    i = 1
    while i < len(s):
        if q == '"' and s[i] == "\\":
            i += 2
            continue
        if s[i] == q:
            if q == "'" and s[i + 1 : i + 2] == "'":
                i += 2
                continue
            return True
        i += 1
    return False
