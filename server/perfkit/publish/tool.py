"""Tool declarations for the publish module."""

from perfkit.publish.render import render_pr
from perfkit.tools.spec import CliText, ToolSpec

CLI = CliText(
    examples=(
        "perfkit render-pr examples/campaign perfkit-demo/publish/target-repo --draft examples/publish/draft.json",
        "perfkit render-pr ../my-campaign ../upstream-repo --draft draft.yaml --repo-commit origin/main",
        "perfkit render-pr ../my-campaign ../upstream-repo --out-dir drafts/   # no draft: placeholders",
    ),
    params={
        "draft": "What you write yourself (job, GPU, prose, changes, correctness checks, answers to the repo's "
        "headings, Details), as JSON text or a .json/.yaml file; examples/publish/draft.json shows every part. "
        "Without it every prose slot is a visible <placeholder>; the figures are filled either way.",
    },
)

SPECS = [
    ToolSpec(
        render_pr,
        read_only=False,
        destructive=True,
        idempotent=True,
        title="Render the PR description and the issue",
        cli=CLI,
        pause_gc=True,
    )
]
