"""Regenerate templates/pr-description.example.md and templates/issue.example.md.

The examples are rendered by render_pr from examples/campaign, this folder's draft.json and the
target repository built by target_repo.py. The correctness figures the draft quotes come from the
campaign's re-verification record (examples/campaign/verify/report.md), as a real campaign's would.
Usage:

    python examples/publish/make_examples.py          # write both examples
    python examples/publish/make_examples.py --check  # exit 1 if either example is stale
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from target_repo import build  # noqa: E402

OUTPUTS = {"proposed-pr-description.md": "pr-description.example.md", "proposed-issue.md": "issue.example.md"}


def render(work: Path):
    """Render the examples inside work; return (result, campaign copy, target repo)."""
    from perfkit.publish.render import render_pr

    campaign = work / "campaign"
    shutil.copytree(ROOT / "examples" / "campaign", campaign)
    repo = build(work / "target-repo")
    result = render_pr(str(campaign), str(repo), draft=str(HERE / "draft.json"), out_dir=str(work / "out"))
    return result, campaign, repo


def regenerate(render_in: Callable[[Path], Any], out_dir: Path, shown_from: Path, script: str, check: bool) -> int:
    """Write the rendered examples into out_dir, or with check list the stale ones; 1 if stale or not lint-clean.

    Shared with examples/serving/make_example.py, so both example sets are kept fresh by the same rule.
    """
    with tempfile.TemporaryDirectory() as tmp:
        result, _, _ = render_in(Path(tmp))
        stale = []
        for produced, example in OUTPUTS.items():
            text = (Path(tmp) / "out" / produced).read_text()
            target = out_dir / example
            if check:
                if not target.is_file() or target.read_text() != text:
                    stale.append(str(target.relative_to(shown_from)))
            else:
                target.write_text(text)
        findings = result.lint_pr + result.lint_issue
        for f in findings:
            print(f"lint: {f.line}:{f.column} {f.rule}: {f.excerpt!r}: {f.fix}", file=sys.stderr)
        if stale:
            print("stale: " + ", ".join(stale) + f" (run {script})", file=sys.stderr)
        return 1 if stale or findings else 0


def main(check: bool) -> int:
    return regenerate(render, ROOT / "templates", ROOT, "examples/publish/make_examples.py", check)


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
