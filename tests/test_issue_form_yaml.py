"""The bounded YAML reader behind issue forms and drafts, and the draft's size and depth limits.

Each hostile input must end as one clear error that names `draft` (or, for a form, as an
unreadable form with the parser's words), quickly, whatever route it comes by: inline text, a
file, or an object over MCP.
"""

from __future__ import annotations

import json
import time

import anyio
import pytest
from perfkit.errors import InputError
from perfkit.publish import safe_yaml
from perfkit.publish.draft import MAX_BYTES, MAX_DEPTH, load_draft


def laughs(levels: int, width: int = 10) -> str:
    """A document of `width ** levels` values once its aliases are expanded, in a few hundred bytes."""
    out = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        out.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(out) + "\n"


def test_real_form_syntax_reads_as_github_reads_it():
    data = safe_yaml.load(
        'name: "\\U0001F41B Bug"\nlabels: [bug]\nbody:\n  - type: dropdown\n    attributes:\n'
        "      options: [No, Yes, on, off, 2024-05-01, 1.10]\n      multiple: true\n"
    )
    assert data["name"] == "\U0001f41b Bug"
    # YAML 1.1 would turn these into booleans and a date; GitHub shows them as the labels written
    assert data["body"][0]["attributes"]["options"] == ["No", "Yes", "on", "off", "2024-05-01", 1.1]
    assert data["body"][0]["attributes"]["multiple"] is True
    shared = safe_yaml.load("opts: &o [a, b]\nfirst: *o\nsecond: *o\n")  # aliases within the limit are fine
    assert shared["first"] == shared["second"] == ["a", "b"]


@pytest.mark.parametrize(
    "text, words, line",
    [
        (laughs(9), "aliases expanded", 5),  # the fifth line describes 111,111 values
        ("a: &a [*a]\n", "refers to the node that contains it", 1),
        ("k: " + "[" * 100 + "]" * 100 + "\n", f"deeper than {safe_yaml.MAX_DEPTH} levels", 1),
        ("a: 1\n---\nb: 2\n", "single document", 2),
        ("a: *missing\n", "undefined alias", 1),
        ("x: !!python/object:os.system echo\n", "could not determine a constructor", 1),
        ("n: " + "9" * 5000 + "\n", "cannot convert", None),
        ("a: \x07\n", "special characters", None),
    ],
)
def test_hostile_yaml_is_refused_with_the_reason(text, words, line):
    start = time.perf_counter()
    with pytest.raises(safe_yaml.YamlRefused) as err:
        safe_yaml.load(text)
    assert time.perf_counter() - start < 2
    assert words in str(err.value) and err.value.line == line


def test_yaml_over_the_size_cap_is_refused_before_parsing():
    text = "k: " + "x" * safe_yaml.MAX_BYTES + "\n"
    with pytest.raises(safe_yaml.YamlRefused) as err:
        safe_yaml.load(text)
    assert f"more than the {safe_yaml.MAX_BYTES:,}" in str(err.value)
    assert safe_yaml.load("k: " + "x" * (safe_yaml.MAX_BYTES - 10)) == {"k": "x" * (safe_yaml.MAX_BYTES - 10)}


def _nested(depth: int) -> dict:
    value: dict = {"job": "x"}
    for _ in range(depth):
        value = {"details": value}
    return value


def test_draft_limits_hold_inline_in_a_file_and_as_an_object(tmp_path):
    deep_json = '{"job": ' + "[" * 20_000 + "]" * 20_000 + "}"
    (tmp_path / "deep.json").write_text(deep_json)
    (tmp_path / "laughs.yaml").write_text(laughs(9))
    (tmp_path / "big.json").write_text('{"summary": "' + "x" * MAX_BYTES + '"}')
    (tmp_path / "deep.yaml").write_text("job:\n" + "".join("  " * i + "- \n" for i in range(1, 40)))
    cases = [
        (deep_json, f"nests more than {MAX_DEPTH} levels"),
        (str(tmp_path / "deep.json"), f"nests more than {MAX_DEPTH} levels"),
        (str(tmp_path / "laughs.yaml"), "aliases expanded"),
        (str(tmp_path / "big.json"), "(1 MiB)"),
        (json.dumps({"summary": "x" * MAX_BYTES}), "(1 MiB)"),
        (str(tmp_path / "deep.yaml"), f"nests more than {MAX_DEPTH} levels"),
        (_nested(MAX_DEPTH + 5), f"nests more than {MAX_DEPTH} levels"),
        ('{"gpu_count": ' + "9" * 5000 + "}", "not a draft"),
    ]
    for draft, words in cases:
        start = time.perf_counter()
        with pytest.raises(InputError) as err:
            load_draft(draft)
        assert time.perf_counter() - start < 2, words
        assert err.value.field == "draft" and words in str(err.value), (words, str(err.value)[:200])
    # just under the limits: read, and the model names what is wrong
    with pytest.raises(InputError) as err:
        load_draft(_nested(MAX_DEPTH - 2))
    assert err.value.field.startswith("draft.details")


def test_deep_draft_over_mcp_is_a_clear_error(tmp_path):
    from pathlib import Path

    from mcp import Client
    from perfkit.server import build_server

    campaign = Path(__file__).resolve().parents[1] / "examples" / "campaign"
    args = {"campaign_dir": str(campaign), "repo": str(tmp_path), "out_dir": str(tmp_path / "out")}

    async def go():
        async with Client(build_server(), mode="legacy") as c:
            return await c.call_tool("render_pr", {**args, "draft": _nested(MAX_DEPTH + 1)})

    res = anyio.run(go)
    assert res.is_error and "render_pr: draft: nests more than" in res.content[0].text
    assert not (tmp_path / "out").exists()
