"""Affinity: a point is tested only in the slot whose worktree and environment hold its build.

A slot (a worktree, its submodule clone, its environment and the record of what was installed
there) belongs to one device for the whole bisect, because an install may depend on the device:
`{device}` or PERFKIT_DEVICE in an install command, or worker_env = "none" with per-device install
folders. Only when no build can depend on the device (build_ahead: installs without `{device}`,
into the slot's own environment, made while no device is known) does a slot move between devices,
and then its build moves with it.

The pool keeps the invariant when it gives points to slots; the slot checks it again right before
the run command starts. A violation is perfkit's own error: it stops the bisect with the message
below and records no verdict, since a verdict read from another point's build can name a wrong
culprit with no sign of it.
"""

from __future__ import annotations

from perfkit.bisect.state.point import Point
from perfkit.errors import ToolFailure


class AffinityError(ToolFailure):
    """A point was about to run away from its build: an internal error, never a verdict."""

    def __init__(self, point: Point, slot: int, why: str):
        sub = f" + submodule {point.submodule[:12]}" if point.submodule else ""
        super().__init__(
            f"internal error, no verdict recorded: point {point.superproject[:12]}{sub} was about to run in slot "
            f"{slot}, but {why}. The bisect is paused with every step so far; please report this with "
            "bisect_status's output"
        )


def bound(build_ahead: int) -> bool:
    """Whether each slot stays with one device (builds may depend on the device)."""
    return build_ahead == 0


def check(point: Point, slot: int, device: str | None, own_device: str | None, built_for_point: bool) -> None:
    """Raise AffinityError unless the slot is on its own device (when bound) and its build is point's."""
    if own_device is not None and device != own_device:
        raise AffinityError(point, slot, f"that slot belongs to device {own_device}, not to {device}")
    if not built_for_point:
        raise AffinityError(point, slot, "that slot's installed build is not this point's")
