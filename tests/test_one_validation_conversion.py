"""A pydantic ValidationError becomes perfkit's InputError in one place (perfkit.errors.from_validation).

Every surface then names a field the same way: the first problem's location, pydantic's words for it and
how many more there are. A module that reads an error's message itself is a second conversion.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from perfkit.errors import InputError, from_validation
from pydantic import BaseModel, Field, ValidationError

SERVER = Path(__file__).resolve().parents[1] / "server" / "perfkit"


def test_no_module_but_errors_reads_a_validation_message():
    readers = [
        str(p.relative_to(SERVER))
        for p in SERVER.rglob("*.py")
        if p.name != "errors.py" and re.search(r"""\[["']msg["']\]""", p.read_text(encoding="utf-8"))
    ]
    assert not readers, f"convert through perfkit.errors.from_validation: {readers}"


class _Inner(BaseModel):
    rate: float = Field(ge=0, lt=0.5)


class _Outer(BaseModel):
    name: str = Field(max_length=5)
    inner: _Inner


@pytest.mark.parametrize(
    ("data", "where", "sep", "field", "words"),
    [
        ({"name": "toolongname", "inner": {"rate": 0.1}}, "draft", ".", "draft.name", "at most 5 characters"),
        ({"name": "ok", "inner": {"rate": 0.9}}, "", ".", "inner.rate", "less than 0.5"),
        ({"name": "toolongname", "inner": {"rate": -1}}, "metrics.yaml", " ", "metrics.yaml name", "(and 1 more)"),
    ],
)
def test_the_conversion_names_the_field_the_problem_and_the_fix(data, where, sep, field, words):
    with pytest.raises(ValidationError) as caught:
        _Outer.model_validate(data)
    err = from_validation(caught.value, where, "do this instead", sep=sep)
    assert isinstance(err, InputError)
    assert err.field == field and words in err.problem and err.fix == "do this instead", str(err)
    assert str(err).startswith(f"{field}: ") and str(err).endswith("; do this instead")
