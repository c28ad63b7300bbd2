"""The next step when perfkit's own bisect already took it: say what it found instead of advising it again.

evaluate_culprit's advice follows from the culprit's kind: a forward bump calls for a second-level
bisect, a rollback for a find-fix search, a mixed commit for a split test. When the bisect recorded
for the repository named this very commit and then ran that step itself (`bisect_run` does it
without being asked), advising it again sends the user to redo an hour of runs. So the advice
comes from the bisect's record: its second-level answer, or what its split test showed. The
record is only read; a bisect that stopped before that step leaves the usual advice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from perfkit.culprit.models import NextAction
from perfkit.errors import ToolFailure
from perfkit.repo import gitrepo

# where bisect/state/store.py keeps a bisect (read here as plain data: the culprit tools do not import the bisect)
STATE = ("perfkit-bisect", "state.json")


def recorded(repo: Path, commit: str) -> dict[str, Any] | None:
    """The finished bisect of this repository that named `commit`, if there is one."""
    try:
        common = gitrepo.git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
        raw: Any = json.loads(Path(common, *STATE).read_text(encoding="utf-8"))
    except (ToolFailure, ValueError, OSError):
        return None  # no record, or an unreadable one: the usual advice stands
    if not isinstance(raw, dict):
        return None
    st: dict[str, Any] = raw
    culprit = st.get("culprit")
    if st.get("phase") != "done" or not isinstance(culprit, dict) or culprit.get("commit") != commit:
        return None
    return st


def from_bisect(repo: Path, commit: str, read: str) -> NextAction | None:
    """The next step given what the bisect did after naming `commit`; None when it did nothing more.

    `read` is the usual advice on reading the commit's own diff."""
    st = recorded(repo, commit)
    if st is None:
        return None
    c = commit[:12]
    sub, move = st.get("submodule_culprit"), st.get("move") or {}
    path = sub["path"] if sub else move.get("path")
    base = dict(submodule=path, old=move.get("old"), new=move.get("new"))
    if sub:
        what = "second-level bisect" if sub["role"] == "regression" else "find-fix search"
        found = (
            f"the first '{path}' commit that fails"
            if sub["role"] == "regression"
            else "the dropped fix (the first commit whose presence makes the check pass)"
        )
        return NextAction(
            kind="read_highlights",
            **base,
            superproject_commit=sub["superproject"],
            sentence=f"perfkit's bisect already ran the {what} inside '{path}' after naming {c}: "
            f"{found} is {sub['short']} {sub['subject']}. Read that commit next: evaluate_culprit on your "
            f"'{path}' checkout with commit {sub['commit']}.",
        )
    outcome, candidates = st.get("outcome"), st.get("candidates") or []
    if outcome == "source_part":
        return NextAction(
            kind="read_highlights",
            **base,
            superproject_commit=commit,
            sentence=f"perfkit's bisect already ran the split test of {c}: the pointer move alone passed and "
            f"{c} with the old pointer failed, so its source change is responsible: {read}.",
        )
    if outcome == "only_together":
        return NextAction(
            kind="read_highlights",
            **base,
            superproject_commit=commit,
            sentence=f"perfkit's bisect already ran the split test of {c}: neither half fails alone, only "
            f"the source change and the new '{path}' together; read both: {read}, and the "
            f"'{path}' commits it brings in.",
        )
    if outcome == "candidates" and st.get("candidates_in") not in (None, "superproject"):
        names = ", ".join(x["short"] for x in candidates[:8]) + (", ..." if len(candidates) > 8 else "")
        return NextAction(
            kind="read_highlights",
            **base,
            superproject_commit=commit,
            sentence=f"perfkit's bisect already searched '{path}' after naming {c}; skipped points leave "
            f"{len(candidates)} candidates ({names}). Make those points testable (the skip reasons are in "
            "bisect_status) rather than searching again.",
        )
    return None
