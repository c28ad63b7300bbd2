"""Make plugin/server a tree of links, one per tracked file of server/, and nothing else.

Claude Code installs the plugin by copying plugin/ and following its links. A link to the whole
server/ folder would copy whatever the clone holds there too: the bytecode caches (about 2.8 MB)
that any run of perfkit from the clone writes beside its sources. Links to the files alone copy
the sources only, by construction. Run this after adding, moving or removing a module;
tests/test_shipping.py fails until the links match the tracked files.

Usage: python tools/plugin_links.py
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREE = ROOT / "plugin" / "server"


def tracked() -> list[str]:
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "server"], capture_output=True, check=True)
    return sorted(p for p in out.stdout.decode().split("\0") if p)


def main() -> int:
    if TREE.is_symlink() or TREE.is_file():
        TREE.unlink()
    elif TREE.is_dir():
        shutil.rmtree(TREE)
    for rel in tracked():
        link = ROOT / "plugin" / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(ROOT / rel, link.parent))
    print(f"plugin/server: {len(tracked())} links")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
