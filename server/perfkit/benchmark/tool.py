"""Tool declarations for the benchmark module."""

from perfkit.benchmark.read import read_benchmark
from perfkit.toolspec import ToolSpec

SPECS = [ToolSpec(read_benchmark, read_only=True, idempotent=True, title="Read a campaign's benchmark")]
