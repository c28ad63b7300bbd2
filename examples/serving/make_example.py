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
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "publish"))

from make_examples import OUTPUTS as OUTPUTS  # noqa: E402  (the tests read it from here)
from make_examples import regenerate  # noqa: E402
from target_repo import build  # noqa: E402


def render(work: Path):
    """Render the serving example inside work; return (result, campaign copy, target repo)."""
    from perfkit.publish.render import render_pr

    campaign = work / "campaign"
    shutil.copytree(HERE / "campaign", campaign)
    repo = build(work / "target-repo")
    result = render_pr(str(campaign), str(repo), draft=str(HERE / "draft.json"), out_dir=str(work / "out"))
    return result, campaign, repo


def main(check: bool) -> int:
    return regenerate(render, HERE, HERE, "examples/serving/make_example.py", check)


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
