"""Tool declarations for the culprit module."""

from perfkit.culprit.evaluate import evaluate_culprit
from perfkit.tools.spec import CliText, ToolSpec

CLI = CliText(
    examples=(
        "perfkit evaluate-culprit perfkit-demo/bisect/pypto culprit --submodule runtime   # the bump the demo found",
        "perfkit evaluate-culprit perfkit-demo/bisect/pypto/runtime culprit   # the runtime commit inside it",
        "perfkit evaluate-culprit ../compiler 3f2c1ab --max-highlights 5 --json",
    )
)

SPECS = [ToolSpec(evaluate_culprit, read_only=True, title="Evaluate a bisect culprit", cli=CLI)]
