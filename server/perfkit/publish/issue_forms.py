"""The target repo's issue forms and issue templates: read them, pick one, and lay our paragraphs under it.

The stages live in `perfkit.publish.forms`: `source` finds and reads the files, `parse` turns them
into forms with PyYAML, `rank` scores them by their words, `roles` and `assign` decide which field
gets what, and `fill_form` / `fill_markdown` write the body. This module ties them together for
render_pr. The files come from perfkit.repo.contribution_files (git objects at the repo's commit); lint reads
the same files for the lines it leaves alone (perfkit.repo.template_text.issue_template_lines).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from perfkit.errors import InputError
from perfkit.guards import safe_yaml
from perfkit.publish.forms import fill_form, fill_markdown, parse, rank, source
from perfkit.publish.forms.common import Filled, Material
from perfkit.publish.forms.model import IssueForm, Unreadable
from perfkit.repo.contribution_files import RepoFiles

__all__ = ["Choice", "IssueForm", "Material", "fill", "find_forms", "pick"]


def find_forms(files: RepoFiles) -> tuple[list[IssueForm], list[Unreadable]]:
    """Every issue form or template that reads, and every one that does not, with the reason."""
    forms: list[IssueForm] = []
    bad: list[Unreadable] = []
    for rel in source.candidate_paths(files):
        text = source.read(files, rel)
        if isinstance(text, Unreadable):
            bad.append(text)
            continue
        read = parse.markdown_template if rel.lower().endswith(".md") else parse.yaml_form
        try:
            forms.append(read(rel, text))
        except (safe_yaml.YamlRefused, parse.NotAForm) as exc:
            bad.append(Unreadable(rel, str(exc)))
    return forms, bad


@dataclass
class Choice:
    form: IssueForm | None
    why: str
    candidates: list[str]
    scores: list[rank.Score] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        return [f"issue form {u.path} skipped: {u.error}" for u in self.unreadable if not u.refused_by_reader]


def _chosen(forms: list[IssueForm], scores: list[rank.Score], choice: str) -> rank.Score:
    c = choice.strip().lower()
    for s in scores:
        f = s.form
        names = (f.path.lower(), Path(f.path).name.lower(), Path(f.path).stem.lower(), f.name.lower())
        if c in names or rank.norm(c) == rank.norm(f.name):  # "Bug Report" names "\U0001F41E Bug Report"
            if s.automation:
                raise InputError(
                    "issue_form",
                    f"'{choice}' is {s.reason}; its text is for a bot to fill, not a person",
                    "pick another form, or leave issue_form out",
                )
            return s
    paths = [f.path for f in forms]
    raise InputError(
        "issue_form",
        f"'{choice}' is not an issue form of this repo",
        f"use one of: {', '.join(paths)}" if paths else "this repo has no issue forms; leave it out",
    )


def pick(files: RepoFiles, choice: str | None) -> Choice:
    """The form to use: the one named by choice, else the best-ranked one a person would file."""
    forms, bad = find_forms(files)
    scores = rank.ranked(forms)
    paths = [f.path for f in forms]
    if choice:
        s = _chosen(forms, scores, choice)
        return Choice(s.form, f"chosen by the issue_form parameter ({s.reason})", paths, scores, bad)
    usable = [s for s in scores if not s.never]
    if not usable:
        why = "the repo has no issue forms or templates"
        if forms:
            kinds = sorted({"meant for automation" if s.automation else f"a {s.kind} form" for s in scores})
            why = f"no issue form of the repo ({len(forms)}) fits a cost report: each is {' or '.join(kinds)}"
            why += "; name one with issue_form to use it anyway" if any(not s.automation for s in scores) else ""
        elif bad:
            why += " that could be read"
        return Choice(None, why, paths, scores, bad)
    best = usable[0]
    why = f"{best.reason}; score {best.score}, the highest of {len(forms)} (scores lists every form)"
    if best.kind in rank.NARROW_KINDS:
        why += "; the repo has no performance, question, feature, general or bug form"
    return Choice(best.form, why, paths, scores, bad)


def fill(form: IssueForm, material: Material) -> Filled:
    """The issue body under the form's fields, what went under each, and the answers that matched no field."""
    return fill_markdown.fill(form, material) if form.markdown else fill_form.fill(form, material)
