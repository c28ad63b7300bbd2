"""Tool declarations for the changes module."""

from perfkit.changes.blame import git_blame_removal
from perfkit.changes.classify import classify_changes
from perfkit.toolspec import ToolSpec

SPECS = [
    ToolSpec(classify_changes, read_only=True, title="Classify a delivery branch's changes"),
    ToolSpec(git_blame_removal, read_only=True, title="Blame removed code"),
]
