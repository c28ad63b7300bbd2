"""The README's tool reference must be exactly what the server's schemas generate."""

from __future__ import annotations

from pathlib import Path

from perfkit.mcp_server.reference import END, START, markdown

README = Path(__file__).resolve().parents[1] / "README.md"


def test_reference_is_current():
    text = README.read_text()
    assert START in text and END in text
    current = START + text.split(START, 1)[1].split(END, 1)[0] + END
    assert current == markdown(), (
        "README tool reference is stale: run `python -m perfkit.mcp_server.reference --write README.md`"
    )
