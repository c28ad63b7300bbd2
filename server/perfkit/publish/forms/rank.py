"""Which form fits a person's report of a cost: by the whole words of its name, title, labels and description.

Words are matched whole, so a project called "Lightspeedy" is not about speed and "help us
improve" is not a question. A form whose text holds GitHub expressions (`{{ env.X }}`) or whose
name or description says a CI job, a bot or a schedule files it is meant for automation and is
never chosen for a person's issue. Among the rest: performance, then question, then general,
then bug, feature, docs and security forms, the order publish-pr's skill asks for; within a
kind, the form with more matching words wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.publish.forms.model import IssueForm

KINDS: list[tuple[str, str]] = [  # in order of preference
    (
        "performance",
        r"perf|performance|speed|speedups?|speed up|slow|slower|slowness|slowdowns?|latency|throughput|"
        r"regressions?|optimi[sz](?:e|ed|es|ing|ation|ations)|efficien(?:t|cy)|profil(?:e|es|ing)|benchmarks?",
    ),
    ("question", r"questions?|support|ask|usage|how to|how do i|q a|discussions?|help(?! us\b| improve\b| make\b)"),
    ("general", r"(?!x)x"),
    (
        "bug",
        r"bugs?|defects?|crash(?:es)?|errors?|broken|fail(?:s|ure|ures|ing)?|exceptions?|incorrect|"
        r"unexpected behaviou?r|problems?",
    ),
    ("feature", r"features?|enhancements?|requests?|proposals?|ideas?"),
    ("docs", r"docs|documentation|typos?"),
    ("security", r"security|vulnerabilit(?:y|ies)|cve"),
]
_KIND_RE = {kind: re.compile(rf"\b(?:{rx})\b") for kind, rx in KINDS}
_ORDER = [k for k, _ in KINDS]
_BASE = {k: 100 * (len(_ORDER) - i) for i, k in enumerate(_ORDER)}
_EXPR_RE = re.compile(r"\{\{.*?\}\}", re.S)
_AUTOMATION_RE = re.compile(  # a machine files it; "my training workflow" or "automated tests" is a person
    r"\b(?:nightly|scheduled|cron|bots?|github actions?|ci|continuous integration|auto generated|"
    r"automated (?:reports?|issues?|runs?)|(?:opened|filed|created|posted) (?:automatically|by (?:[a-z0-9]+ ){0,3}?"
    r"(?:bot|workflow|ci|action|job)s?))\b"
)


@dataclass
class Score:
    form: IssueForm
    kind: str
    score: int
    words: list[str] = field(default_factory=list)  # "'performance' in its name"
    automation: str | None = None  # why the form is meant for automation

    @property
    def reason(self) -> str:
        if self.automation:
            return f"meant for automation: {self.automation}"
        if not self.words:
            return f"a {self.kind} form: no word of its name, title, labels or description says more"
        return f"a {self.kind} form: " + ", ".join(self.words)


def norm(text: str) -> str:
    """Lower case, every run of non-letters a single space: emoji, brackets and '&' do not join words."""
    return " " + re.sub(r"[^a-z0-9]+", " ", text.lower()).strip() + " "


def _places(form: IssueForm) -> list[tuple[str, str, int]]:
    return [
        ("name", form.name, 3),
        ("title", form.title_prefix, 3),
        ("labels", " ".join(form.labels), 2),
        ("file name", Path(form.path).stem, 2),
        ("description", form.about, 1),
    ]


def automation(form: IssueForm) -> str | None:
    m = _EXPR_RE.search(form.text)
    if m:
        return f"its text holds the expression '{m.group(0)[:60]}'"
    for place, text, _ in _places(form):
        w = _AUTOMATION_RE.search(norm(text))
        if w:
            return f"its {place} says '{w.group(0).strip()}'"
    return None


def score(form: IssueForm) -> Score:
    points = dict.fromkeys(_ORDER, 0)
    words: dict[str, list[str]] = {k: [] for k in _ORDER}
    for place, text, weight in _places(form):
        low = norm(text)
        for kind, rx in _KIND_RE.items():
            hit = rx.search(low)
            if hit:
                points[kind] += weight
                words[kind].append(f"'{hit.group(0).strip()}' in its {place}")
    kind = max(_ORDER, key=lambda k: (points[k], -_ORDER.index(k))) if any(points.values()) else "general"
    why = automation(form)
    total = 0 if why else _BASE[kind] + points[kind]
    return Score(form=form, kind=kind, score=total, words=words[kind], automation=why)


def ranked(forms: list[IssueForm]) -> list[Score]:
    """Every form, best first; forms meant for automation last, with score 0."""
    return sorted((score(f) for f in forms), key=lambda s: (-s.score, s.form.path))
