"""Where perfkit's own Jinja templates live, in a wheel and in a source checkout.

A wheel carries them as perfkit/_templates (pyproject force-include); a source checkout has
them at <repo root>/templates. Looking in both means an editable install and a built package
render the same files.
"""

from __future__ import annotations

from pathlib import Path

from perfkit.errors import ToolFailure

_HERE = Path(__file__).resolve()
NAMES = ("pr-description.md.j2", "issue.md.j2")


def templates_dir() -> Path:
    for candidate in (_HERE.parents[1] / "_templates", _HERE.parents[3] / "templates"):
        if all((candidate / n).is_file() for n in NAMES):
            return candidate
    raise ToolFailure("perfkit's templates are missing: reinstall perfkit (they ship as perfkit/_templates)")
