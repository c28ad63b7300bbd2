"""A repository's Markdown template seen as sections, and the text lint must treat as the repo's own.

Below both publish (which merges a PR template after our parts and fills issue templates) and lint
(which leaves the repo's verbatim lines alone and accepts the headings the repo asks for), so neither
imports the other. Headings inside code fences, HTML comments and `<details>` blocks are the
template's text, not questions: they never start a section.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from perfkit.repo.contribution_files import RepoFiles

FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
# Possessive repeats and a greedy text (closing #s cut in code) keep both patterns to one pass
# over a line, whatever runs of spaces or #s it holds.
_ATX_RE = re.compile(r"^\s{0,3}(#{1,6})(?:\s++(.*))?$")
_SETEXT_RE = re.compile(r"^\s{0,3}(=+|-+)\s*$")
# a checkbox: '- [ ] text', or a bare '[ ] text' without a list marker
BOX_RE = re.compile(
    r"^(?P<lead>\s*+(?:(?:[-*+]|\d{1,9}[.)])\s++)?\[)(?P<mark>[ xX])(?P<close>\]\s++)(?P<text>(?:.*\S)?)\s*$"
)
_DETAILS_OPEN = re.compile(r"<details\b", re.I)
_DETAILS_CLOSE = re.compile(r"</details\s*>", re.I)
_LABEL_NOTED = re.compile(r"^(\s{0,3}(?:[-*+]\s+)?(\*\*|__)[^*_\n]{2,160}?\2)\s*[*_]?\([^\n]{0,300}?\)[*_]?\s*:")
_LABEL_PREFIX = re.compile(
    r"^\s{0,3}(?:[-*+]\s+)?(\*\*|__)[^*_\n]{2,160}?\1\s*:|^\s{0,3}(?:[-*+]\s+)?(\*\*|__)[^*_\n]{2,160}?:\2"
)


def norm_heading(text: str) -> str:
    """Heading text compared without case, markup, emoji or punctuation."""
    t = re.sub(r"[*_`:#]+", " ", text.lower())
    t = re.sub(r"[^\w\s?']", " ", t)
    return re.sub(r"\s+", " ", t).strip(" ?")


def comment_state_after(line: str, in_comment: bool) -> bool:
    """Whether an HTML comment is still open at the end of line, given whether one was open before it."""
    pos = 0
    while True:
        if in_comment:
            end = line.find("-->", pos)
            if end == -1:
                return True
            in_comment, pos = False, end + 3
        else:
            start = line.find("<!--", pos)
            if start == -1:
                return False
            in_comment, pos = True, start + 4


def hidden_lines(lines: list[str]) -> list[bool]:
    """For each line, whether it starts inside an HTML comment, a code fence or a <details> block."""
    out, in_comment, fence, details = [], False, None, 0
    for ln in lines:
        m = FENCE_RE.match(ln)
        out.append(in_comment or bool(fence) or details > 0 or (bool(m) and not in_comment))
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m and not in_comment:
            fence = m.group(1)
            continue
        if not in_comment:
            details += len(_DETAILS_OPEN.findall(ln)) - len(_DETAILS_CLOSE.findall(ln))
            details = max(details, 0)
        in_comment = comment_state_after(ln, in_comment)
    return out


def strip_comments(text: str) -> str:
    return re.sub(r"<!--.*?(-->|$)", "", text, flags=re.S)


@dataclass
class Section:
    heading: str | None  # heading text, None for the text before the first heading
    level: int
    heading_lines: list[str]  # the heading as written (two lines for a setext heading)
    body: list[str]
    line: int  # 1-based line of the heading (or of the first body line)
    body_line: int  # 1-based line of body[0]

    @property
    def boxes(self) -> list[tuple[int, re.Match[str]]]:
        """Checkbox lines outside HTML comments, code fences and <details> blocks."""
        hidden = hidden_lines(self.body)
        return [(k, m) for k, ln in enumerate(self.body) if not hidden[k] and (m := BOX_RE.match(ln))]


def fence_step(fence: str | None, in_comment: bool, ln: str) -> tuple[str | None, bool]:
    """(the open fence after ln, whether ln is fenced): a fence closes only on a run as long of its own kind."""
    m = FENCE_RE.match(ln)
    if fence:
        if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
            return None, True
        return fence, True
    if m and not in_comment:
        return m.group(1), True
    return None, False


class _Scan:
    """Where a line stands: inside a fence, a comment or a <details> block."""

    def __init__(self) -> None:
        self.fence: str | None = None
        self.comment = False
        self.details = 0

    def quiet(self) -> bool:
        return bool(self.fence) or self.comment or self.details > 0

    def step(self, ln: str) -> bool:
        """Advance over a line; True when the line is inside or opens/closes a fence."""
        self.fence, fenced = fence_step(self.fence, self.comment, ln)
        return fenced

    def after(self, ln: str) -> None:
        if not self.comment:
            self.details = max(0, self.details + len(_DETAILS_OPEN.findall(ln)) - len(_DETAILS_CLOSE.findall(ln)))
        self.comment = comment_state_after(ln, self.comment)


def _heading_at(lines: list[str], i: int, prev_body: list[str]) -> tuple[int, str, list[str]] | None:
    ln = lines[i]
    hm = _ATX_RE.match(ln)
    if hm:
        return len(hm.group(1)), (hm.group(2) or "").rstrip().rstrip("#").strip(), [ln]
    if (
        i + 1 < len(lines)
        and ln.strip()
        and not BOX_RE.match(ln)
        and _SETEXT_RE.match(lines[i + 1])
        and not re.match(r"^\s*([-*+>|]|\d+[.)])\s", ln)
        and not (prev_body and prev_body[-1].strip())
    ):
        return (1 if lines[i + 1].strip()[0] == "=" else 2), ln.strip(), [ln, lines[i + 1]]
    return None


def split(text: str) -> list[Section]:
    """Sections by ATX and setext headings; headings in fences, comments and <details> are body text."""
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    sections: list[Section] = [Section(None, 0, [], [], 1, 1)]
    scan = _Scan()
    i = 0
    while i < len(lines):
        ln = lines[i]
        fenced = scan.step(ln)
        heading = None if fenced or scan.comment or scan.details else _heading_at(lines, i, sections[-1].body)
        if heading:
            level, title, hl = heading
            sections.append(Section(title, level, hl, [], i + 1, i + 1 + len(hl)))
            i += len(hl)
            continue
        if not fenced:
            scan.after(ln)
        sections[-1].body.append(ln)
        i += 1
    if not sections[0].body or not "\n".join(sections[0].body).strip():
        sections = sections[1:] if len(sections) > 1 else sections
    for s in sections:
        while s.body and not s.body[-1].strip():
            s.body.pop()
    return sections


# --- what lint treats as the repo's own words -------------------------------------------------------

PR_FOLDER = "pull_request_template"
ISSUE_FOLDER = "issue_template"
_BASES = (".github", "", "docs")


def _suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    return name.rsplit(".", 1)[-1] if "." in name else ""


def pr_template_paths(files: RepoFiles) -> tuple[list[str], list[str]]:
    """(single templates in GitHub's lookup order, templates of the multi-template folders)."""
    singles: list[str] = []
    folder: list[str] = []
    for base in _BASES:
        for e in files.children(base):
            if e.name.lower().split(".", 1)[0] == PR_FOLDER and e.path in files.texts:
                if _suffix(e.path) in ("md", "txt", ""):
                    singles.append(e.path)
    for base in _BASES:
        d = files.child(base, PR_FOLDER)
        if d is not None and d.kind == "tree":
            folder += [p for p in files.files(d.path) if _suffix(p) in ("md", "txt", "")]
    return singles, folder


def pr_template_lines(files: RepoFiles) -> tuple[set[str], set[str]]:
    """(every line of every PR template, every heading they ask for, normalised)."""
    singles, folder = pr_template_paths(files)
    lines: set[str] = set()
    heads: set[str] = set()
    for p in singles + folder:
        text = files.texts[p]
        lines |= {ln for ln in text.split("\n") if ln.strip()}
        # a bold label is kept when its inline prompt is replaced: '**Collection**: [say which]' -> '**Collection**:'
        lines |= {m.group(0).rstrip() for ln in text.split("\n") if (m := _LABEL_PREFIX.match(ln))}
        lines |= {m.group(1) + ":" for ln in text.split("\n") if (m := _LABEL_NOTED.match(ln))}
        heads |= {norm_heading(s.heading) for s in split(text) if s.heading}
    return lines, heads


def front_matter(text: str) -> tuple[dict[str, Any], str]:
    """A Markdown issue template's YAML front matter (empty when absent or unreadable) and its body."""
    from perfkit.guards import safe_yaml

    m = re.match(r"^---\n(.*?)\n---\n?(.*)$", text, re.S)
    if not m:
        return {}, text
    try:
        meta = safe_yaml.load(m.group(1))
    except safe_yaml.YamlRefused:
        return {}, m.group(2)
    return (meta if isinstance(meta, dict) else {}), m.group(2)


def _form_fields(data: Any) -> list[tuple[str, list[str]]]:
    out = []
    for item in data.get("body") or [] if isinstance(data, dict) else []:
        attrs = item.get("attributes") if isinstance(item, dict) else None
        if not isinstance(attrs, dict) or item.get("type") == "markdown":
            continue
        opts = attrs.get("options") or []
        options = (
            [str(o.get("label", "")) if isinstance(o, dict) else str(o) for o in opts] if isinstance(opts, list) else []
        )
        out.append((str(attrs.get("label", "")).strip(), options))
    return out


def _form_values(data: Any) -> set[str]:
    """The lines of the fields' pre-filled values ("**System information:**"): posted as the form wrote them."""
    out: set[str] = set()
    for item in data.get("body") or [] if isinstance(data, dict) else []:
        attrs = item.get("attributes") if isinstance(item, dict) else None
        value = attrs.get("value") if isinstance(attrs, dict) and item.get("type") != "markdown" else None
        if isinstance(value, str):
            out |= {ln.rstrip() for ln in value.split("\n") if ln.strip()}
    return out


def issue_template_lines(files: RepoFiles) -> tuple[set[str], set[str], list[str]]:
    """(verbatim lines, headings asked for, title prefixes) across the repo's issue forms and templates."""
    from perfkit.guards import safe_yaml

    lines: set[str] = set()
    heads: set[str] = set()
    prefixes: list[str] = []
    for base in _BASES:
        d = files.child(base, ISSUE_FOLDER)
        paths = files.files(d.path) if d is not None and d.kind == "tree" else []
        single = files.child(base, ISSUE_FOLDER + ".md")
        paths += [single.path] if single is not None and single.path in files.texts else []
        for p in paths:
            text = files.texts[p]
            suffix = p.lower().rsplit(".", 1)[-1]
            if suffix == "md":
                meta, body = front_matter(text)
                lines |= {ln for ln in body.split("\n") if ln.strip()}
                heads |= {norm_heading(s.heading) for s in split(body) if s.heading}
            elif suffix in ("yml", "yaml"):
                try:
                    meta = safe_yaml.load(text)  # bounded: a form is someone else's text
                except safe_yaml.YamlRefused:
                    continue
                for label, options in _form_fields(meta):
                    heads.add(norm_heading(label))
                    lines.add(f"### {label}")
                    lines |= {f"- [ ] {o}" for o in options}
                lines |= _form_values(meta)
            else:
                continue
            title = meta.get("title") if isinstance(meta, dict) else None
            if isinstance(title, str) and title.strip():
                prefixes.append(title.strip())
    return lines, heads, prefixes
