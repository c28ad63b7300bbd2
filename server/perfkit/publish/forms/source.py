"""Where GitHub looks for issue forms and templates, read from git objects at the repo's commit.

perfkit.repo.contribution_files reads the files as git objects: a form committed as a link (to
`/proc/self/environ`, to a key in the home folder) is only the name of its target there, so it is
refused, never followed, and so is a file over its size cap. Each refused form is named here with
the reason. `config.yml` in the folder holds GitHub's chooser settings (`blank_issues_enabled`,
`contact_links`), not a form.
"""

from __future__ import annotations

from perfkit.publish.forms.model import Unreadable
from perfkit.repo.contribution_files import RepoFiles

_SUFFIXES = ("md", "yml", "yaml")
_BASES = (".github", "", "docs")


def _suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    return name.rsplit(".", 1)[-1] if "." in name else ""


def _is_form(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    return _suffix(path) in _SUFFIXES and name.rsplit(".", 1)[0] != "config"


def candidate_paths(files: RepoFiles) -> list[str]:
    """The folder `ISSUE_TEMPLATE/` and the single `issue_template.md`, under `.github/`, the root and `docs/`."""
    paths: list[str] = []
    for base in _BASES:
        folder = files.child(base, "issue_template")
        if folder is not None and folder.kind == "tree":
            paths += [e.path for e in files.children(folder.path) if e.kind != "tree" and _is_form(e.path)]
        single = files.child(base, "issue_template.md")
        if single is not None and single.kind != "tree":
            paths.append(single.path)
    return paths


def read(files: RepoFiles, path: str) -> str | Unreadable:
    """The file's text, or why it was not read."""
    text = files.text(path)
    if text is not None:
        return text
    prefix = f"skipped: {path} "
    why = next((s.removeprefix(prefix) for s in files.skipped if s.startswith(prefix)), "could not be read")
    return Unreadable(path, why, refused_by_reader=True)
