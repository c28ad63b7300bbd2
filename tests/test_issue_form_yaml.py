"""The bounded YAML reader behind issue forms and drafts, and the draft's size and depth limits.

Each hostile input must end as one clear error that names `draft` (or, for a form, as an
unreadable form with the parser's words), quickly, whatever route it comes by: inline text, a
file, or an object over MCP.
"""

from __future__ import annotations

import itertools
import json
import re
import time

import anyio
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.draft.load import MAX_BYTES, MAX_DEPTH, load_draft
from perfkit.errors import InputError
from perfkit.guards import safe_yaml


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
    # YAML 1.1 would turn these into booleans, a date and a float; GitHub shows them as the labels written
    assert data["body"][0]["attributes"]["options"] == ["No", "Yes", "on", "off", "2024-05-01", "1.10"]
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


def test_a_yaml_draft_keeps_its_scalars_as_written(tmp_path):
    (tmp_path / "d.yaml").write_text(
        "gpu_count: 8\nissue:\n  pr: 1234\ncorrectness:\n  checks:\n"
        "    - {recorded: loss, compared: largest difference 0.0021, tolerance: 0.010, exceeded: 3}\n"
        "checkboxes:\n  - {text: Tests added, tick: true}\n"
    )
    d = load_draft(str(tmp_path / "d.yaml"))
    assert (d.gpu_count, d.issue.pr, d.checkboxes[0].tick) == (8, "1234", True)
    assert d.correctness.checks[0].tolerance == "0.010" and d.correctness.checks[0].exceeded == 3
    (tmp_path / "big.yaml").write_text("gpu_count: " + "9" * 5000 + "\n")
    with pytest.raises(InputError) as err:
        load_draft(str(tmp_path / "big.yaml"))
    assert err.value.field == "draft.gpu_count"


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
    from perfkit.mcp_server.server import build_server

    campaign = Path(__file__).resolve().parents[1] / "examples" / "campaign"
    args = {"campaign_dir": str(campaign), "repo": str(tmp_path), "out_dir": str(tmp_path / "out")}

    async def go():
        async with Client(build_server(), mode="legacy") as c:
            return await c.call_tool("render_pr", {**args, "draft": _nested(MAX_DEPTH + 1)})

    res = anyio.run(go)
    text = res.content[0].text.removeprefix("Error executing tool render_pr: ")
    assert res.is_error and text.startswith(f"draft: nests more than {MAX_DEPTH} levels"), text
    assert not (tmp_path / "out").exists()


# ---- filling any form never crashes and keeps the template's own lines -------------------------------

_LABELS = st.sampled_from(
    [
        "Describe the bug",
        "Proposal to improve performance",
        "Report of performance regression",
        "Relevant log output",
        "Name and version",
        "Steps to reproduce",
        "Your environment",
        "Expected behavior",
        "Additional context",
        "Who can help?",
        "Area",
        "",
        "\U0001f41b",
    ]
)
_FIELD = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["textarea", "input", "dropdown", "checkboxes", "markdown"]),
        "attributes": st.fixed_dictionaries(
            {
                "label": st.one_of(_LABELS, st.text(max_size=20)),
                "options": st.lists(st.one_of(st.text(max_size=8), st.sampled_from(["H100", "Performance"]))),
                "render": st.sampled_from(["", "shell"]),
                "value": st.sampled_from(["", "- GPU model:\n- CUDA version:", "1. Run:"]),
            }
        ),
        "validations": st.fixed_dictionaries({"required": st.booleans()}),
    }
)
_MD_LINES = st.lists(
    st.one_of(
        st.sampled_from(
            ["## Describe", "## Environment", "- GPU model:", "- OS: [e.g. Linux]", "```", "", "<!-- x", "-->"]
        ),
        st.sampled_from(["**What happened**", "**Command**", "- [ ] box", "### Logs", "1. Go to:"]),
        # one line each: no character str.splitlines breaks at (a lone CR is a line break to the reader);
        # fences and comments come only from the lines above, so the test knows where they are
        st.text(st.characters(exclude_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029`~<>"), max_size=12),
    ),
    max_size=16,
)


def _material():
    from pathlib import Path

    from perfkit.draft.load import load_draft
    from perfkit.publish.forms.common import Material
    from perfkit.publish.issue_render import _facts

    d = load_draft(str(Path(__file__).resolve().parents[1] / "examples" / "publish" / "draft.json"))
    contents = {"observed": "OBS", "logs_said": "LOGS", "pr_note": "NOTE", "environment": "ENV", "reproduce": "CMD"}
    return Material(contents, {}, _facts(d), "<{what}>")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_FIELD, max_size=6), _MD_LINES)
def test_any_form_fills_without_losing_its_own_lines(body, md_lines):
    from perfkit.publish import issue_forms
    from perfkit.publish.forms import parse

    m = _material()
    form = parse.yaml_form("f.yml", yaml.safe_dump({"name": "F", "body": body}))
    out = issue_forms.fill(form, m).body
    heads = [ln for ln in out.split("\n") if ln.startswith("### ")]
    assert heads == [f"### {f.label}" for f in form.fields]
    assert "OBS" in out or not any(f.kind == "textarea" for f in form.fields)
    tpl = parse.markdown_template("t.md", "\n".join(md_lines))
    filled = issue_forms.fill(tpl, m).body.split("\n")
    lines = "\n".join(md_lines).strip("\n").split("\n")
    kept = iter(filled)  # the template's structure survives, in order; a field may gain a value or a placeholder
    for ln, structure in zip(lines, _structure(lines), strict=True):
        if structure:
            # leading and trailing spaces of a Markdown line carry no meaning and may be trimmed
            want = ln.strip().split(" [e.g.")[0]
            assert any(x.strip() == want or x.strip().startswith(want + " ") for x in kept), ln
    # and nothing is invented: a line posted is the template's, ours, or a placeholder for the human
    ours = {"OBS", "LOGS", "NOTE", "ENV", "CMD"}
    own = {ln.strip() for ln in lines}
    fields = [ln.strip().split(" [e.g.")[0] for ln in lines if ln.strip().startswith("- ") and ":" in ln]
    for x in filled:
        t = x.strip()
        assert (
            not t
            or t in own
            or t in ours
            or re.fullmatch(r"<[^<>]+>", t)
            or re.fullmatch(r"`{3,}(?:bash)?", t)  # the command or environment in a code block of ours
            or any(t.startswith(f + " ") for f in fields)
        ), x


_HEADING_SHAPE = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")  # a bold line may be a label or a prompt, by its words
_BOX_SHAPE = re.compile(r"^\s*[-*+]\s+\[[ xX]\]\s")
_FIELD_SHAPE = re.compile(r"^\s*[-*+]\s+[A-Za-z][A-Za-z ]*:(?:\s*\[e\.g\.[^\]]*\])?\s*$")


def _structure(lines: list[str]) -> list[bool]:
    """Which lines are structure by their shape alone: ATX headings, boxes, one-line fields, and every line of a
        code block or an HTML comment (the generator opens those only with its own fence and comment lines). A field
    followed by an indented line is an item of two lines, and a block of four lines or fewer may be a prompt in a
    box: both are read by their words."""
    out = []
    fence = comment = False
    code = True
    for k, ln in enumerate(lines):
        s = ln.strip()
        nxt = lines[k + 1] if k + 1 < len(lines) else ""
        alone = not nxt.strip() or not nxt[:1].isspace()  # an indented next line continues the item
        if comment:
            out.append(True)
            comment = "-->" not in s
        elif fence or s.startswith("```"):
            if not fence:  # a short block may be a prompt in a box ('# Paste your command', 'Paste the log here')
                rest = itertools.takewhile(lambda x: not x.strip().startswith("```"), lines[k + 1 :])
                inner = [x.strip() for x in rest if x.strip()]
                code = not inner or (len(inner) > 4 and not all(x.startswith(("#", "//")) for x in inner))
            out.append(code)
            fence = not fence if s.startswith("```") else fence
        elif s.startswith("<!--"):
            out.append(True)
            comment = "-->" not in s
        else:
            out.append(bool(_HEADING_SHAPE.match(ln) or _BOX_SHAPE.match(ln) or (_FIELD_SHAPE.match(ln) and alone)))
    return out
