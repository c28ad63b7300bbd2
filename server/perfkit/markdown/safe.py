"""Text from a campaign or a repository, made safe to put into Markdown: one line, no markup that acts.

A metric name, a unit, an arm name, a candidate title or a commit subject is data. Put into a PR
body as it is, a line break and a fence in it would close the draft's code block, a `<img ...>`
would be markup, an `@team` would notify a team. `inline` turns any such text into Markdown that
reads as the text and does nothing, wherever on a line it is put (a table cell, a list item, the
start of a line):

- line breaks of every kind (LF, CR, VT, FF, NEL, U+2028, U+2029) and tabs become spaces, other
  control characters, bidi controls and zero-width characters are dropped;
- raw HTML, HTML comments and autolinks become inline code; a `<` that could start a tag is escaped;
- an `@mention` becomes inline code;
- backticks that pair with nothing, runs of tildes, `|` (a table's cell border), the `]` of a
  link and the `&` of an entity are escaped with a backslash, so nothing pairs with perfkit's own
  markup around it and the text shows as written;
- a leading character that would open a block there (`#`, `>`, `-`, `+`, `*`, `=`, `1.`, `[x]:`)
  is escaped.

Code spans the text holds stay code (with `|` escaped, as GitHub's tables require). `code` and
`code_block` write text as code with a fence longer than any backtick run inside it, and `chart`
writes a label for a Mermaid chart (one line, no double quote). `Markdown` marks text perfkit
vouches for (its own wording, the agent's draft, the repository's template carried verbatim);
`finalize` is the renderer's last step for every value it prints: Markdown passes, anything else
goes through `inline`. So a field no one thought of is made safe, not trusted.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from perfkit.markdown import spans
from perfkit.markdown.blocks import split_lines

_BREAKS = "\r\n\v\f\x85\u2028\u2029\t"
# characters that make text read differently from what it holds: bidi controls, zero-width ones
BIDI = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C))
HIDDEN = BIDI | frozenset("\u200b\u200c\u200d\u2060\ufeff\u180e")
_SPACES_RE = re.compile(r"[ ]{2,}+")
# what would open a block at the start of a line: heading, quote, list item, setext line or thematic
# break, a link reference definition
_BLOCK_START_RE = re.compile(r"#{1,6}+(?:[ ]|$)|>|[-+*](?:[ ]|$)|=++[ ]*+$|[-*_](?:[ ]*+[-*_]){2,}+[ ]*+$|\[[^\]]*+\]:")
_ORDERED_RE = re.compile(r"\d{1,9}+([.)])(?:[ ]|$)")
_TAG_START_RE = re.compile(r"<(?=[A-Za-z/!?])")
_LINK_CLOSE_RE = re.compile(r"\](?=[(\[:])")
_TILDES_RE = re.compile(r"~{2,}+")
_ENTITY_RE = re.compile(r"&(?=#?[A-Za-z0-9]{1,32}+;)")
_BACKTICKS_RE = re.compile(r"`++")
# wider than a mention GitHub surely sends (spans.MENTION_RE, what the lint reports): after any
# character but a word character, as GitHub's own filter reads text, and with what follows it up to
# a space, so that no '@' is left at the start of the text after the code span
_AT_RE = re.compile(r"(?<!\w)@[A-Za-z0-9@/._-]*+")


class Markdown(str):
    """Text perfkit vouches for as Markdown: its own wording, the agent's draft, a repository's template."""

    __slots__ = ()


def one_line(text: str) -> str:
    """text on one line: line breaks and tabs as spaces, control, bidi and zero-width characters dropped."""
    out = []
    for ch in text:
        if ch in _BREAKS:
            out.append(" ")
        elif ch in HIDDEN or (unicodedata.category(ch) == "Cc"):
            continue
        else:
            out.append(ch)
    return _SPACES_RE.sub(" ", "".join(out)).strip()


def code(text: str) -> Markdown:
    """text as one inline code span, whatever backticks it holds."""
    text = one_line(text)
    if not text:
        return Markdown("")
    longest = max((len(m.group()) for m in _BACKTICKS_RE.finditer(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return Markdown(f"{fence}{pad}{text}{pad}{fence}")


def fence_for(text: str, marker: str = "```") -> str:
    """A fence of marker's character, as long as marker at least and longer than any run of it in text:
    no line of text can close it (CommonMark closes a fence only on a run at least as long)."""
    ch, longest, run = marker[0], 0, 0
    for c in text:
        run = run + 1 if c == ch else 0
        longest = max(longest, run)
    return ch * max(len(marker), 3, longest + 1)


def code_block(text: str, info: str = "") -> Markdown:
    """text as a fenced code block whose fence no line of it can close, with a one-word info string."""
    info = re.sub(r"[^\w+.#-]", "", one_line(info))[:40]
    fence = fence_for(text)
    body = "\n".join(split_lines(text)).strip("\n")
    return Markdown(f"{fence}{info}\n{body}\n{fence}")


def _escape_plain(piece: str) -> str:
    """Backslashes kept as text, then every character that could pair with markup around it escaped."""
    piece = piece.replace("\\", "\\\\").replace("|", "\\|")
    piece = _TAG_START_RE.sub(r"\\<", _ENTITY_RE.sub(r"\\&", piece))
    piece = _LINK_CLOSE_RE.sub(r"\\]", piece)
    piece = _BACKTICKS_RE.sub(lambda m: "\\`" * len(m.group()), piece)
    return _TILDES_RE.sub(lambda m: "\\~" * len(m.group()), piece)


def _escape_text(piece: str) -> list[tuple[bool, str]]:
    """A stretch outside code and raw HTML: anything GitHub could take for a mention as code, the rest
    escaped; as (is code, text) pieces."""
    out, pos = [], 0
    for m in _AT_RE.finditer(piece):
        out += [(False, _escape_plain(piece[pos : m.start()])), (True, code(m.group()))]
        pos = m.end()
    out.append((False, _escape_plain(piece[pos:])))
    return out


def _joined(pieces: list[tuple[bool, str]]) -> str:
    """The pieces as one text; two code spans side by side would merge their backtick runs, so a space
    goes between them."""
    out: list[str] = []
    last_code = False
    for is_code, text in pieces:
        if not text:
            continue
        if is_code and last_code:
            out.append(" ")
        out.append(text)
        last_code = is_code
    return "".join(out)


def _escape_start(text: str) -> str:
    m = _ORDERED_RE.match(text)
    if m:
        return text[: m.start(1)] + "\\" + text[m.start(1) :]
    return "\\" + text if _BLOCK_START_RE.match(text) else text


def inline(text: object) -> Markdown:
    """Any text as Markdown that shows it on one line and does nothing: safe anywhere inline."""
    if isinstance(text, Markdown):
        return text
    s = one_line(str(text))
    pieces: list[tuple[bool, str]] = []
    pos = 0
    for sp in spans.scan(s):
        pieces += _escape_text(s[pos : sp.start])
        piece = s[sp.start : sp.end]
        pieces.append((True, (piece if sp.kind == "code" else code(piece)).replace("|", "\\|")))
        pos = sp.end
    pieces += _escape_text(s[pos:])
    return Markdown(_escape_start(_joined(pieces)))


def chart(text: object) -> Markdown:
    """A label inside a Mermaid chart's code block: one line, its double quotes made single."""
    return Markdown(one_line(str(text)).replace('"', "'"))


def finalize(value: Any) -> Any:
    """The renderer's last step for a printed value: Markdown as it is, numbers as written, text made inline."""
    if isinstance(value, Markdown) or value is None or isinstance(value, bool | int | float):
        return value
    return inline(value)
