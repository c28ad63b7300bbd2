"""Tool declarations for the changes module."""

from perfkit.changes.blame import git_blame_removal
from perfkit.changes.classify import classify_changes
from perfkit.tools.spec import CliText, ToolSpec

CLASSIFY = CliText(
    examples=(
        "perfkit classify-changes perfkit-demo/publish/target-repo main",
        "perfkit classify-changes ../upstream-repo origin/main --head my-branch --json",
    )
)
BLAME = CliText(
    examples=(
        "perfkit git-blame-removal perfkit-demo/publish/target-repo main",
        "perfkit git-blame-removal ../upstream-repo origin/main --paths src/ --paths tests/",
    )
)

SPECS = [
    ToolSpec(
        classify_changes, read_only=True, title="Classify a delivery branch's changes", cli=CLASSIFY, pause_gc=True
    ),
    ToolSpec(git_blame_removal, read_only=True, title="Blame removed code", cli=BLAME),
]
