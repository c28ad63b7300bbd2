"""Tool declarations for the triage module."""

from perfkit.tools.spec import CliText, ToolSpec
from perfkit.triage.compare import triage_builds

CLI = CliText(
    examples=(
        "perfkit triage-builds build_output/Qwen3_20260301 build_output/Qwen3_20260315",
        "perfkit triage-builds good-build bad-build --subdirs . --max-diffs 10",
    )
)

SPECS = [ToolSpec(triage_builds, read_only=True, title="Triage two build outputs: compiler or runtime", cli=CLI)]
