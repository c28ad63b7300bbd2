"""Tool declarations for the culprit module."""

from perfkit.culprit.evaluate import evaluate_culprit
from perfkit.toolspec import ToolSpec

SPECS = [ToolSpec(evaluate_culprit, read_only=True, title="Evaluate a bisect culprit")]
