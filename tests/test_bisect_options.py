"""The bisect settings are declared once (BisectOptions): the tool's schema, the settings file and the
settings a bisect runs with are held to the same bounds, and every refusal names the setting."""

from __future__ import annotations

import math
import re
from pathlib import Path

import anyio
import pytest
from helpers.gitbuild import Repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from perfkit.bisect import settings as settingsfile
from perfkit.bisect.models import BisectSettings
from perfkit.bisect.options import BisectOptions
from perfkit.errors import InputError
from perfkit.mcp_server.server import build_server

BOUND_WORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "maxItems", "enum")


def _tool_and_call(args: dict | None = None):
    async def go():
        async with Client(build_server(), mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            res = await client.call_tool("bisect_start", args) if args is not None else None
            return tools["bisect_start"], res

    return anyio.run(go)


def _value_part(prop: dict, defs: dict) -> dict:
    """The non-null branch of an optional property, $ref followed."""
    parts = prop.get("anyOf", [prop])
    (part,) = [p for p in parts if p.get("type") != "null"]
    if "$ref" in part:
        part = defs[part["$ref"].rsplit("/", 1)[1]]
    return part


def _bounds(part: dict) -> dict:
    return {k: v for k, v in part.items() if k in BOUND_WORDS}


def _model_bounds(model: type) -> dict[str, dict]:
    schema = model.model_json_schema()
    props, defs = schema["properties"], schema.get("$defs", {})
    return {name: _bounds(_value_part(props[name], defs)) for name in BisectOptions.model_fields}


def test_the_mcp_input_schema_shows_every_bound_of_the_model():
    tool, _ = _tool_and_call()
    schema = tool.input_schema
    props, defs = schema["properties"], schema.get("$defs", {})
    assert set(BisectOptions.model_fields) <= set(props)
    assert schema["required"] == ["repo", "good"]
    shown = {name: _bounds(_value_part(props[name], defs)) for name in BisectOptions.model_fields}
    assert shown == _model_bounds(BisectOptions)  # every field, exactly the model's bounds
    assert shown["confidence"] == {"minimum": 0.5, "exclusiveMaximum": 1}
    assert shown["flaky_fail"] == shown["flaky_pass"] == {"minimum": 0, "exclusiveMaximum": 0.5}
    assert shown["timeout_s"] == {"exclusiveMinimum": 0, "exclusiveMaximum": 1e7}
    assert shown["cache_limit_mb"]["exclusiveMinimum"] == 0
    assert shown["max_skips"] == {"minimum": 0}
    assert shown["build_ahead"] == {"minimum": 0, "maximum": 256}
    assert shown["worker_env"] == {"enum": ["venv", "none"]} and shown["backend"] == {"enum": ["local", "ray"]}
    assert shown["devices"] == {"maxItems": 64}
    for name, field in BisectOptions.model_fields.items():  # the description an agent reads is the model's
        assert props[name]["description"] == field.description, name


def test_the_settings_a_bisect_runs_with_keep_the_same_bounds():
    """BisectSettings is BisectOptions with defaults filled in: the same fields, the same bounds."""
    assert issubclass(BisectSettings, BisectOptions)
    assert set(BisectSettings.model_fields) == set(BisectOptions.model_fields) | {"sources"}
    assert _model_bounds(BisectSettings) == _model_bounds(BisectOptions)
    with pytest.raises(ValueError):
        BisectSettings(run="x", confidence=1.0)


# ---- out-of-bound values, drawn from the bounds the model declares -----------------------------------


def _outside(bounds: dict) -> list[object]:
    """Values just outside each bound (and a non-finite one for a number)."""
    out: list[object] = []
    if "minimum" in bounds:
        out.append(bounds["minimum"] - 1)
    if "exclusiveMinimum" in bounds:
        out.append(bounds["exclusiveMinimum"])
    if "maximum" in bounds:
        out.append(bounds["maximum"] + 1)
    if "exclusiveMaximum" in bounds:
        out.append(bounds["exclusiveMaximum"])
    return out


OUT_OF_BOUNDS = [
    (name, value)
    for name, bounds in _model_bounds(BisectOptions).items()
    for value in _outside(bounds)
    if not isinstance(value, list)
]
NUMBERS = [n for n, b in _model_bounds(BisectOptions).items() if "exclusiveMaximum" in b and n != "confidence"]


def _toml(value: object) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return repr(value)


def _write(repo: Path, where: str, key: str, value: object) -> str:
    """A settings file with one setting besides run; returns how an error names that table."""
    for name in ("perfkit.toml", "pyproject.toml"):
        (repo / name).unlink(missing_ok=True)
    line = ('run = "true"\n' if key != "run" else "") + f"{key} = {_toml(value)}\n"
    if where == "perfkit.toml":
        (repo / "perfkit.toml").write_text(f"[bisect]\n{line}")
        return "perfkit.toml [bisect]"
    (repo / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n[tool.perfkit.bisect]\n{line}')
    return "pyproject.toml [tool.perfkit.bisect]"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    case=st.sampled_from(OUT_OF_BOUNDS)
    | st.tuples(st.sampled_from(NUMBERS), st.sampled_from([math.inf, -math.inf, math.nan]))
    | st.tuples(st.sampled_from(sorted(BisectOptions.model_fields)), st.sampled_from([{"a": 1}, [[1]]])),
    where=st.sampled_from(["perfkit.toml", "pyproject.toml"]),
)
def test_a_bad_value_in_the_settings_file_names_the_file_and_the_setting(tmp_path, case, where):
    key, value = case
    table = _write(tmp_path, where, key, value)
    with pytest.raises(InputError) as err:
        settingsfile.merge(tmp_path, {})
    assert err.value.field == "repo"
    assert str(err.value).startswith(f"repo: {table} {key}"), str(err.value)
    assert "validation error" not in str(err.value) and "pydantic" not in str(err.value)
    # the same value as an argument is refused naming the argument
    if not isinstance(value, dict):
        (tmp_path / "perfkit.toml").unlink(missing_ok=True)
        (tmp_path / "pyproject.toml").unlink(missing_ok=True)
        with pytest.raises(InputError) as err:
            settingsfile.merge(tmp_path, {"run": "true", key: value})
        assert err.value.field.split(".")[0] == key, str(err.value)


@pytest.mark.parametrize(
    "line,problem",
    [
        ('timeout_s = "60"', r"timeout_s: input should be a valid number"),  # TOML's own types: no text converted
        ("verify_ends = 1", r"verify_ends: input should be a valid boolean"),
        ("max_skips = 2.0", r"max_skips: input should be a valid integer"),
        ('worker_env = "conda"', r"worker_env: input should be 'venv' or 'none'"),
        ("install = [1]", r"install\.0: input should be a valid string"),
    ],
)
def test_the_file_is_read_with_tomls_own_types(tmp_path, line, problem):
    (tmp_path / "perfkit.toml").write_text(f'[bisect]\nrun = "true"\n{line}\n')
    with pytest.raises(InputError, match=r"^repo: perfkit\.toml \[bisect\] " + problem) as err:
        settingsfile.merge(tmp_path, {})
    assert str(err.value).endswith("; fix the file")


def test_values_in_bounds_from_the_file_are_taken_and_say_where_they_came_from(tmp_path):
    (tmp_path / "perfkit.toml").write_text(
        '[bisect]\nrun = "true"\nconfidence = 0.5\nflaky_fail = 0\ntimeout_s = 60\ninstall = "make"\nmax_skips = 0\n'
    )
    s = settingsfile.merge(tmp_path, {"flaky_pass": 0.49})
    assert (s.confidence, s.flaky_fail, s.flaky_pass, s.timeout_s, s.install, s.max_skips) == (
        0.5,
        0.0,
        0.49,
        60.0,
        ["make"],
        0,
    )
    assert s.noise is True  # a confidence or a flake rate switches the noise-aware search on
    assert s.sources["timeout_s"] == "perfkit.toml [bisect]" and s.sources["flaky_pass"] == "argument"
    assert s.sources["cache_limit_mb"] == "default"
    assert set(s.sources) == set(BisectOptions.model_fields)


def test_over_mcp_a_bad_argument_and_a_bad_file_both_name_the_setting(tmp_path):
    repo = Repo(tmp_path / "repo")
    good = repo.commit("one", {"a.txt": "1\n"})
    repo.commit("two", {"a.txt": "2\n", "perfkit.toml": '[bisect]\nrun = "true"\nflaky_pass = 0.5\n'})
    _, res = _tool_and_call({"repo": str(repo.path), "good": good, "run": "true", "confidence": 1.0})
    assert res.is_error
    text = res.content[0].text
    assert re.search(r"^(Error executing tool bisect_start: )?confidence: input should be less than 1", text), text
    _, res = _tool_and_call({"repo": str(repo.path), "good": good, "submodule": ""})
    assert res.is_error
    text = res.content[0].text
    assert "repo: perfkit.toml [bisect] flaky_pass: input should be less than 0.5" in text, text
    assert not (Path(repo.path) / ".git" / "perfkit-bisect" / "state.json").exists()
