"""Which form fits a person's report of a cost: by the whole words of its name, title, labels and description.

Words are matched whole, so a project called "Lightspeedy" is not about speed, "help us
improve" is not a question and a "CI failure" form is not meant for automation because it says
"CI". A form is one of three tiers:

- chosen first, in the order publish-pr's skill asks for: performance, question, feature (also
  enhancement, proposal, RFC), general, bug;
- chosen only when nothing above exists, because they ask for something a cost report is not:
  refactor, build or install, documentation, CI failure, flaky test, tracker (a task table, or a
  name or title saying tracking, tracker, epic, roadmap or umbrella: "Feature Tracking" tracks
  a feature's pieces, it does not propose one), security;
- never chosen unless named by issue_form: a regression form (the campaign measured a change
  that made the job faster; nothing regressed, and its "previous version" fields would get our
  paragraphs) and a form meant for automation (GitHub expressions such as `{{ env.X }}`, or a
  name or description saying a bot, a workflow or a job files it).

A narrow purpose named in the form's name, title or file name (regression, flaky, CI failure,
tracker, refactor, build, docs, security) wins over a broad one ("CI failure" is not a bug form).
A description that says the form takes performance reports ("performance not as expected",
"slower than expected", "performance problems") makes it a performance form whatever its name.
Within a tier, the form with more matching words wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.publish.forms.model import IssueForm

BROAD: list[tuple[str, str]] = [  # in order of preference
    (
        "performance",
        r"perf|performance|speed|speedups?|speed up|slow|slower|slowness|slowdowns?|latency|throughput|"
        r"optimi[sz](?:e|ed|es|ing|ation|ations)|efficien(?:t|cy)|profil(?:e|es|ing)|benchmarks?",
    ),
    ("question", r"questions?|support|ask|usage|how to|how do i|q a|discussions?|help(?! us\b| improve\b| make\b)"),
    (
        "feature",
        r"features?|enhancements?|feature requests?|proposals?|propose|ideas?|rfcs?|request for comments?|"
        r"suggestions?|requests?",
    ),
    ("general", r"general|others?|misc|miscellaneous|blank|something else|anything else"),
    (
        "bug",
        r"bugs?|defects?|crash(?:es)?|errors?|broken|fail(?:s|ure|ures|ing)?|exceptions?|incorrect|"
        r"unexpected behaviou?r|problems?",
    ),
]
NARROW: list[tuple[str, str]] = [  # chosen only when no broad form exists, in this order
    ("refactor", r"refactor\w*|deprecat\w*|code improvements?|tech(?:nical)? debt|clean ?up"),
    ("build", r"build|builds|install|installs|installation|compil(?:e|ation|ing)|packaging|setup issues?"),
    ("docs", r"docs|documentation|typos?"),
    ("ci-failure", r"ci|ci failures?|sevs?|infra|infrastructure|broken (?:main|trunk|master)"),
    ("flaky-test", r"flaky|flakiness|flakes?|intermittent (?:tests?|failures?)|unstable tests?"),
    ("tracker", r"track|tracking|tracker|tasks?|sub ?tasks?|epics?|roadmaps?|milestones?|umbrella"),
    ("security", r"security|vulnerabilit(?:y|ies)|cve"),
]
NEVER: list[tuple[str, str]] = [
    ("regression", r"regressions?|regressed|first bad commit|bisect\w*"),
]
KINDS = BROAD + NARROW + NEVER
_KIND_RE = {kind: re.compile(rf"\b(?:{rx})\b") for kind, rx in KINDS}
_BROAD = [k for k, _ in BROAD]
_NARROW = [k for k, _ in NARROW]
NARROW_KINDS = frozenset(_NARROW)
# broad forms score 1000 and up, narrow ones below 1000, never-chosen ones 0
_BASE = {k: 1000 + 100 * (len(_BROAD) - i) for i, k in enumerate(_BROAD)}
_BASE.update({k: 100 * (len(_NARROW) - i) for i, k in enumerate(_NARROW)})
_STRONG = ("name", "title", "file name")  # where a narrow purpose overrides a broad one
_NEVER = [k for k, _ in NEVER]
# named for tracking ("Feature Tracking", "[Tracking Issue]", "Roadmap"): a tracker of whatever it tracks
_TRACKING_NAME_RE = re.compile(r"\b(?:tracking|trackers?|epics?|roadmaps?|umbrella)\b")
_TAKES_PERF_RE = re.compile(
    r"\b(?:performance|speed|throughput|latency)(?: is| was| that is)? (?:not as expected|lower than expected|"
    r"worse than expected|issues?|problems?|reports?|degradations?|concerns?)\b|"
    r"\b(?:slower|slow) than expected\b|\bunexpectedly slow\b|\bruns? slow(?:ly)?\b"
)
_NEGATED_RE = re.compile(r"\b(?:not|no|except|other than|excluding|instead of|use the|see the)\b(?: \w+){0,4} $")
_ELSEWHERE_RE = re.compile(  # "for performance problems use the discussion board"
    r" ?(?:\w+ ){0,3}?(?:please )?(?:use|see|go to|belong|post|ask|open|file|head to|visit)\b"
)
_EXPR_RE = re.compile(r"\{\{.*?\}\}", re.S)
# a task table ("| Task | Owner | Status |") or a sub-task list: a team's tracker, whatever its name says.
# A field named "Task" alone is not one: ML forms ask which task (text generation, ...) a bug is about.
_TASK_RE = re.compile(r"\btasks?\b", re.I)
_TRACKED_RE = re.compile(r"\b(?:owners?|status|assignees?|due|eta)\b", re.I)
_SUBTASK_FIELD_RE = re.compile(r"\b(?:sub ?tasks?|task list|work items?)\b")
# a machine files it; "my training workflow", "CI failure" or "automated tests" is a person
_AUTOMATION_RE = re.compile(
    r"\b(?:bots?|auto generated|automated (?:reports?|issues?|runs?)|generated automatically|"
    r"(?:opened|filed|created|posted|raised) (?:automatically|by (?:[a-z0-9]+ ){0,3}?"
    r"(?:bot|workflow|ci|action|job|pipeline|script)s?))\b"
)


@dataclass
class Score:
    form: IssueForm
    kind: str
    score: int
    words: list[str] = field(default_factory=list)  # "'performance' in its name"
    automation: str | None = None  # why the form is meant for automation
    excluded: str | None = None  # why a person's form is still never chosen for this issue

    @property
    def never(self) -> str | None:
        """Why the form is never chosen unless named, or None."""
        if self.automation:
            return f"meant for automation: {self.automation}"
        return self.excluded

    @property
    def reason(self) -> str:
        if self.never:
            return self.never
        tier = "" if self.kind in _BROAD else "; chosen only when no other kind of form exists"
        if not self.words:
            return f"a {self.kind} form: no word of its name, title, labels or description says more{tier}"
        return f"a {self.kind} form: " + ", ".join(self.words) + tier


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


def takes_performance(about: str) -> str | None:
    """The words of a form's description that say it takes performance reports, unless it sends them elsewhere."""
    low = norm(about)
    for m in _TAKES_PERF_RE.finditer(low):  # only the few words around each phrase: linear in the text
        if not _NEGATED_RE.search(low[max(0, m.start() - 80) : m.start()]) and not _ELSEWHERE_RE.match(low, m.end()):
            return m.group(0).strip()
    return None


def tracks_tasks(form: IssueForm) -> str | None:
    """Why the form is a tracker by what it holds, or None."""
    sub = next((f.label for f in form.fields if _SUBTASK_FIELD_RE.search(norm(f.label))), None)
    if sub:
        return f"its field '{sub}'"
    for line in form.text.split("\n"):  # a table header is short; no pattern runs over a long line
        row = line.strip()
        if row.startswith("|") and len(row) <= 300 and _TASK_RE.search(row) and _TRACKED_RE.search(row):
            return "its task table"
    return None


def _kind(points: dict[str, int], first: list[str], never: list[str], takes_perf: bool) -> str:
    """The form's kind; `first` holds the kinds in the order the form's name (or title, file name) says them."""
    if never:
        return never[0]
    if first and first[0] in _NARROW:  # "CI failure", "Flaky test report": the narrow purpose comes first
        return first[0]
    if takes_perf:
        return "performance"
    broad = [k for k in _BROAD if points[k]]
    if broad:
        return max(broad, key=lambda k: (points[k], -_BROAD.index(k)))
    narrow = [k for k in _NARROW if points[k]]  # named only in its labels or description
    return max(narrow, key=lambda k: (points[k], -_NARROW.index(k))) if narrow else "general"


def score(form: IssueForm) -> Score:
    kinds = [k for k, _ in KINDS]
    points = dict.fromkeys(kinds, 0)
    words: dict[str, list[str]] = {k: [] for k in kinds}
    never: list[str] = []
    first: list[str] = []
    named_tracker = None
    for place, text, weight in _places(form):
        low = norm(text)
        if place in ("name", "title") and named_tracker is None and (hit := _TRACKING_NAME_RE.search(low)):
            named_tracker = f"'{hit.group(0)}' in its {place}"
        starts: dict[str, int] = {}
        for kind, rx in _KIND_RE.items():
            hit = rx.search(low)
            if hit:
                points[kind] += weight
                words[kind].append(f"'{hit.group(0).strip()}' in its {place}")
                starts[kind] = hit.start()
                if kind in _NEVER and (place in _STRONG or place == "labels"):
                    never.append(kind)
        if place in _STRONG and starts and not first:
            first = sorted(starts, key=lambda k: starts[k])
    takes = takes_performance(form.about)
    kind = _kind(points, first, never, takes is not None)
    tracks = tracks_tasks(form) or named_tracker
    if tracks and kind in ("feature", "general", "bug"):
        kind = "tracker"
        words["tracker"].append(tracks)
    if kind == "performance" and takes:
        words["performance"].append(f"its description takes '{takes}' reports")
    why = automation(form)
    excluded = None
    if kind == "regression":
        excluded = "a regression form: it asks for an earlier version that was faster, and nothing regressed here"
    total = 0 if why or excluded else _BASE[kind] + points[kind]
    return Score(form=form, kind=kind, score=total, words=words[kind], automation=why, excluded=excluded)


def ranked(forms: list[IssueForm]) -> list[Score]:
    """Every form, best first; forms never chosen last, with score 0."""
    return sorted((score(f) for f in forms), key=lambda s: (-s.score, s.form.path))
