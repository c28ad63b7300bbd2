"""Tool declarations for the benchmark module."""

from perfkit.benchmark.read import read_benchmark
from perfkit.tools.spec import CliText, ToolSpec

CLI = CliText(
    examples=(
        "perfkit read-benchmark examples/campaign",
        "perfkit read-benchmark examples/campaign --warmup-steps 3 --json",
        'perfkit read-benchmark ../my-campaign --columns \'{"step_time_s": "iter_time", "run": "trial"}\'',
    ),
    params={
        "warmup_steps": "How many first steps of every run to leave out of the steady-state figures (step 1, the "
        "one-time cost, is reported on its own). Default: 1.",
    },
)

SPECS = [ToolSpec(read_benchmark, read_only=True, idempotent=True, title="Read a campaign's benchmark", cli=CLI)]
