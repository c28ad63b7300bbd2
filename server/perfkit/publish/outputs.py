"""Writing render_pr's two files without losing anything the user owns.

Every target is checked before anything is written: a folder or a device where a file goes is a
clear error, and an output folder under /proc, /sys or /dev is refused. Both files are written to
temporary names beside their targets and renamed into place only when both are complete, so a
failure leaves the user's previous files as they were. A replaced file keeps its mode; a link
planted at a target is replaced, never written through.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from perfkit.errors import InputError

_SYSTEM = (Path("/proc"), Path("/sys"), Path("/dev"))


def _under_system(p: Path) -> Path | None:
    for root in _SYSTEM:
        if p == root or root in p.parents:
            return root
    return None


def check_out_dir(out: Path, field: str = "out_dir") -> Path:
    """The output folder, resolved; refused when it is a system folder or not a folder."""
    resolved = out.expanduser().resolve()
    root = _under_system(resolved)
    if root is not None:
        raise InputError(
            field, f"'{out}' is under {root}, a system folder", "pass a folder of your own for the two files"
        )
    if resolved.exists() and not resolved.is_dir():
        raise InputError(field, f"'{out}' is not a folder", "pass a folder for the two files")
    return resolved


def _check_target(target: Path, field: str) -> int | None:
    """The mode to keep when target is a regular file; refuse anything that is not a file or a link."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return None  # a planted link: replaced by a new file, its target untouched
    if stat.S_ISDIR(st.st_mode):
        raise InputError(field, f"'{target}' is a folder", "move it away or pass another out_dir; nothing was written")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(field, f"'{target}' is not a regular file", "remove it or pass another out_dir")
    return stat.S_IMODE(st.st_mode)


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_all(out: Path, files: dict[str, str], field: str = "out_dir") -> dict[str, Path]:
    """Write every file, all or none: checked first, written to temporary names, then renamed."""
    out = check_out_dir(out, field)
    modes = {name: _check_target(out / name, field) for name in files}
    out.mkdir(parents=True, exist_ok=True)
    temps: dict[str, str] = {}
    try:
        for name, text in files.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out)
            temps[name] = tmp
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            mode = modes[name]
            os.chmod(tmp, _default_mode() if mode is None else mode)
        for name, tmp in temps.items():
            os.replace(tmp, out / name)
    finally:
        for tmp in temps.values():
            if os.path.lexists(tmp):
                os.unlink(tmp)
    return {name: out / name for name in files}
