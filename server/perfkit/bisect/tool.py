"""Tool declarations for the bisect module.

None of the bisect tools is read-only towards the repository's git directory (they add a worktree
and keep state there) except bisect_status, and none can destroy the user's work: the checkout,
index, stash and submodule are never written. They run the user's install and run commands.
"""

from perfkit.bisect.tools import bisect_reset, bisect_run, bisect_start, bisect_status, bisect_step
from perfkit.toolspec import ToolSpec

SPECS = [
    ToolSpec(bisect_start, read_only=False, destructive=False, idempotent=False, title="Start a precision bisect"),
    ToolSpec(bisect_step, read_only=False, destructive=False, idempotent=False, title="Test one bisect point"),
    ToolSpec(bisect_run, read_only=False, destructive=False, idempotent=False, title="Run a bisect to the end"),
    ToolSpec(bisect_status, read_only=True, title="Show the bisect's status"),
    ToolSpec(bisect_reset, read_only=False, destructive=False, idempotent=True, title="Reset the bisect"),
]
