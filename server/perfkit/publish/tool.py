"""Tool declarations for the publish module."""

from perfkit.publish.render import render_pr
from perfkit.toolspec import ToolSpec

SPECS = [
    ToolSpec(
        render_pr, read_only=False, destructive=True, idempotent=True, title="Render the PR description and the issue"
    )
]
