"""The target repo's issue forms and issue templates: pick one, and lay our paragraphs under it.

An observation about cost belongs in a performance or question form, not a bug report, so those
are preferred in that order. A YAML form becomes what GitHub would post for it: one `### label`
per field, the answer under it. A Markdown template keeps its own text and headings verbatim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.errors import InputError
from perfkit.lint.markdown import norm_heading
from perfkit.publish import miniyaml
from perfkit.publish.repo_template import Section, _ci_child, split

_RANK = [
    (r"perf|speed|slow|latency|throughput|regression|optimi[sz]", 0),
    (r"question|support|help|discussion|ask", 1),
    (r"bug|defect|crash|error|problem", 3),
    (r"feature|enhance|request|proposal|idea", 4),
    (r"doc|typo", 5),
    (r"security|vulnerab", 9),
]

ROLE_PATTERNS = [  # first match wins, so the specific roles come before the broad 'observed'
    ("reproduce", r"reproduc|steps|command|script|how to|minimal example|snippet"),
    ("environment", r"environment|hardware|system info|platform|versions?|setup|gpu|device|\bos\b|cuda|software"),
    (
        "logs_said",
        r"expected|docs?\b|documentation|logs?\b|would have|suggest|solution|proposal|proposed|alternative|"
        r"desired",
    ),
    (
        "observed",
        r"describe|description|summary|problem|issue|what happened|observ|performance|question|details|bug|"
        r"current behaviou?r|motivation|background|feature|report",
    ),
    ("pr_note", r"additional|context|other|related|anything else|links?|references?|notes?"),
]


@dataclass
class FormField:
    label: str
    kind: str  # textarea, input, dropdown, checkboxes, or 'heading' for Markdown templates
    required: bool = False
    options: list[str] = field(default_factory=list)
    section: Section | None = None  # Markdown templates: the heading's own section, kept verbatim


@dataclass
class IssueForm:
    path: str
    name: str
    about: str
    title_prefix: str
    labels: list[str]
    fields: list[FormField]
    markdown: bool
    preamble: Section | None = None
    rank: int = 2


def _read(p: Path) -> str:
    return p.read_text("utf-8", "replace").replace("\r\n", "\n")


def _as_list(v: object) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return [x.strip() for x in v.split(",") if x.strip()]
    if isinstance(v, list):
        return [str(x) for x in v if x is not None]
    return [str(v)]


def _rank(*texts: str) -> int:
    blob = " ".join(t.lower() for t in texts if t)
    for rx, rank in _RANK:
        if re.search(rx, blob):
            return rank
    return 2


def _parse_yaml_form(rel: str, text: str) -> IssueForm:
    data = miniyaml.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("body"), list):
        raise miniyaml.YamlSubsetError(1, "an issue form needs a 'body' list")
    fields = []
    for item in data["body"]:
        if not isinstance(item, dict):
            continue
        kind = str(item.get("type", ""))
        attrs = item.get("attributes") or {}
        if kind == "markdown" or not isinstance(attrs, dict):
            continue
        label = str(attrs.get("label", "")).strip()
        if not label:
            continue
        opts = attrs.get("options") or []
        options = [str(o.get("label", "")) if isinstance(o, dict) else str(o) for o in opts]
        req = (
            bool((item.get("validations") or {}).get("required", False))
            if isinstance(item.get("validations"), dict)
            else False
        )
        fields.append(FormField(label=label, kind=kind, required=req, options=options))
    name = str(data.get("name", Path(rel).stem))
    about = str(data.get("description", ""))
    labels = _as_list(data.get("labels"))
    return IssueForm(
        path=rel,
        name=name,
        about=about,
        title_prefix=str(data.get("title") or ""),
        labels=labels,
        fields=fields,
        markdown=False,
        rank=_rank(name, Path(rel).stem, " ".join(labels), about),
    )


def _parse_md_template(rel: str, text: str) -> IssueForm:
    meta: dict = {}
    body = text
    m = re.match(r"^---\n(.*?)\n---\n?(.*)$", text, re.S)
    if m:
        parsed = miniyaml.loads(m.group(1))
        meta = parsed if isinstance(parsed, dict) else {}
        body = m.group(2)
    sections = split(body)
    pre = sections[0] if sections and sections[0].heading is None else None
    fields = [FormField(label=s.heading or "", kind="heading", section=s) for s in sections if s.heading is not None]
    name = str(meta.get("name", Path(rel).stem))
    about = str(meta.get("about", ""))
    labels = _as_list(meta.get("labels"))
    return IssueForm(
        path=rel,
        name=name,
        about=about,
        title_prefix=str(meta.get("title") or ""),
        labels=labels,
        fields=fields,
        markdown=True,
        preamble=pre,
        rank=_rank(name, Path(rel).stem, " ".join(labels), about),
    )


def find_forms(repo: Path) -> tuple[list[IssueForm], list[str]]:
    """Every issue form or template, and a warning for each one that could not be read."""
    paths: list[Path] = []
    for base in (repo / ".github", repo, repo / "docs"):
        d = _ci_child(base, "issue_template")
        if d and d.is_dir():
            paths += sorted(
                p
                for p in d.iterdir()
                if p.is_file() and p.suffix.lower() in (".md", ".yml", ".yaml") and p.stem.lower() != "config"
            )
        f = _ci_child(base, "issue_template.md")
        if f and f.is_file():
            paths.append(f)
    forms, warnings = [], []
    for p in paths:
        rel = str(p.relative_to(repo))
        try:
            text = _read(p)
            forms.append(_parse_md_template(rel, text) if p.suffix.lower() == ".md" else _parse_yaml_form(rel, text))
        except miniyaml.YamlSubsetError as exc:
            warnings.append(f"issue form {rel} skipped: {exc}")
    return forms, warnings


def pick(repo: Path, choice: str | None) -> tuple[IssueForm | None, list[str], str, list[str]]:
    """(form, every candidate path, why, warnings)."""
    forms, warnings = find_forms(repo)
    paths = [f.path for f in forms]
    if choice:
        c = choice.strip().lower()
        hits = [
            f
            for f in forms
            if c in (f.path.lower(), Path(f.path).name.lower(), Path(f.path).stem.lower(), f.name.lower())
        ]
        if not hits:
            raise InputError(
                "issue_form",
                f"'{choice}' is not an issue form of this repo",
                f"use one of: {', '.join(paths)}" if paths else "this repo has no issue forms; leave it out",
            )
        return hits[0], paths, "chosen by the issue_form parameter", warnings
    if not forms:
        return None, paths, "the repo has no issue forms or templates", warnings
    best = min(forms, key=lambda f: (f.rank, f.path))
    why = {
        0: "a performance form",
        1: "a question form (no performance form)",
        2: "a general form (no performance or question form)",
        3: "a bug form (no performance, question or general form)",
    }.get(best.rank, "the closest form by name")
    return best, paths, why + f", from {len(forms)}", warnings


def _role(label: str) -> str | None:
    name = norm_heading(label)
    for role, rx in ROLE_PATTERNS:
        if re.search(rx, name):
            return role
    return None


def fill(
    form: IssueForm, paragraphs: dict[str, str], answers: dict[str, str], placeholder: str
) -> tuple[str, list[str]]:
    """The issue body under the form's headings, and the answers that matched no field."""
    by_label = {norm_heading(k): v for k, v in answers.items()}
    used: set[str] = set()
    assigned: dict[int, list[str]] = {}  # field index -> roles, in paragraph order
    order = ["observed", "logs_said", "pr_note", "environment", "reproduce"]
    remaining = [r for r in order if paragraphs.get(r)]
    writable = [
        i
        for i, f in enumerate(form.fields)
        if f.kind in ("textarea", "input", "heading") and norm_heading(f.label) not in by_label
    ]
    roles = {i: _role(form.fields[i].label) for i in writable}
    for r in list(remaining):
        slot = next((i for i in writable if roles[i] == r and i not in assigned), None)
        if slot is not None:
            assigned[slot] = [r]
            remaining.remove(r)
    remaining = [r for r in remaining if r in order[:3]]  # environment and commands only where asked
    if remaining:
        main = [i for i, rs in assigned.items() if any(r in order[:3] for r in rs)]
        home = (
            min(main)
            if main
            else next((i for i in writable if form.fields[i].kind != "input" and i not in assigned), None)
        )
        if home is not None:
            assigned[home] = sorted(assigned.get(home, []) + remaining, key=order.index)
            remaining = []
    out: list[str] = []
    if form.markdown and form.preamble is not None:
        out += form.preamble.body + [""]
    for i, f in enumerate(form.fields):
        key = norm_heading(f.label)
        if f.kind == "heading" and f.section is not None:
            out += f.section.heading_lines + f.section.body
        else:
            out += [f"### {f.label}", ""]
        text: str | None = None
        if key in by_label:
            text = by_label[key]
            used.add(key)
        elif i in assigned:
            text = "\n\n".join(paragraphs[r] for r in assigned[i])
        elif f.kind == "checkboxes":
            text = "\n".join(f"- [ ] {o}" for o in f.options)
            if f.required:
                text += "\n\n" + placeholder.format(what=f"tick what is true in '{f.label}'")
        elif f.kind == "dropdown":
            text = (
                placeholder.format(what=f"one of: {', '.join(f.options)}")
                if f.options
                else placeholder.format(what=f"answer '{f.label}'")
            )
        elif f.required or f.kind == "heading":
            text = placeholder.format(what=f"answer '{f.label}'")
        else:
            text = "_No response_"
        if out and out[-1].strip():
            out.append("")
        out += text.split("\n")
        out.append("")
    if remaining:  # a form with no field to write into: the paragraphs go at the end
        out += ["\n\n".join(paragraphs[r] for r in remaining), ""]
    while out and not out[-1].strip():
        out.pop()
    unused = [k for k in answers if norm_heading(k) not in used]
    return "\n".join(out), unused


def form_lines(repo: Path) -> tuple[set[str], set[str], list[str]]:
    """(verbatim template lines, allowed headings, title prefixes) across the repo's issue forms."""
    forms, _ = find_forms(repo)
    lines: set[str] = set()
    heads: set[str] = set()
    prefixes: list[str] = []
    for f in forms:
        if f.title_prefix.strip():
            prefixes.append(f.title_prefix.strip())
        for fld in f.fields:
            heads.add(norm_heading(fld.label))
            if fld.section is not None:
                lines |= {ln for ln in fld.section.heading_lines + fld.section.body if ln.strip()}
            else:
                lines.add(f"### {fld.label}")
                lines |= {f"- [ ] {o}" for o in fld.options}
        if f.preamble is not None:
            lines |= {ln for ln in f.preamble.body if ln.strip()}
    return lines, heads, prefixes
