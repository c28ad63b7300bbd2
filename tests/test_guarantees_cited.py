"""Every test docs/guarantees.md cites is one pytest collects: the file, the test and the named case.

pytest's own collection is the judge (a parametrized case exists only if pytest generates it), so
a renamed test, a changed parameter id or a deleted file fails here, not in a reader's hands.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import COLLECTED

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "guarantees.md"
CITED = re.compile(r"`(test_\w+\.py)::(test_\w+)(\[[^\]`]+\])?`")
WHOLE_FILE = re.compile(r"`(test_\w+\.py)`")


def collected(files: list[str]) -> set[str]:
    """Node ids pytest collects from these test files, without the tests/ prefix."""
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    ids = {line.strip() for line in out.stdout.splitlines() if "::" in line}
    assert ids, out.stdout[-2000:] + out.stderr[-2000:]
    return {i.removeprefix("tests/") for i in ids}


def missing(text: str, ids: set[str]) -> list[str]:
    absent = []
    for file, test, case in CITED.findall(text):
        node = f"{file}::{test}{case}"
        if not (node in ids or (not case and any(i.startswith(f"{node}[") for i in ids))):
            absent.append(node)
    for file in set(WHOLE_FILE.findall(text)):
        if not any(i.startswith(f"{file}::") for i in ids):
            absent.append(file)
    return absent


def test_missing_names_what_pytest_does_not_collect():
    ids = {"test_a.py::test_x[one-two]", "test_a.py::test_x[three]", "test_a.py::test_y", "test_b.py::test_z"}
    text = (
        "`test_a.py::test_x` `test_a.py::test_x[three]` `test_a.py::test_y` every test of `test_b.py`; "
        "`test_a.py::test_x[one two]` `test_a.py::test_gone` `test_a.py::test_y[1]` `test_c.py`"
    )
    assert missing(text, ids) == [
        "test_a.py::test_x[one two]",
        "test_a.py::test_gone",
        "test_a.py::test_y[1]",
        "test_c.py",
    ]


def test_every_cited_test_is_collected(request):
    """The ids this run collected (conftest keeps them, extended tests included) where it collected the
    file; pytest run again on the files this run did not collect."""
    text = DOC.read_text()
    files = sorted({f for f, _, _ in CITED.findall(text)} | set(WHOLE_FILE.findall(text)))
    assert len(CITED.findall(text)) > 30 and len(files) > 5
    present = [f"tests/{f}" for f in files if (ROOT / "tests" / f).is_file()]
    here = request.config.stash.get(COLLECTED, set())
    ids = {i.removeprefix("tests/") for i in here if i.split("::")[0] in present}
    rest = [f for f in present if not any(i.startswith(f"{f.removeprefix('tests/')}::") for i in ids)]
    assert missing(text, ids | (collected(rest) if rest else set())) == []
