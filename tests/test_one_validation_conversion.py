"""A pydantic ValidationError becomes perfkit's InputError in one place (perfkit.errors.from_validation).

Every surface then names a field the same way: the first problem's location, pydantic's words for it and
how many more there are. A module that reads an error's message itself is a second conversion.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.draft.model import Draft
from perfkit.errors import InputError, from_validation
from perfkit.registry import all_tools
from perfkit.tools.spec import argument_error
from pydantic import BaseModel, ConfigDict, Field, ValidationError

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


class _Item(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    size: int = 0


class _Form(BaseModel):
    model_config = ConfigDict(extra="forbid")
    items: list[_Item] = []
    answers: dict[str, str | list[str]] = {}
    summary: str | None = None


def _error(data: object, model: type[BaseModel] = _Form) -> InputError:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return from_validation(caught.value, "draft", "see the docs", model=model)


@pytest.mark.parametrize(
    ("data", "text"),
    [
        # a misspelt key: its place, the field it likely means, every field known there; its missing twin not counted
        (
            {"sumary": "x"},
            "draft.sumary: unknown field; did you mean summary? known fields here: items, answers, summary",
        ),
        (
            {"items": [{"nmae": "a"}]},
            "draft.items.0.nmae: unknown field; did you mean name? known fields here: name, size",
        ),
        ({"zzzz": 1}, "draft.zzzz: unknown field; known fields here: items, answers, summary; see the docs"),
        # a value no union member takes: its place in the input, what each member wanted, one problem
        ({"answers": {"p3": 5}}, "draft.answers.p3: input should be a valid string or a valid list; see the docs"),
        # the member whose shape the value has is the one meant
        ({"answers": {"p3": [1]}}, "draft.answers.p3.0: input should be a valid string; see the docs"),
        # other problems are still counted
        ({"answers": {"p3": 5}, "items": [{}]}, "draft.items.0.name: field required (and 1 more)"),
    ],
)
def test_the_conversion_helps_with_a_model_typed_input(data, text):
    assert str(_error(data)).startswith(text), str(_error(data))


def test_without_the_model_the_conversion_still_names_the_field():
    with pytest.raises(ValidationError) as caught:
        _Form.model_validate({"sumary": "x"})
    err = from_validation(caught.value, "draft", None)
    assert str(err) == "draft.sumary: unknown field; leave it out"


_FIELDS = [*Draft.model_fields, "sumary", "jobb", "gpu-count"]
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_FIELDS), inner, max_size=3),
    max_leaves=12,
)


def _walks(data: object, path: list[str]) -> bool:
    """Whether path leads through data: each step a key of a mapping or an index of a list (the last may be a
    field the data lacks, for a missing one)."""
    for i, step in enumerate(path):
        last = i == len(path) - 1
        if isinstance(data, dict) and step in data:
            data = data[step]
        elif isinstance(data, list) and step.isdigit() and int(step) < len(data):
            data = data[int(step)]
        else:
            return last and isinstance(data, dict)
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(_FIELDS), _JSON, max_size=4))
def test_a_refused_draft_is_named_by_its_place_in_what_was_given(data):
    """Whatever the draft holds, the field an error names is a path through the draft as given, never a
    type name pydantic uses for a union's member ('str', 'list[str]', 'Draft')."""
    spec = next(s for s in all_tools() if s.name == "render_pr")
    model = spec.arguments_model()
    try:
        model.model_validate({"campaign_dir": "c", "repo": "r", "draft": data})
    except ValidationError as exc:
        err = argument_error(exc, "see the input schema of render_pr", model)
        assert err.field == "draft" or err.field.startswith("draft."), str(err)
        path = err.field.split(".")[1:]
        assert _walks(data, path), (str(err), data)
        assert "validation error" not in str(err)
