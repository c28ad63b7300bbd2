"""Several devices: the settings that name them, and where each device's worker keeps its files.

A device is a name the user's commands understand (`-d {device}`, `CUDA_VISIBLE_DEVICES`,
`ASCEND_RT_VISIBLE_DEVICES`). Names go into shell commands, so only plain names are accepted:
letters, digits and `._:-`. Each device gets a slot folder of its own (by position, never by
name) holding its worktree, its parked submodule clone and its environment.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from perfkit.bisect.models import BisectSettings
from perfkit.errors import InputError

_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_ONE_EACH = (
    "give each device as its own entry: on the command line repeat the option (--devices 0 --devices 1), "
    'in a settings file or over MCP a list (devices = ["0", "1"])'
)


def check_settings(values: dict[str, Any]) -> None:
    """Refuse device settings that cannot work, naming the setting and what to pass instead.

    values have passed BisectOptions (options.py): each has its type, and numbers and lists their bounds."""
    devices = values.get("devices")
    if devices is not None:
        bad = [d for d in devices if not _NAME.fullmatch(d)]
        if bad:
            several = any(c in bad[0] for c in ",[] ;\"'")
            raise InputError(
                "devices",
                f"{bad[0]!r} is not a plain device name" + (" (it looks like several)" if several else ""),
                _ONE_EACH
                if several
                else "use letters, digits and ._:- only (the name goes into your shell commands as {device})",
            )
        if len(set(devices)) != len(devices):
            dup = next(d for d in devices if devices.count(d) > 1)
            raise InputError("devices", f"{dup!r} is listed twice", "list each device once")
    if values.get("backend") == "ray":
        if not values.get("devices"):
            raise InputError("backend", "'ray' needs devices", 'list one entry per accelerator, e.g. ["0", "1"]')
        if importlib.util.find_spec("ray") is None:
            raise InputError("backend", "'ray' needs the ray package, not installed here", "pip install 'perfkit[ray]'")
    _check_ahead(values)
    _check_placeholder(values)
    if "ray_resource" in values and not _NAME.fullmatch(str(values["ray_resource"])):
        raise InputError("ray_resource", f"{values['ray_resource']!r} is not a resource name", 'pass e.g. "NPU"')


def _check_placeholder(values: dict[str, Any]) -> None:
    """`{device}` needs a device to stand for: without devices it would reach the shell as literal text."""
    if values.get("devices"):
        return
    for key in ("run", "install", "install_submodule"):
        value = values.get(key)
        for cmd in [value] if isinstance(value, str) else value or []:
            if "{device}" in cmd:
                raise InputError(
                    key,
                    f"{cmd!r} names {{device}}, but no devices are listed, so nothing would replace it",
                    'list the device it stands for (devices = ["0"], or --devices 0 on the command line), '
                    "or write the device name in the command",
                )


def _check_ahead(values: dict[str, Any]) -> None:
    """Prepared installs are moved between devices, so they must not depend on which device runs them."""
    if not values.get("build_ahead"):
        return
    if not values.get("devices"):
        raise InputError("build_ahead", "needs devices", 'list the free devices too, e.g. devices = ["0", "1"]')
    if values.get("backend", "local") != "local":
        raise InputError("build_ahead", "works with the local backend only", "leave build_ahead at 0 with Ray")
    if values.get("worker_env", "venv") != "venv":
        raise InputError(
            "build_ahead", "needs worker_env 'venv'", "installs made ahead must go into an environment of their own"
        )
    named = [c for key in ("install", "install_submodule") for c in values.get(key) or [] if "{device}" in c]
    if named:
        raise InputError(
            "build_ahead",
            f"the install command {named[0]!r} names {{device}}, but a build made ahead may run on any device",
            "remove {device} from the install commands, or leave build_ahead at 0",
        )


def with_device(command: str, device: str | None) -> str:
    """The command as the device's worker runs it: `{device}` replaced by the device name."""
    return command if device is None else command.replace("{device}", device)


def worker_id(bisect_id: str, slot: int) -> str:
    """The PERFKIT_BISECT_ID of a device worker's commands. Each worker has its own, so the sweep after
    one worker's command (children that left its process group) never touches another worker's
    command; a resume or reset sweeps every worker's id as well as the bisect's own."""
    return f"{bisect_id}.slot-{slot}"


def workers_dir(sdir: Path) -> Path:
    return sdir / "workers"


def slot_paths(sdir: Path, repo: Path, slot: int) -> tuple[Path, Path, Path]:
    """(worktree, parking place of the submodule clone, environment) of the worker in slot."""
    base = workers_dir(sdir) / f"slot-{slot}"
    return base / repo.name, base / "parked-submodule", base / "env"


def worker_slots(sdir: Path) -> int:
    """How many slot folders exist (a crash may leave more than the settings now name)."""
    base = workers_dir(sdir)
    return len(list(base.glob("slot-*"))) if base.is_dir() else 0


def ray_folder(bisect_id: str, slot: int) -> Path:
    """Where a Ray actor keeps its clones, worktree and environment, in its node's temporary folder."""
    return Path(tempfile.gettempdir()) / "perfkit-ray" / f"{bisect_id}-slot-{slot}"


def remove_local_folders(bisect_id: str) -> None:
    """Remove the Ray actor folders of this bisect found on this machine (actors killed with their cluster
    leave them): on close, on resume and on reset."""
    base = Path(tempfile.gettempdir()) / "perfkit-ray"
    for d in base.glob(f"{bisect_id}-slot-*") if base.is_dir() else []:
        shutil.rmtree(d, ignore_errors=True)


def ahead_notes(settings: BisectSettings) -> list[str]:
    """What build_ahead cannot do with these settings, said at start rather than found in the numbers."""
    b, d = settings.build_ahead, len(settings.devices)
    if not b:
        return []
    if not settings.install and not settings.install_submodule:
        return [f"build_ahead {b}: there are no install commands, so there is nothing to build ahead"]
    if b < d:
        return [
            f"build_ahead {b} is below the {d} devices: a round tests {d} points and waits for the slowest, so "
            f"with at most {b} of them built ahead every round still waits for an install; build_ahead {d} or "
            f"more prepares a whole round ({d * (d + 1)} foresee every answer)"
        ]
    return []
