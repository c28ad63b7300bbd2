"""Tool declarations for the lint module."""

from perfkit.lint.lint import lint_wording
from perfkit.toolspec import ToolSpec

SPECS = [ToolSpec(lint_wording, read_only=True, title="Lint the wording of a PR description or issue")]
