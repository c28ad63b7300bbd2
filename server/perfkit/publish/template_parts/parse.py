"""Cut a PR template into parts, each with a kind, in one pass over its lines.

The scan keeps three states, as GitHub renders them: an open code fence, an open HTML comment and
the depth of `<details>` blocks. A heading inside a fence, a comment or a `<details>` block is the
template's text, not a question. An unterminated comment or block runs to the end of the template
(as GitHub shows it) and is still one part. Each line is looked at a bounded number of times, so a
template of any shape parses in time linear in its size.
"""

from __future__ import annotations

import re

from perfkit.markdown import html
from perfkit.publish import template_lines as tl
from perfkit.publish.template_parts import links, words
from perfkit.publish.template_parts.kinds import Box, Kind, Part
from perfkit.repo.template_text import BOX_RE, FENCE_RE, norm_heading

_ATX_RE = re.compile(r"^\s{0,3}(#{1,6})(?:\s++(.*))?$")
_SETEXT_RE = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_LABEL_RE = re.compile(r"^\s{0,3}(?:[-*+]\s+)?(\*\*|__)(?P<title>[^*_\n]{2,160}?)(?:\1)(?P<rest>.*)$")
_ITEM_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_DETAILS_OPEN = re.compile(r"<details\b", re.I)
_DETAILS_CLOSE = re.compile(r"</details\s*>", re.I)
_SUMMARY = re.compile(r"^\s*<summary\b.*</summary\s*>\s*$", re.I)
_MARKUP = re.compile(
    r"^\s*(?:</?details\b[^>]*>|<summary\b.*?</summary\s*>|</?p>|<br\s*/?>|<a name=[^>]*>\s*</a>|<hr\s*/?>)+\s*$", re.I
)
_LABEL_LEVEL = 7
_FIELD = re.compile(r"^\s*(?:[-*+]\s+)?[A-Za-z][^:\n]{0,60}:\s*$")
_AI_LABEL = re.compile(r"\b(?:ai|a\.i\.|llms?|agents?|copilot|generative)\b", re.I)


class _Parts:
    def __init__(self) -> None:
        self.parts: list[Part] = []
        self.gap = 0
        self.details = 0

    def add(self, kind: Kind, start: int, lines: list[str], **kw: object) -> Part:
        p = Part(id=f"p{len(self.parts) + 1}", kind=kind, start=start, lines=lines, gap=self.gap, **kw)  # type: ignore[arg-type]
        p.in_details = self.details > 0
        self.parts.append(p)
        self.gap = 0
        return p

    def last(self) -> Part | None:
        return self.parts[-1] if self.parts else None


def _comment_end(lines: list[str], i: int) -> int:
    """Index of the line that closes the comment opened on line i (the last line when it never closes)."""
    ln = lines[i]
    start = ln.find("<!--")
    if ln.find("-->", start + 4) != -1:
        return i
    for j in range(i + 1, len(lines)):
        if "-->" in lines[j]:
            return j
    return len(lines) - 1


def _fence_end(lines: list[str], i: int, mark: str) -> tuple[int, bool]:
    """(index of the line that closes the fence opened on line i, whether one does): unclosed, the
    block runs to the last line."""
    for j in range(i + 1, len(lines)):
        m = FENCE_RE.match(lines[j])
        if (
            m
            and m.group(1)[0] == mark[0]
            and len(m.group(1)) >= len(mark)
            and not lines[j].strip()[len(m.group(1)) :].strip()
        ):
            return j, True
    return len(lines) - 1, False


def _item_end(lines: list[str], k: int) -> int:
    """Last line of the box item at k: wrapped lines indented under it belong to it."""
    indent = len(lines[k]) - len(lines[k].lstrip())
    end = k
    for j in range(k + 1, len(lines)):
        ln = lines[j]
        if not ln.strip() or BOX_RE.match(ln) or _ITEM_RE.match(ln) or ln.lstrip().startswith(("#", "<", "`", "~")):
            break
        if len(ln) - len(ln.lstrip()) < indent + 2:
            break
        end = j
    return end


def _heading(lines: list[str], i: int, prev_blank: bool) -> tuple[int, str, int] | None:
    """(level, title, line count) when line i starts a heading."""
    hm = _ATX_RE.match(lines[i])
    if hm:
        title = html.strip_comments(hm.group(2) or "").rstrip().rstrip("#").strip()
        return len(hm.group(1)), title, 1
    ln = lines[i]
    if (
        i + 1 < len(lines)
        and ln.strip()
        and prev_blank
        and not BOX_RE.match(ln)
        and _SETEXT_RE.match(lines[i + 1])
        and not re.match(r"^\s*([-*+>|]|\d+[.)])\s", ln)
        and not ln.lstrip().startswith("<")
    ):
        return (1 if lines[i + 1].strip()[0] == "=" else 2), ln.strip(), 2
    return None


def _label(line: str) -> tuple[str, str] | None:
    """(title, the rest of the line) for a bold label: '**What does this PR do?**', '**Description**: text'."""
    m = _LABEL_RE.match(line)
    if not m:
        return None
    title, rest = m.group("title").strip(), m.group("rest")
    if title.endswith((":", "?")):
        return title.rstrip(":").strip(), rest.strip()
    # '**Label**: text', '**Label** *(optional ...)*: fixes #'
    after = re.match(r"^\s*(?:[*_]?\([^\n]{0,300}?\)[*_]?\s*)?:\s*(.*)$", rest)
    if after:
        said = after.group(1).strip()
        if _ITEM_RE.match(line) and len(html.strip_comments(said).split()) > 8:
            return None  # '- **New features**: a linked issue is required ...': a sentence, read by its words
        return title, said
    if not rest.strip() and len(title) <= 60 and "://" not in title and not words.is_prompt(title):
        return title, ""
    return None


def _label_over_prompt(lines: list[str], i: int, prev_blank: bool) -> tuple[str, str] | None:
    """'**Describe the bug**' alone on its line, after a blank line, over the paragraph that explains it:
    a label, whatever its words (the paragraph under it is its prompt)."""
    m = _LABEL_RE.match(lines[i])
    if not (m and prev_blank and not m.group("rest").strip() and i + 1 < len(lines) and lines[i + 1].strip()):
        return None
    title = m.group("title").strip().rstrip(":?").strip()
    nxt = lines[i + 1]
    if "://" in title or len(title) > 80 or BOX_RE.match(nxt) or _LABEL_RE.match(nxt) or _ATX_RE.match(nxt):
        return None
    return title, ""


def _inline_kind(rest: str) -> Kind | None:
    if not rest:
        return None
    visible = html.strip_comments(rest).strip()
    if links.is_link(rest) or links.inline_link(visible):
        return "link"
    if not visible:
        return "prompt"  # only a comment: an instruction
    if tl.ai_value(rest) is not None:
        return "ai-value"
    if words.is_prompt(visible) or words.is_bracket(visible):
        return "prompt"
    return "text"


def _classify_block(text: str) -> Kind:
    """A paragraph or list item outside comments: what it is, from its words.

    Closed world: structure (a link line, a process or legal note, an AI-use value) is recognised by
    its words; a one-line field, an example item and an instruction by theirs; whatever is left is
    'text', which the fill treats as the template's instruction, never as words to post."""
    visible = html.strip_comments(text).strip()
    first = text.lstrip().split("\n", 1)[0]
    if links.is_link(first) or (len(text.split("\n")) == 1 and links.find(first)):
        return "link"
    if tl.ai_value(first) is not None:
        return "ai-value"
    if "<!--" in text and visible.rstrip("*_ ").endswith(":") and _AI_LABEL.search(visible):
        return "ai-value"  # 'AI usage disclosure: <!-- YES / NO, and how -->'
    if not visible:
        return "prompt"
    rows = [ln.strip() for ln in text.split("\n") if ln.strip()]
    if len(rows) >= 2 and all(r.startswith("|") for r in rows) and any(re.search(r"\|\s*\|", r) for r in rows[2:]):
        return "prompt"  # a table skeleton with empty cells, to be filled in: the answer replaces it
    if words.is_quote(first):
        inner = re.sub(r"(?m)^[ \t]*+>[ \t]?", "", visible)
        inner = re.sub(r"^\s*\[!\w+\]\s*", "", inner)  # a GitHub alert ('> [!NOTE]') is read by what it says
        if words.is_prompt(inner):
            return "prompt"
        return "process" if words.is_process(inner) or words.is_legal(inner) else "text"
    lines = [ln for ln in visible.split("\n") if ln.strip()]
    if all(words.field_label(ln) for ln in lines):
        return "field"  # 'Device: <BLANK>', '* GPU:': a value for the author to give
    if words.is_instruction(visible):
        return "prompt"
    if words.is_legal(visible) or (words.is_process(visible) and not words.is_bracket(visible)):
        return "process"
    if words.is_prompt(visible):
        return "prompt"
    if all(words.is_example_item(ln) for ln in lines):
        return "example"
    return "text"


def parse(text: str) -> list[Part]:
    """The template as parts, in order; blank lines are counted in each part's gap."""
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    out = _Parts()
    i = 0
    prev_blank = True
    while i < len(lines):
        ln = lines[i]
        if not ln.strip():
            out.gap += 1
            prev_blank = True
            i += 1
            continue
        fm = FENCE_RE.match(ln)
        if fm:
            end, shut = _fence_end(lines, i, fm.group(1))
            block = lines[i : end + 1]
            inner = [x.strip() for x in (block[1:-1] if shut else block[1:]) if x.strip()]  # unclosed: to the end
            # only comments in a block: an example to fill in, when it names its language or asks in words;
            # only words asking ("Paste the log here", with its translation): a prompt in a box
            comments = bool(inner) and all(x.startswith(("#", "//")) for x in inner)
            labelled = bool(ln.strip()[len(fm.group(1)) :].strip())
            asks = comments and (labelled or words.is_prompt(inner[0].lstrip("#/ ")))
            said = [x for x in inner if x.isascii()]
            asks = asks or (0 < len(inner) <= 4 and bool(said) and all(words.is_prompt(x) for x in said))
            out.add("prompt" if asks else "code", i, block)
            i, prev_blank = end + 1, False
            continue
        if ln.lstrip().startswith("<!--"):
            end = _comment_end(lines, i)
            block = lines[i : end + 1]
            tail = block[-1][block[-1].find("-->") + 3 :].strip() if "-->" in block[-1] else ""
            if not tail:
                body = "\n".join(block)
                opts = words.comment_options(body)
                if opts:
                    out.add("options", i, block, hidden=True, options=opts)
                else:
                    out.add("prompt", i, block, hidden=True)
                i, prev_blank = end + 1, False
                continue
        head = None if out.details else _heading(lines, i, prev_blank)
        if head:
            level, title, n = head
            out.add("heading", i, lines[i : i + n], title=title, level=level, style="atx" if n == 1 else "setext")
            i, prev_blank = i + n, False
            continue
        if _MARKUP.match(ln) or _DETAILS_OPEN.search(ln) or _DETAILS_CLOSE.search(ln):
            opened = len(_DETAILS_OPEN.findall(ln))
            closed = len(_DETAILS_CLOSE.findall(ln))
            if closed and not opened:
                out.details = max(0, out.details - closed)
            out.add("details", i, [ln])
            out.details = max(0, out.details + opened - (closed if opened else 0))
            i, prev_blank = i + 1, False
            continue
        if BOX_RE.match(ln):
            i = _checklist(out, lines, i)
            prev_blank = False
            continue
        lab = None if out.details else _label(ln) or _label_over_prompt(lines, i, prev_blank)
        if lab:
            title, rest = lab
            out.add(
                "heading",
                i,
                [ln],
                title=title,
                level=_LABEL_LEVEL,
                style="label",
                inline=rest,
                inline_kind=_inline_kind(rest),
            )
            i, prev_blank = i + 1, False
            continue
        i = _block(out, lines, i)
        prev_blank = False
    _options_from_boxes(out.parts)
    _leads(out.parts)
    return _options_from_bullets(out.parts)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _leads(parts: list[Part]) -> None:
    """A list item right over boxes nested under it leads them, and items nested under a box explain it:
    both are the list's structure, kept with it."""
    box: Part | None = None
    for p in parts:
        if p.kind in ("checklist", "options") and p.boxes:
            box = p
            continue
        if (
            box is not None
            and p.gap == 0
            and p.kind in ("text", "example", "prompt")
            and not p.hidden
            and _ITEM_RE.match(p.lines[0])
            and _indent(p.lines[0]) > _indent(box.lines[-1] if _ITEM_RE.match(box.lines[-1]) else box.lines[0])
        ):
            p.lead = True
            continue
        box = None
    for a, b in zip(parts, parts[1:], strict=False):
        if (
            a.kind in ("text", "example", "prompt")
            and not a.hidden
            and b.kind in ("checklist", "options")
            and b.gap == 0
            and _ITEM_RE.match(a.lines[0])
            and _indent(b.lines[0]) > _indent(a.lines[0])
        ):
            a.lead = True


def _checklist(out: _Parts, lines: list[str], i: int) -> int:
    """Consecutive box items (wrapped and nested ones included) as one part; a blank line between items
    of the same list does not end it."""
    start, j = i, i
    boxes: list[Box] = []
    while j < len(lines):
        m = BOX_RE.match(lines[j])
        if not m:
            if not lines[j].strip() and j + 1 < len(lines) and BOX_RE.match(lines[j + 1]):
                j += 1
                continue
            if (
                _ITEM_RE.match(lines[j])
                and j + 1 < len(lines)
                and BOX_RE.match(lines[j + 1])
                and lines[j + 1].startswith((" ", "\t"))
            ):
                # '- Select one of the following.' between nested boxes ends this list
                break
            break
        end = _item_end(lines, j)
        text = " ".join([m.group("text")] + [lines[k].strip() for k in range(j + 1, end + 1)])
        boxes.append(Box(index=len(boxes), line=j, end=end, text=text))
        j = end + 1
    out.add("checklist", start, lines[start:j], boxes=boxes, options=[b.text for b in boxes])
    return j


def _block(out: _Parts, lines: list[str], i: int) -> int:
    """A paragraph, or one list item with its continuation lines, up to the next thing of another kind."""
    j = i + 1
    item = bool(_ITEM_RE.match(lines[i]))
    while j < len(lines):
        ln = lines[j]
        if not ln.strip() or FENCE_RE.match(ln) or BOX_RE.match(ln) or _ATX_RE.match(ln) or ln.lstrip().startswith("<"):
            break
        if _ITEM_RE.match(ln) or _label(ln) or links.is_link(ln) or words.is_quote(ln) != words.is_quote(lines[i]):
            break
        if item and not ln.startswith((" ", "\t")):
            break
        if _SETEXT_RE.match(ln) and not item:
            break
        j += 1
    block = lines[i:j]
    # a comment opened inside the block and left open swallows what follows, as GitHub shows it
    if "<!--" in block[-1] and block[-1].rfind("-->") < block[-1].rfind("<!--"):
        j = _comment_end(lines, j - 1) + 1
        block = lines[i:j]
    kind = _classify_block("\n".join(block))
    if kind == "field" and len(block) > 1:  # one part per field, so each answers by its own id and label
        for k, ln in enumerate(block):
            out.add("field", i + k, [ln])
        return j
    out.add(kind, i, block)
    return j


def _options_from_boxes(parts: list[Part]) -> None:
    """A checklist is an option list when the line before it, or its heading, says to pick one."""
    owner: Part | None = None
    prev: Part | None = None
    for p in parts:
        if p.kind == "heading":
            owner = p
        elif p.kind == "checklist" and len(p.boxes) >= 2:
            said = prev is not None and prev.kind in ("prompt", "text") and words.asks_one_of(prev.text)
            titled = (
                owner is not None
                and prev is owner
                and words.is_kind_title(norm_heading(owner.title or ""))
                and all(len(b.text.split()) <= 8 for b in p.boxes)
            )
            yes_no = [b for b in p.boxes if re.match(r"^\W*(?:yes|no)\b", b.text, re.I)]
            if said and prev is not None:
                prev.kind = "text"  # 'Select one of the following.' leads its list: structure, kept with it
            if said or titled or len(yes_no) >= 2 or (owner is not None and words.asks_one_of(owner.title or "")):
                p.kind = "options"
                p.options = [b.text for b in p.boxes]
        prev = p


_BULLET = re.compile(r"^[ \t]*+[-*+][ \t]++(?!\[)(.*\S)[ \t]*+$")


def _options_from_bullets(parts: list[Part]) -> list[Part]:
    """Plain bullets after 'delete the options that do not apply' are an option list: the answer keeps
    the chosen bullets. Consecutive one-line bullets are merged into one part (ids renumbered)."""
    out: list[Part] = []
    k = 0
    while k < len(parts):
        p = parts[k]
        out.append(p)
        k += 1
        if p.kind not in ("prompt", "text") or not words.asks_to_delete_options(p.text):
            continue
        run: list[Part] = []
        while k < len(parts) and parts[k].kind in ("text", "prompt", "process") and len(parts[k].lines) == 1:
            m = _BULLET.match(parts[k].lines[0])
            if not m or (run and parts[k].gap > 1):
                break
            run.append(parts[k])
            k += 1
        if len(run) >= 2:
            if p.kind == "text":
                p.kind = "prompt"
            first = run[0]
            first.kind, first.lines = "options", [q.lines[0] for q in run]
            first.options = [_BULLET.match(q.lines[0]).group(1) for q in run]  # type: ignore[union-attr]
            out.append(first)
        else:
            out += run
    for n, p in enumerate(out, 1):
        p.id = f"p{n}"
    return out
