"""Each device's worker installs into an environment of its own, so parallel installs never meet.

With `worker_env = "venv"` (the default with several devices) a worker's environment is a virtual
environment made from the user's interpreter (`python` setting, else `python3` on the PATH),
which then sees exactly the site folders that interpreter sees, in its order, and nothing more:
a user's virtual environment made without `--system-site-packages` hides its base interpreter's
global packages, so the worker's must too (an older copy there would win over the build under
test). What the worker installs (`pip install -e .` of the commit under test) goes first.
`pip` and `python` on the worker's PATH are the environment's, so the user's install commands
work unchanged. The user's environment is not written until the final restore; the worker
environments are removed with the worktrees.

With `worker_env = "none"` the commands run in the user's environment as they are; use it when
the commands install into a place that already depends on `{device}` or `PERFKIT_DEVICE`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from perfkit.bisect.models import BisectSettings
from perfkit.bisect.state import confine
from perfkit.errors import ToolFailure
from perfkit.guards import private_dirs

_USER_PTH = "zzz-perfkit-user-env.pth"  # processed last, so the worker's own installs win
# The site folders an interpreter imports from, in its own order: its site-packages as `site` set them up
# (a virtual environment's base folders only when it was made with --system-site-packages) and the user
# site only where `site` enabled it (never in a virtual environment that hides its base).
SITES = (
    "import site, sys; s = site.getsitepackages() + ([site.getusersitepackages()] if site.ENABLE_USER_SITE else []); "
    "print('\\n'.join(p for p in sys.path if p in s))"
)
_PURELIB = "import sysconfig; print(sysconfig.get_paths()['purelib'])"


def interpreter(settings: BisectSettings) -> str:
    if settings.python:
        return settings.python
    return shutil.which("python3") or shutil.which("python") or sys.executable


class WorkerEnv:
    """The environment of one worker: a virtual environment in `folder`, or nothing to make."""

    def __init__(self, folder: Path, settings: BisectSettings):
        self.folder = folder
        self.settings = settings

    @property
    def active(self) -> bool:
        return self.settings.worker_env == "venv"

    def ensure(self) -> dict[str, str]:
        """Create the environment when missing; the variables that put a command inside it."""
        if not self.active:
            return {}
        py = self.folder / "bin" / "python"
        if not py.exists():
            self._create()
        path = os.environ.get("PATH", "")
        return {"VIRTUAL_ENV": str(self.folder), "PATH": f"{self.folder / 'bin'}{os.pathsep}{path}"}

    def _create(self) -> None:
        user = interpreter(self.settings)
        confine.remove(self.folder.parent, self.folder)  # a half-made environment from a killed call
        private_dirs.make_dir(self.folder.parent)
        _call([user, "-m", "venv", "--without-pip", str(self.folder)], "create")
        sites = [s for s in _call([user, "-c", SITES], "inspect").splitlines() if s.strip()]
        purelib = Path(_call([str(self.folder / "bin" / "python"), "-c", _PURELIB], "inspect").strip())
        lines = [f"import site; site.addsitedir({s!r})" for s in sites if Path(s).is_dir()]
        (purelib / _USER_PTH).write_text("\n".join(lines) + "\n", encoding="utf-8")
        pip = self.folder / "bin" / "pip"
        py = shlex.quote(str(self.folder / "bin" / "python"))  # the folder may hold any character
        pip.write_text(f'#!/bin/sh\nexec {py} -m pip "$@"\n', encoding="utf-8")
        pip.chmod(0o755)
        for alias in ("pip3",):
            target = self.folder / "bin" / alias
            if not target.exists():
                target.symlink_to("pip")

    def remove(self) -> None:
        confine.remove_quietly(self.folder.parent, self.folder)


def _call(cmd: list[str], what: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME")}
    try:
        out = subprocess.run([*cmd], capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolFailure(f"cannot {what} a worker environment with {cmd[0]}: {exc}") from None
    if out.returncode != 0:
        tail = (out.stderr or out.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ToolFailure(
            f"cannot {what} a worker environment with {cmd[0]}: {tail[0]}; "
            "set `python` to an interpreter with the venv module, or worker_env = 'none'"
        )
    return out.stdout


def _names_device(settings: BisectSettings) -> bool:
    return any("{device}" in c or "PERFKIT_DEVICE" in c for c in [*settings.install, *settings.install_submodule])


def writes_user_env(settings: BisectSettings) -> bool:
    """Whether the bisect's installs may write the user's environment, so the end must re-run them there.

    One device and worker_env "none" install into the user's environment itself. Worker environments
    keep a worker's installs to themselves, unless the install commands name the device: then they
    write a place of that device's outside any environment (a prefix, a folder per device)."""
    if not settings.install and not settings.install_submodule:
        return False
    return not settings.devices or settings.worker_env == "none" or _names_device(settings)


def restore_devices(settings: BisectSettings) -> list[str | None]:
    """The devices the final restore runs the install commands for: each one when the commands name the
    device (each device's place was written), else once with no device."""
    if settings.devices and _names_device(settings):
        return list(settings.devices)
    return [None]
