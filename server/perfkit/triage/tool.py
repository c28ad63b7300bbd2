"""Tool declarations for the triage module."""

from perfkit.toolspec import ToolSpec
from perfkit.triage.compare import triage_builds

SPECS = [ToolSpec(triage_builds, read_only=True, title="Triage two build outputs: compiler or runtime")]
