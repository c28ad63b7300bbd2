"""An issue form (YAML) or a Markdown issue template (optional YAML front matter), as an IssueForm.

Both are read with PyYAML through perfkit's bounded loader. A file that does not parse, or parses
into something that is not a form, is reported with the parser's words instead of being dropped.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from perfkit.guards import safe_yaml
from perfkit.publish.forms.model import FormField, IssueForm
from perfkit.repo.template_text import Section, hidden_lines, split

_FRONT_RE = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_TEXT_KINDS = ("textarea", "input", "dropdown", "checkboxes")
_BOLD_HEAD_RE = re.compile(r"^\s{0,3}\*\*(?P<t>[^*\n]{2,100}?)\s*+:?\s*+\*\*\s*+:?\s*+$")


class NotAForm(ValueError):
    """The file parsed but is not an issue form; the message says why."""


def _text(v: Any) -> str:
    return "" if v is None else str(v).strip()


def _line(v: Any) -> str:
    """A label or an option on one line, as it is posted after '### ' or '- [ ] '."""
    return " ".join(_text(v).split())


def _as_list(v: object) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        return [x.strip() for x in v.split(",") if x.strip()]
    if isinstance(v, list):
        return [_text(x) for x in v if x is not None and _text(x)]
    return [_text(v)]


def _options(raw: Any) -> list[str]:
    if not isinstance(raw, list):
        return []
    return [_line(o.get("label")) if isinstance(o, dict) else _line(o) for o in raw]


def _field(item: Any) -> FormField | None:
    if not isinstance(item, dict):
        return None
    kind = _text(item.get("type"))
    attrs = item.get("attributes")
    if kind not in _TEXT_KINDS or not isinstance(attrs, dict):
        return None  # markdown elements are shown on the form, never posted
    label = _line(attrs.get("label"))  # posted as one '### ' line
    if not label:
        return None
    checks = item.get("validations")
    raw = attrs.get("options")
    must = (
        [_line(o.get("label")) for o in raw if isinstance(o, dict) and o.get("required") is True]
        if isinstance(raw, list)
        else []
    )
    return FormField(
        label=label,
        kind=kind,
        id=_text(item.get("id")),
        description=_text(attrs.get("description")),
        placeholder=_text(attrs.get("placeholder")),
        value=_text(attrs.get("value")),
        render=_text(attrs.get("render")),
        required=(isinstance(checks, dict) and checks.get("required") is True) or bool(must),
        multiple=attrs.get("multiple") is True,
        options=_options(raw),
        required_options=must,
    )


def yaml_form(rel: str, text: str) -> IssueForm:
    """Raises safe_yaml.YamlRefused or NotAForm."""
    data = safe_yaml.load(text)
    if not isinstance(data, dict):
        raise NotAForm("an issue form is a mapping with 'name' and 'body'")
    body = data.get("body")
    if not isinstance(body, list):
        raise NotAForm("an issue form needs a 'body' list")
    fields = [f for f in (_field(item) for item in body) if f is not None]
    return IssueForm(
        path=rel,
        name=_text(data.get("name")) or Path(rel).stem,
        about=_text(data.get("description")),
        title_prefix=str(data.get("title") or ""),
        labels=_as_list(data.get("labels")),
        fields=fields,
        markdown=False,
        text=text,
    )


def _prompt(section: Section) -> str:
    """What a heading's own text asks, comments included: it tells what the heading wants when its name does not."""
    return re.sub(r"<!--|-->", " ", "\n".join(section.body)).strip()


def _bold_headings(sections: list[Section]) -> list[Section]:
    """Text before the first heading, split at bold lines that stand as headings ("**Describe the bug**").

    Many templates have no Markdown headings at all, only such lines, each after a blank line and
    followed by its prompt. A run of bold lines ("**GPU**:" then "**Driver**:") is a list of fields.
    """
    if not sections or sections[0].heading is not None:
        return sections
    pre = sections[0]
    hidden = hidden_lines(pre.body)
    out = [Section(None, 0, [], [], pre.line, pre.body_line)]
    for k, ln in enumerate(pre.body):
        m = None if hidden[k] else _BOLD_HEAD_RE.match(ln)
        after = pre.body[k + 1] if k + 1 < len(pre.body) else ""
        if m and (k == 0 or not pre.body[k - 1].strip()) and not _BOLD_HEAD_RE.match(after):
            out.append(Section(m.group("t").strip(), 3, [ln], [], pre.body_line + k, pre.body_line + k + 1))
        else:
            out[-1].body.append(ln)
    for sec in out:
        while sec.body and not sec.body[-1].strip():
            sec.body.pop()
    if not "\n".join(out[0].body).strip():
        out = out[1:]
    return out + sections[1:]


def _slug_ids(fields: list[FormField]) -> None:
    """Each heading's id: its text as a slug, '-2', '-3' after a repeat, so every field has its own key."""
    seen: dict[str, int] = {}
    for f in fields:
        base = re.sub(r"[^a-z0-9]+", "-", f.label.lower()).strip("-") or "heading"
        seen[base] = seen.get(base, 0) + 1
        f.id = base if seen[base] == 1 else f"{base}-{seen[base]}"


def markdown_template(rel: str, text: str) -> IssueForm:
    """Raises safe_yaml.YamlRefused when the front matter does not parse."""
    meta: dict[str, Any] = {}
    body = text
    m = _FRONT_RE.match(text)
    if m:
        try:
            parsed = safe_yaml.load(m.group(1))
        except safe_yaml.YamlRefused as exc:  # count lines from the file's first line, the opening '---'
            raise safe_yaml.YamlRefused(exc.problem, exc.line + 1 if exc.line else None) from None
        meta = parsed if isinstance(parsed, dict) else {}
        body = text[m.end() :]
    sections = _bold_headings(split(body))
    pre = sections[0] if sections and sections[0].heading is None else None
    fields = [
        FormField(label=s.heading, kind="heading", description=_prompt(s), section=s)
        for s in sections
        if s.heading is not None
    ]
    _slug_ids(fields)
    return IssueForm(
        path=rel,
        name=_text(meta.get("name")) or Path(rel).stem,
        about=_text(meta.get("about")) or _text(meta.get("description")),
        title_prefix=str(meta.get("title") or ""),
        labels=_as_list(meta.get("labels")),
        fields=fields,
        markdown=True,
        preamble=pre,
        text=text,
    )
