"""Python installations and environments shaped like a user's: a base interpreter with global packages,
a virtual environment on it that hides them, and a package whose history changes behaviour.

A base interpreter is what pyenv or a system install gives: an interpreter with a site-packages of its
own. The one here is the running interpreter's binary copied into a folder with the standard library
linked in, so Python finds its prefix there and its global site-packages is a folder the test owns.
The package `pkg` builds with an in-tree PEP 517 backend (no network, no setuptools): a regular
install copies it, an editable install puts an import hook in site-packages, as setuptools does for
projects whose layout it cannot add to sys.path as a folder. Python asks that hook last, so an older
regular copy anywhere on the import path wins over it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from helpers.gitbuild import run_git

VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"


def base_interpreter(folder: Path) -> tuple[Path, Path]:
    """(its python, its global site-packages); skips when this interpreter cannot run from a copy."""
    real = Path(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    exe = folder / "bin" / VERSION
    lib = folder / "lib" / VERSION
    exe.parent.mkdir(parents=True)
    lib.mkdir(parents=True)
    shutil.copy2(real, exe)
    (folder / "bin" / "python3").symlink_to(VERSION)
    for entry in stdlib.iterdir():
        if entry.name not in ("site-packages", "dist-packages"):
            (lib / entry.name).symlink_to(entry)
    ask = "import site, sys; print(sys.prefix); print(site.getsitepackages()[0])"
    res = subprocess.run([str(exe), "-c", ask], capture_output=True, text=True, timeout=120)
    lines = res.stdout.split()
    if res.returncode != 0 or len(lines) != 2 or Path(lines[0]) != folder:
        pytest.skip(f"this interpreter does not run from a copy of itself ({res.stderr.strip()[-200:]})")
    site = Path(lines[1])
    site.mkdir(parents=True, exist_ok=True)
    return exe, site


def with_pip(env: Path) -> None:
    """Give a virtual environment the running pip (linked, as `python -m venv` would have copied it)."""
    import pip  # noqa: PLC0415  # only the tests that build environments need it

    src = Path(pip.__file__).parent
    site = next((env / "lib").glob("python3*/site-packages"))
    (site / "pip").symlink_to(src)
    for info in src.parent.glob("pip-*.dist-info"):
        (site / info.name).symlink_to(info)


def venv(base_python: Path, folder: Path, system_site: bool = False) -> Path:
    """A virtual environment of base_python with pip; its python."""
    cmd = [str(base_python), "-m", "venv", "--without-pip", str(folder)]
    subprocess.run(cmd + (["--system-site-packages"] if system_site else []), check=True, timeout=300)
    with_pip(folder)
    return folder / "bin" / "python"


BACKEND = r'''
"""A PEP 517 backend for `pkg`: regular wheels copy pkg/, editable ones install an import hook."""
import base64, hashlib, os, zipfile

NAME, VERSION = "pkg", open(os.path.join(os.path.dirname(__file__), "..", "VERSION")).read().strip()
INFO = f"{NAME}-{VERSION}.dist-info"

def _wheel(directory, files):
    path = os.path.join(directory, f"{NAME}-{VERSION}-py3-none-any.whl")
    files[f"{INFO}/METADATA"] = f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
    files[f"{INFO}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: pkg-backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{INFO}/top_level.txt"] = f"{NAME}\n"
    record = []
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            data = text.encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            z.writestr(name, data)
            record.append(f"{name},sha256={digest},{len(data)}")
        z.writestr(f"{INFO}/RECORD", "\n".join(record + [f"{INFO}/RECORD,,"]) + "\n")
    return os.path.basename(path)

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    root = os.path.abspath(NAME)
    files = {}
    for folder, _, names in os.walk(root):
        for n in names:
            if n.endswith(".py"):
                full = os.path.join(folder, n)
                files[os.path.relpath(full, os.path.dirname(root))] = open(full).read()
    return _wheel(wheel_directory, files)

FINDER = """
import importlib.abc, importlib.util, sys
MAPPING = {mapping!r}
class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in MAPPING:
            return importlib.util.spec_from_file_location(name, MAPPING[name] + "/__init__.py",
                                                          submodule_search_locations=[MAPPING[name]])
        return None
def install():
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
"""

def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    finder = f"__editable___{NAME}_finder"
    return _wheel(wheel_directory, {
        f"{finder}.py": FINDER.format(mapping={NAME: os.path.abspath(NAME)}),
        f"__editable__.{NAME}-{VERSION}.pth": f"import {finder}; {finder}.install()\n",
    })

def get_requires_for_build_wheel(config_settings=None):
    return []

get_requires_for_build_editable = get_requires_for_build_wheel
'''

PYPROJECT = """[build-system]
requires = []
build-backend = "backend"
backend-path = ["_build"]

[project]
name = "pkg"
dynamic = ["version"]
"""

# the check a user would write: the error of pkg's sum against the exact value
CHECK = "import pkg; e = abs(pkg.total([0.1] * 10) - 1.0); print(f'max_abs_err={e:.3g}', 'FAIL' if e > 0 else 'PASS')"
GOOD = "import math\n\n\ndef total(xs):\n    return math.fsum(xs)\n"
BAD = "def total(xs):\n    s = 0.0\n    for x in xs:\n        s += x\n    return s\n"


def pkg_repo(path: Path, commits: int, culprit: int) -> list[str]:
    """`pkg` with `commits` commits after the first; `total` loses precision from commit `culprit` on.
    Every commit of version 1.0 passes; the first commit is the good end."""
    path.mkdir(parents=True)
    run_git(path, "init", "-q", "-b", "main")
    (path / "_build").mkdir()
    (path / "_build" / "backend.py").write_text(BACKEND)
    (path / "pyproject.toml").write_text(PYPROJECT)
    (path / "VERSION").write_text("1.0\n")
    (path / "pkg").mkdir()
    (path / "tests").mkdir()
    (path / "tests" / "check.py").write_text(CHECK + "\n")
    shas = []
    for i in range(commits + 1):
        (path / "pkg" / "__init__.py").write_text(BAD if i >= culprit and i > 0 else GOOD)
        (path / "NEWS").write_text(f"change {i}\n")
        if i == 1:
            (path / "VERSION").write_text("1.1.dev0\n")
        run_git(path, "add", "-A")
        run_git(path, "commit", "-q", "-m", "bug: sum the simple way" if i == culprit else f"change {i}")
        shas.append(run_git(path, "rev-parse", "HEAD").strip())
    return shas


def install(python: Path, source: Path, target: Path | None = None) -> None:
    """A regular (non-editable) install of source with real pip, into python's environment or target."""
    where = ["--target", str(target)] if target else []
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--no-build-isolation", *where,
         str(source)],
        check=True, timeout=600, capture_output=True,
    )  # fmt: skip
