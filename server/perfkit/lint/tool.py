"""Tool declarations for the lint module."""

from perfkit.lint.lint import lint_wording
from perfkit.tools.spec import CliText, ToolSpec

CLI = CliText(
    examples=(
        "perfkit lint-wording --path proposed-pr-description.md",
        "perfkit lint-wording --path perfkit-demo/publish/campaign/proposed-pr-description.md \\\n"
        "      --campaign-dir perfkit-demo/publish/campaign --repo perfkit-demo/publish/target-repo",
        "perfkit lint-wording --text 'A blazing fast 2x speedup' --kind pr",
    ),
    params={
        "draft": "The draft given to perfkit render-pr (JSON text or a file path), checked as render-pr checks it; "
        "its benchmark options (so the campaign's figures are read the same way), its changes' arms, its unit and "
        "its job (whose words are not campaign vocabulary) are used.",
    },
)

SPECS = [
    ToolSpec(
        lint_wording, read_only=True, title="Lint the wording of a PR description or issue", cli=CLI, pause_gc=True
    )
]
