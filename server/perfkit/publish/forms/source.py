"""Where GitHub looks for issue forms and templates, and reading them without trusting the repo.

A form committed as a link to a file outside the repository (`/proc/self/environ`, a key in the
home folder) is named and not read; so is a file over `MAX_BYTES`. `config.yml` in the folder holds
GitHub's chooser settings (`blank_issues_enabled`, `contact_links`), not a form.
"""

from __future__ import annotations

from pathlib import Path

from perfkit.publish.forms.model import Unreadable
from perfkit.publish.repo_template import _ci_child

MAX_BYTES = 1024**2
_SUFFIXES = (".md", ".yml", ".yaml")


def candidate_paths(repo: Path) -> list[Path]:
    """The folder `ISSUE_TEMPLATE/` and the single `issue_template.md`, under `.github/`, the root and `docs/`."""
    paths: list[Path] = []
    for base in (repo / ".github", repo, repo / "docs"):
        folder = _ci_child(base, "issue_template")
        if folder and folder.is_dir() and not _leaves(repo, folder):
            paths += sorted(
                p
                for p in folder.iterdir()
                if p.suffix.lower() in _SUFFIXES and p.stem.lower() != "config" and (p.is_file() or p.is_symlink())
            )
        single = _ci_child(base, "issue_template.md")
        if single and (single.is_file() or single.is_symlink()):
            paths.append(single)
    return paths


def _leaves(repo: Path, p: Path) -> bool:
    try:
        p.resolve().relative_to(repo.resolve())
    except (ValueError, OSError, RuntimeError):
        return True
    return False


def read(repo: Path, p: Path) -> str | Unreadable:
    """The file's text, or why it was not read."""
    rel = str(p.relative_to(repo))
    if _leaves(repo, p):
        return Unreadable(rel, "is a link to a file outside the repository, so it was not read")
    if not p.is_file():
        return Unreadable(rel, "is not a regular file")
    size = p.stat().st_size
    if size > MAX_BYTES:
        return Unreadable(rel, f"is {size:,} bytes, more than the {MAX_BYTES:,} an issue form may be")
    return p.read_bytes().decode("utf-8-sig", "replace").replace("\r\n", "\n")
