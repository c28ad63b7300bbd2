"""Regenerate the serving example: pr-description.example.md and issue.example.md in this folder.

They are rendered by render_pr from campaign/ (one serving-benchmark result JSON per run under
results/<arm>/, metrics declared in metrics.yaml), this folder's draft.json and the target
repository built by examples/publish/target_repo.py. Usage:

    python examples/serving/make_example.py          # write both examples
    python examples/serving/make_example.py --check  # exit 1 if either example is stale
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "publish"))

from target_repo import build  # noqa: E402

OUTPUTS = {"proposed-pr-description.md": "pr-description.example.md", "proposed-issue.md": "issue.example.md"}


def render(work: Path):
    """Render the serving example inside work; return (result, campaign copy, target repo)."""
    from perfkit.publish.render import render_pr

    campaign = work / "campaign"
    shutil.copytree(HERE / "campaign", campaign)
    repo = build(work / "target-repo")
    result = render_pr(str(campaign), str(repo), draft=str(HERE / "draft.json"), out_dir=str(work / "out"))
    return result, campaign, repo


def main(check: bool) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        result, _, _ = render(Path(tmp))
        stale = []
        for produced, example in OUTPUTS.items():
            text = (Path(tmp) / "out" / produced).read_text()
            target = HERE / example
            if check:
                if not target.is_file() or target.read_text() != text:
                    stale.append(example)
            else:
                target.write_text(text)
        for f in result.lint_pr + result.lint_issue:
            print(f"lint: {f.line}:{f.column} {f.rule}: {f.excerpt!r}: {f.fix}", file=sys.stderr)
        if stale:
            print("stale: " + ", ".join(stale) + " (run examples/serving/make_example.py)", file=sys.stderr)
        return 1 if stale or result.lint_pr or result.lint_issue else 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
