"""A repo's rule for PR titles, found in its template, its checklist or CONTRIBUTING, applied to our title.

Rules are written as a pattern: `[ticket][type] summary`, `[Module] Title`, `type(scope): summary`,
`[component]: description` (a checklist item says it as often as a comment does), or by name:
"titles follow Conventional Commits" gives `perf: summary`. perfkit.publish.repo_notes finds the
sentences (and leaves out advice about issue titles); this module reads the pattern out of one.
Each slot gets what the campaign knows (the type of change is performance) or a placeholder for
what only the user knows (a ticket number, a component), so the title follows the repo's form
and the agent sees exactly what is left to fill.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TITLE_WORD_RE = re.compile(
    r"\btitles?\b|\bnaming of (?:the )?(?:pull|merge) requests?\b|\b(?:pr|pull request|merge request) names?\b", re.I
)
# Possessive spaces around the separator (one pass over a run of them); a bracket followed by a
# space alone still counts, as it did when the word after could be that space.
_BRACKETS_RE = re.compile(r"((?:\[[^\[\]\n]{1,40}\]\s?){1,4})(?:\s*+(?P<sep>[:\-]?)\s*+<?[\w ]{1,40}>?|(?<= ))")
_MD_LINK_RE = re.compile(r"\[([^\[\]\n]{0,200})\]\([^)\s]{0,500}\)")
_BOX_LEAD_RE = re.compile(r"^\s*+(?:[-*+]\s++)?\[[ xX]\]\s++")
_NAMED_CONVENTION_RE = re.compile(r"\bconventional[ -]commits?\b", re.I)
_CONVENTIONAL_RE = re.compile(r"\b(type|category|kind)(\((?:scope|module|component|area)\))?(!)?:\s*<?\w+>?")
_TYPE = re.compile(r"^(?:type|kind|category|tag|label|prefix|perf|feat|feature|fix|bug)", re.I)
_PLACE = {
    "ticket": "ticket",
    "jira": "ticket",
    "issue": "issue",
    "id": "ticket",
    "module": "module",
    "component": "component",
    "scope": "scope",
    "area": "area",
    "project": "project",
    "subsystem": "subsystem",
    "backend": "backend",
}


@dataclass(frozen=True)
class TitleRule:
    pattern: str  # as the repo wrote it, for the report
    prefix: str  # what goes before our summary, placeholders included
    source: str
    line: int


def _slot(word: str) -> str:
    w = word.strip().strip("<>").strip()
    if _TYPE.match(w):
        return "perf"
    key = w.lower().split()[0] if w.split() else ""
    for k, v in _PLACE.items():
        if key.startswith(k):
            return f"<{v}>"
    if re.fullmatch(r"[A-Z][A-Za-z0-9_-]{0,20}", w) and w.lower() not in ("wip", "draft", "rfc"):
        return f"<{w.lower()}>"  # a literal example such as [Module]: the user picks the real one
    return f"<{w.lower() or 'tag'}>"


def _from_line(text: str) -> tuple[str, str] | None:
    """(the pattern as written, our prefix) when the line states a title pattern."""
    text = _MD_LINK_RE.sub(r"\1", _BOX_LEAD_RE.sub("", text))  # a checklist item; a link's text, not its brackets
    if not _TITLE_WORD_RE.search(text):
        return None
    m = _BRACKETS_RE.search(text)
    if m:
        slots = re.findall(r"\[([^\[\]\n]{1,40})\]", m.group(1))
        if not slots or all(s.strip().lower() in ("x", " ", "") for s in slots):
            return None  # a checkbox, not a title pattern
        return m.group(0).strip(), "".join(f"[{_slot(s)}]" for s in slots) + (":" if m.group("sep") == ":" else "")
    c = _CONVENTIONAL_RE.search(text)
    if c:
        scope = "(<scope>)" if c.group(2) else ""
        return c.group(0).strip(), f"perf{scope}{c.group(3) or ''}:"
    n = _NAMED_CONVENTION_RE.search(text)
    if n:
        return n.group(0), "perf:"
    return None


def from_notes(notes: list[tuple[str, int, str]], template_path: str | None) -> TitleRule | None:
    """The first title rule among the sentences (path, line, text) found as title rules, the template's first."""
    ordered = sorted(notes, key=lambda n: n[0] != template_path)
    for path, line, text in ordered:
        found = _from_line(text)
        if found:
            return TitleRule(pattern=found[0], prefix=found[1], source=path, line=line)
    return None


def apply(rule: TitleRule, summary: str) -> str:
    """Our title in the repo's form: its prefix (placeholders for what only the user knows), then the summary."""
    return f"{rule.prefix} {summary}"
