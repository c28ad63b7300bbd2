"""A repository's Markdown template seen as sections, and the text lint must treat as the repo's own.

Below both publish (which merges a PR template after our parts and fills issue templates) and lint
(which leaves the repo's verbatim lines alone and accepts the headings the repo asks for), so neither
imports the other. Headings inside code blocks, HTML comments and `<details>` blocks are the
template's text, not questions: they never start a section. Where those are is perfkit.markdown's
CommonMark reading; this module only groups lines under the headings it finds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from perfkit.markdown import blocks
from perfkit.markdown.blocks import BOX_RE, FENCE_RE
from perfkit.repo.contribution_files import RepoFiles

__all__ = ["BOX_RE", "FENCE_RE"]  # the template parser reads box and fence lines through here

_LABEL_NOTED = re.compile(r"^(\s{0,3}(?:[-*+]\s+)?(\*\*|__)[^*_\n]{2,160}?\2)\s*[*_]?\([^\n]{0,300}?\)[*_]?\s*:")
_LABEL_PREFIX = re.compile(
    r"^\s{0,3}(?:[-*+]\s+)?(\*\*|__)[^*_\n]{2,160}?\1\s*:|^\s{0,3}(?:[-*+]\s+)?(\*\*|__)[^*_\n]{2,160}?:\2"
)


def norm_heading(text: str) -> str:
    """Heading text compared without case, markup, emoji or punctuation."""
    t = re.sub(r"[*_`:#]+", " ", text.lower())
    t = re.sub(r"[^\w\s?']", " ", t)
    return re.sub(r"\s+", " ", t).strip(" ?")


def hidden_lines(lines: list[str]) -> list[bool]:
    """For each line, whether it is in a code block or starts inside an HTML comment or a <details> block."""
    o = blocks.outline("\n".join(lines))
    return [o.hidden(i) for i in range(len(lines))]


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
        """Checkbox lines outside HTML comments, code blocks and <details> blocks."""
        hidden = hidden_lines(self.body)
        return [(k, m) for k, ln in enumerate(self.body) if not hidden[k] and (m := BOX_RE.match(ln))]


def _headings(o: blocks.Outline) -> dict[int, blocks.Block]:
    """The headings a reader sees, by first line: none inside a comment or a <details> block."""
    out = {}
    for b in o.blocks:
        if b.kind != "heading" or o.in_comment[b.start] or o.details[b.start] > 0:
            continue
        if any(a <= len(o.lines[b.start]) - len(o.lines[b.start].lstrip()) < z for a, z in o.comments[b.start]):
            continue  # the heading's line starts inside a comment that opens on it
        out[b.start] = b
    return out


def split(text: str) -> list[Section]:
    """Sections by ATX and setext headings; headings in code, comments and <details> are body text."""
    o = blocks.outline(text)
    lines = o.lines
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    heads = _headings(o)
    sections: list[Section] = [Section(None, 0, [], [], 1, 1)]
    i = 0
    while i < len(lines):
        b = heads.get(i)
        if b is not None:
            hl = lines[b.start : min(b.end, len(lines))]
            title = " ".join(b.text.split())
            sections.append(Section(title, b.level, hl, [], i + 1, i + 1 + len(hl)))
            i += len(hl)
            continue
        sections[-1].body.append(lines[i])
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
