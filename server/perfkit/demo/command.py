"""`perfkit demo`: argument parsing and the two acts, in a temporary folder it reports."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def _run(ns: argparse.Namespace) -> int:
    root = Path(ns.dir).resolve() if ns.dir else Path(tempfile.mkdtemp(prefix="perfkit-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    out = sys.stdout
    out.write(f"perfkit demo in {root}\n")
    started = time.monotonic()
    ok = True
    try:
        if ns.only in (None, "bisect"):
            from perfkit.demo.precision_act import precision_act

            ok &= precision_act(root / "bisect", quiet=ns.quiet, out=out)
        if ns.only in (None, "publish"):
            from perfkit.demo.publish_act import publish_act

            ok &= publish_act(root / "publish", out=out)
    finally:
        elapsed = time.monotonic() - started
        if ns.keep or ns.dir:
            out.write(f"\nDone in {elapsed:.0f} s. Everything is kept in {root}\n")
        else:
            shutil.rmtree(root, ignore_errors=True)
            out.write(f"\nDone in {elapsed:.0f} s. Removed {root} (pass --keep to inspect it).\n")
    return 0 if ok else 1


def _configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--keep", action="store_true", help="keep the temporary folder for inspection")
    p.add_argument("--dir", help="build in this folder instead of a temporary one (implies --keep)")
    p.add_argument("--only", choices=["bisect", "publish"], help="run one act only")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(_run=_run)


@dataclass(frozen=True)
class Command:
    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]


COMMAND = Command(
    "demo",
    "run the whole job on generated data: a two-level precision bisect, then a PR description and issue",
    _configure,
)
