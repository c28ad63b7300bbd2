"""What a step tested: every package the installs put in, the path it imports from, and the commit there.

A verdict is worth something only if the run imported the build of the point under test. An
install can be lost without a sound: an older regular copy of the package earlier on the import
path (in the base interpreter's global site-packages, or in the user's environment seen from a
worker's) wins over an editable install, whose import hook Python asks last. So before every run
the step asks the interpreter the commands use, in their environment, where each package installed
from the checkout under test imports from. A package whose import resolves anywhere but the
checkout (an editable install) or the copy its own install made (a regular install from the
checkout) is an error naming the package and the path that shadowed it, raised before the run, so
no verdict is ever counted for it.

"Installed from the checkout" is read from what pip records: `direct_url.json` pointing into the
checkout, or package metadata that lives inside it (a `setup.py develop` install). The probe is a
self-contained program (the environment under test need not hold perfkit), also embedded in the
reproduce script.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from urllib.parse import quote

from perfkit.bisect.models import TestedPackage
from perfkit.errors import ToolFailure

# argv[1]: a JSON list of the checkout folders. Prints a JSON list, one entry per (package, import name).
# With argv[2], the commits those folders hold (the reproduce script), it prints one line per package
# instead and exits 4 when one is shadowed.
PROBE = r"""
import importlib.metadata as md, importlib.util, json, os, sys
from urllib.parse import unquote, urlparse
roots = [os.path.realpath(r) for r in json.loads(sys.argv[1])]
def under(p):
    return any(p == r or p.startswith(r.rstrip(os.sep) + os.sep) for r in roots)
def names(dist):
    top = (dist.read_text("top_level.txt") or "").split()
    if top:
        return top
    out = []
    for f in dist.files or []:
        head = f.parts[0] if f.parts else ""
        meta = head.endswith((".dist-info", ".egg-info", ".data")) or head in ("..", "__pycache__")
        if len(f.parts) > 1 and not meta:
            out.append(head)
        elif len(f.parts) == 1 and head.endswith(".py") and not head.startswith("__editable__"):
            out.append(head[:-3])
    norm = (dist.metadata["Name"] or "").replace("-", "_").replace(".", "_").lower()
    return list(dict.fromkeys(out + ([norm] if norm else [])))
out, seen = [], set()
for dist in md.distributions():
    src, editable = None, False
    try:
        info = json.loads(dist.read_text("direct_url.json") or "null")
    except Exception:
        info = None
    if isinstance(info, dict):
        u = urlparse(str(info.get("url", "")))
        if u.scheme == "file":
            src = os.path.realpath(unquote(u.path))
            editable = bool((info.get("dir_info") or {}).get("editable"))
    meta = getattr(dist, "_path", None)
    if src is None and meta is not None and under(os.path.realpath(str(meta))):
        src, editable = os.path.realpath(str(meta.parent)), True
    if src is None or not under(src):
        continue
    key = (dist.metadata["Name"], str(meta))
    if key in seen:
        continue
    seen.add(key)
    files = {os.path.realpath(str(dist.locate_file(f))) for f in dist.files or []}
    for mod in names(dist):
        if not mod.isidentifier():
            continue
        try:
            spec = importlib.util.find_spec(mod)
        except Exception:
            spec = None
        if spec is None:
            continue
        locs = list(spec.submodule_search_locations or [])
        origin = spec.origin if spec.origin not in (None, "namespace", "built-in", "frozen") else None
        if origin is None and not locs:
            continue
        path = os.path.realpath(origin or locs[0])
        where = os.path.dirname(path) if origin and locs else path
        ok = under(path) or path in files
        out.append({"package": dist.metadata["Name"], "version": dist.version, "module": mod, "path": where,
                    "source": src, "editable": editable, "ok": ok})
if len(sys.argv) < 3:
    print(json.dumps(out))
    sys.exit(0)
commits = json.loads(sys.argv[2])  # the reproduce script: say what is tested, refuse what is shadowed
def commit(p):
    return next((c for r, c in zip(roots, commits) if p == r or p.startswith(r.rstrip(os.sep) + os.sep)), "?")
for e in out:
    if e["ok"]:
        at = commit(e["path"] if under(e["path"]) else e["source"])[:12]
        print(f"perfkit reproduce: tested {e['package']} {e['version']} ({e['module']}) from {e['path']} at {at}")
bad = [e for e in out if not e["ok"]]
for e in bad:
    print(f"perfkit reproduce: the build under test is shadowed: {e['package']} (import {e['module']}) from "
          f"{e['path']}, not from {e['source']}; remove that copy (pip uninstall) or install without -e")
sys.exit(4 if bad else 0)
"""


class ShadowedImport(ToolFailure):
    """A package installed from the checkout under test imports from somewhere else: no verdict may count."""


def interpreter(env: Mapping[str, str], python: str | None) -> str | None:
    """The interpreter the step's commands get: the worker environment's, else `python` as set, else python3."""
    venv = env.get("VIRTUAL_ENV")
    if venv and (Path(venv) / "bin" / "python").exists():
        return str(Path(venv) / "bin" / "python")
    if python:
        return python
    path = env.get("PATH")
    return shutil.which("python3", path=path) or shutil.which("python", path=path)


Found = list[dict[str, object]]
Folders = Sequence[tuple[Path, str | None]]


_PATH = "import json, sys; print(json.dumps(sys.path))"
_PATH_KEYS = ("PYTHONPATH", "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONUSERBASE", "VIRTUAL_ENV")
_paths: dict[tuple[str, ...], list[str]] = {}


def import_path(python: str, env: Mapping[str, str]) -> list[str]:
    """The interpreter's sys.path in this environment, asked once per interpreter and environment."""
    key = (python, *(env.get(k, "") for k in _PATH_KEYS))
    if key not in _paths:
        try:
            res = subprocess.run(
                [python, "-c", _PATH], capture_output=True, text=True, timeout=120, env=dict(env), cwd="/",
                stdin=subprocess.DEVNULL,
            )  # fmt: skip
            found = json.loads(res.stdout) if res.returncode == 0 else []
        except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
            found = []
        _paths[key] = [p for p in found if isinstance(p, str) and p]
    return _paths[key]


def worth_probing(path: Sequence[str], roots: Sequence[Path]) -> bool:
    """Whether anything on the import path names the checkout: package metadata recording an install from it,
    a .pth or .egg-link file pointing into it, or a folder of it on the path. Reading these files costs
    milliseconds; the probe costs an interpreter start, so it runs only when this says yes (or the path is
    unknown)."""
    if not path:
        return True
    names = {str(os.path.realpath(r)) for r in roots}
    names |= {quote(n) for n in names}
    for folder in path:
        real = os.path.realpath(folder)
        if any(real == n or real.startswith(n.rstrip(os.sep) + os.sep) for n in names):
            return True
        try:
            entries = os.listdir(real)
        except OSError:
            continue
        for entry in entries:
            if entry.endswith(".dist-info"):
                target = os.path.join(real, entry, "direct_url.json")
            elif entry.endswith((".pth", ".egg-link")):
                target = os.path.join(real, entry)
            else:
                continue
            try:
                with open(target, encoding="utf-8", errors="replace") as fh:
                    text = fh.read(1 << 16)
            except OSError:
                continue
            if any(n in text for n in names):
                return True
    return False


def probe(python: str, env: Mapping[str, str], roots: Sequence[Path], timeout: float = 300.0) -> Found:
    """Run PROBE with the step's interpreter and environment, outside any checkout (so the current folder
    adds nothing to the import path); [] when the interpreter cannot answer (the run will say why)."""
    try:
        res = subprocess.run(
            [python, "-c", PROBE, json.dumps([str(r) for r in roots])],
            capture_output=True, text=True, timeout=timeout, env=dict(env), cwd="/", stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return []
    if res.returncode != 0:
        return []
    try:
        found = json.loads(res.stdout.strip().splitlines()[-1]) if res.stdout.strip() else []
    except (json.JSONDecodeError, IndexError):
        return []
    return [f for f in found if isinstance(f, dict)]


def tested(found: Sequence[Mapping[str, object]], heads: Folders, built: Folders) -> list[TestedPackage]:
    """The probe's answer as records, each with the commit its path holds: the checkout's HEAD for a path
    inside it (heads, most specific folder first), the commit its install was made from for a copy
    (built, by the folder it was installed from). Raises ShadowedImport naming every package that
    imports from anywhere else."""
    out: list[TestedPackage] = []
    bad: list[str] = []
    for f in found:
        path, source = str(f.get("path", "")), str(f.get("source", ""))
        commit = _commit_of(path, heads) if _inside_any(path, heads) else _commit_of(source, built)
        rec = TestedPackage(
            package=str(f.get("package", "")), version=str(f.get("version", "")), module=str(f.get("module", "")),
            path=path, commit=commit, editable=bool(f.get("editable")), source=source,
        )  # fmt: skip
        if not f.get("ok"):
            bad.append(f"{rec.package} (import {rec.module}) from {path}, not from {source}")
        else:
            out.append(rec)
    if bad:
        raise ShadowedImport(
            "the build under test is shadowed, no verdict recorded: "
            + "; ".join(bad)
            + ". That copy comes earlier on the import path than what the install commands put in (Python asks an "
            "editable install's import hook last). Remove it (pip uninstall, in the environment that holds it) or "
            "install without -e (a regular install is found first); then bisect_run resumes"
        )
    return out


def _inside_any(path: str, folders: Folders) -> bool:
    return any(_inside(path, f) for f, _ in folders)


def _inside(path: str, folder: Path) -> bool:
    root = os.path.realpath(folder)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _commit_of(path: str, folders: Folders) -> str | None:
    for folder, commit in folders:
        if _inside(path, folder):
            return commit
    return None
