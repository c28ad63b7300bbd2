"""Bad input for every tool, through the MCP client and the CLI alike.

One table. Each `Bad` row is an argument an agent might compose (a path that does not exist or leads
out of the campaign folder, an option-like or reversed revision, a broken, huge, empty or non-UTF-8
file, NaN and infinity, duplicate rows) and must come back as one error that names the field and
says what is wrong: `is_error` over MCP, exit 2 with one line on stderr from the CLI, no traceback,
and nothing written anywhere under the test's folder (its whole tree, git directories included, is
compared before and after every call). Each `Hostile` row is input that is valid but written to
provoke (Jinja syntax, HTML, shell syntax, very long lines, stray bytes in a repository's template):
it must succeed, keep the text as text, and write only the tool's own output files.

The CLI rows run through tests/helpers/cli_batch.py (one forked process per command line, imports
done once); a few rows also run through `python -m perfkit.cli` to show the two are the same.
"""

from __future__ import annotations

import fcntl
import inspect
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from helpers import table_chunks
from helpers.bisect_project import build
from helpers.cli_audit import mcp_words
from helpers.gitbuild import Repo
from helpers.load import slack
from helpers.tree import changes, tree
from mcp import Client
from perfkit.mcp_server.server import build_server
from perfkit.registry import all_tools

ROOT = Path(__file__).resolve().parents[1]
SPECS = {s.name: s for s in all_tools()}
LONG = "x" * 300 + "/" + "y" * 5000  # longer than a file name and a path may be
HUGE = 3 * 1024**3  # sparse: costs nothing on disk, but a tool that reads it whole runs out of memory
SHA_A = "a1" * 20
SHA_B = "b2" * 20


# ---- the world the rows point into ---------------------------------------------------------------


def _csv(rows: list[str]) -> str:
    return "arm,run,step,step_time_s,peak_mem_gb\n" + "\n".join(rows) + "\n"


def _good_rows() -> list[str]:
    rows = []
    for run in (1, 2, 3):
        for arm, t in (("baseline", 1.0), ("pr", 0.8)):
            for step in range(1, 7):
                rows.append(f"{arm},{run},{step},{t + 0.01 * ((step * 3 + run) % 4) + (5 if step == 1 else 0):.3f},40")
    return rows


GOOD_CSV = _csv(_good_rows())
GOOD_JSONL = (
    "\n".join(
        json.dumps(r)
        for r in [
            {
                "sha": SHA_A,
                "title": "Cache the mask",
                "shipped": True,
                "baseline": "base1234",
                "before": 1.0,
                "after": 0.8,
            },
            {
                "sha": SHA_B,
                "title": "Channels last",
                "shipped": False,
                "baseline": "base1234",
                "before": 1.0,
                "after": 1.01,
            },
        ]
    )
    + "\n"
)


def _campaign(path: Path, csv: str | bytes = GOOD_CSV, jsonl: str | bytes | None = GOOD_JSONL) -> Path:
    path.mkdir(parents=True)
    (path / "benchmark.csv").write_bytes(csv.encode() if isinstance(csv, str) else csv)
    if jsonl is not None:
        (path / "records").mkdir()
        (path / "records" / "candidates.jsonl").write_bytes(jsonl.encode() if isinstance(jsonl, str) else jsonl)
    (path / "commits" / SHA_A).mkdir(parents=True)
    (path / "commits" / SHA_A / "report.md").write_text("# report\n\nstep time 1.0 s to 0.8 s\n")
    (path / "latest-report.md").write_text("# Campaign\n\nlargest difference 0.0004, tolerance 0.01\n")
    return path


def _sparse(path: Path, size: int = HUGE, head: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(size)
    return path


def _jsonl(*records: Any) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"


# PR templates built to make a structure parser slow or lose its place; each under the 1 MiB cap
PARSER_TEMPLATES = {
    "deep-nesting": "## Checks\n\n"
    + "<details>\n" * 3_000
    + "".join("  " * k + "- level\n" for k in range(300))
    + ">" * 3_000
    + " quoted\n- [ ] the one box\n"
    + "</details>\n" * 3_000,
    "huge-options": "### PR Types\n<!-- One of [ "
    + " | ".join(f"kind {k}" for k in range(20_000))
    + " | Performance ] -->\n\n## Type of change\n\n"
    + "".join(f"- [ ] option {k}\n" for k in range(5_000))
    + "- [ ] Performance\n",
    "unterminated-comment": "## Tests\n\n<!-- this comment never closes\n" + "## H\n- [ ] x\n<details>\n" * 10_000,
    "unterminated-details": "## Checklist\n\n<details>\n<summary>Before</summary>\n\n"
    + ("### not a heading\n" + "- [ ] a box\n" * 50 + "<!-- a note -->\n") * 100,
}


def _parsed(name: str, boxes: int, must: tuple[str, ...] = (), never: tuple[str, ...] = ()):
    def check(w: World, result: dict) -> None:
        pr = Path(result["pr_path"]).read_text()
        # every box is reported: the ones the list cap kept, plus the count it says it left out
        reported = len(result["checkboxes"]) + result["omitted"].get("checkboxes", 0)
        assert result["template_parts"] and reported == boxes, (name, reported, result["omitted"])
        assert all(p["id"] and p["kind"] for p in result["template_parts"])
        for text in must:
            assert text in pr, (name, text)
        for text in never:
            assert text not in pr, (name, text)

    return check


# The hostile words sit where the template account keeps the template's words as written (its collapsed
# notes), so they must reach the description verbatim and inert; the same words under a heading the draft
# answers are instruction and never posted (docs/publish.md, "The account").
_HOSTILE_NOTES = (
    "{{ 7*7 }} {% for x in range(3) %}loop{% endfor %} {{ ''.__class__.__mro__ }}\n"
    "<script>alert(1)</script> <details><summary>html</summary>kept</details>\n"
    "$(touch pwned) `touch pwned`\n"
)
HOSTILE_TEMPLATE = (
    "## Reviewer notes\n\n" + _HOSTILE_NOTES + "\n"
    "<details><summary>Notes</summary>\n\n" + _HOSTILE_NOTES + "\n</details>\n\n"
    "## Checklist\n\n- [ ] {{ config }} box\n\n"
    "## Long\n\n<details><summary>Long notes</summary>\n\n" + "word " * 40_000 + "\n"
).encode() + b"latin-1 bytes: caf\xe9 \xff\xfe end\n\n</details>\n"


@dataclass
class World:
    root: Path
    camp: Path
    outside: Path
    repo: Path  # superproject with a runtime submodule and the user's work in progress
    target: Path  # a target repo for render_pr whose PR template is hostile
    plain: Path  # a folder that is not a git repository
    afile: Path
    c: dict[str, str]  # labelled commits of repo
    bad: dict[str, Path] = field(default_factory=dict)
    builds: Path | None = None
    templates: dict[str, Path] = field(default_factory=dict)  # target repos whose PR template is built to hang a parser


def build_world(root: Path) -> World:
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# secret\n\n1.5 s\n")
    (outside / "benchmark.csv").write_text(GOOD_CSV)
    (outside / "candidates.jsonl").write_text(GOOD_JSONL)
    (outside / "draft.json").write_text('{"job": "outside"}')
    camp = _campaign(root / "camp")
    p = build(root / "proj", [""] * 3, [("src", "")] * 3 + [("src", "BUG")])
    target = Repo(root / "target")
    target.write(".github/pull_request_template.md", HOSTILE_TEMPLATE)
    target.commit("target repo with a hostile PR template", {"README.md": "target\n"})
    plain = root / "plain"
    plain.mkdir()
    afile = root / "afile.txt"
    afile.write_text("not a folder\n")
    w = World(root, camp, outside, p.sup.path, target.path, plain, afile, p.c)
    for name, text in PARSER_TEMPLATES.items():
        r = Repo(root / "templates" / name)
        r.commit("a PR template built to hang a parser", {".github/PULL_REQUEST_TEMPLATE.md": text})
        w.templates[name] = r.path

    def bad(name: str, **kw) -> Path:
        w.bad[name] = _campaign(root / "bad" / name, **kw)
        return w.bad[name]

    rows = _good_rows()
    bad("empty", csv="")
    bad("header_only", csv=_csv([]))
    bad("wrong_type", csv=_csv(rows[:5] + ["pr,1,3,fast,40"] + rows[6:]))
    bad("nan", csv=_csv(rows[:5] + ["baseline,1,6,NaN,40"] + rows[6:]))
    bad("inf", csv=_csv(rows[:5] + ["baseline,1,6,inf,40"] + rows[6:]))
    bad("neg_inf", csv=_csv(rows[:5] + ["baseline,1,6,-inf,40"] + rows[6:]))
    bad("run_not_int", csv=_csv(rows[:5] + ["baseline,1.5,6,1.0,40"] + rows[6:]))
    bad("dup", csv=_csv(rows + [rows[3]]))
    bad("non_utf8", csv=_csv(rows).encode() + b"pr\xff\xfe,4,1,1.0,40\n")
    bad("long_line", csv=_csv(rows[:5] + ["baseline,1,6," + "9" * 400_000 + ",40"] + rows[6:]))
    bad("too_many_fields", csv=_csv(rows[:5] + ["baseline,1,6,1.0,40,extra"] + rows[6:]))
    bad("huge_csv", csv="")
    _sparse(w.bad["huge_csv"] / "benchmark.csv")
    bad("huge_text_csv", csv="")
    _sparse(w.bad["huge_text_csv"] / "benchmark.csv", head=GOOD_CSV.encode() * 200)
    bad("no_csv").joinpath("benchmark.csv").unlink()
    bad("csv_dir").joinpath("benchmark.csv").unlink()
    (w.bad["csv_dir"] / "benchmark.csv").mkdir()
    bad("csv_link_out").joinpath("benchmark.csv").unlink()
    (w.bad["csv_link_out"] / "benchmark.csv").symlink_to(outside / "benchmark.csv")
    bad("jsonl_link_out").joinpath("records/candidates.jsonl").unlink()
    (w.bad["jsonl_link_out"] / "records" / "candidates.jsonl").symlink_to(outside / "candidates.jsonl")
    bad("jsonl_broken", jsonl=_jsonl({"sha": SHA_A, "title": "a", "shipped": True}, '{"sha": "b2b2b2b2", "title": '))
    bad("jsonl_array", jsonl=_jsonl([1, 2, 3]))
    bad(
        "jsonl_nan",
        jsonl=_jsonl(
            '{"sha": "a1a1a1a1", "title": "t", "shipped": true, "baseline": "b", "before": NaN, "after": 1.0}'
        ),
    )
    bad(
        "jsonl_inf",
        jsonl=_jsonl(
            '{"sha": "a1a1a1a1", "title": "t", "shipped": true, "baseline": "b", "before": 1.0, "after": Infinity}'
        ),
    )
    bad("jsonl_type", jsonl=_jsonl({"sha": SHA_A, "title": "t", "shipped": "yes"}))
    bad("jsonl_non_utf8", jsonl=b'{"sha": "a1a1a1a1", "title": "caf\xe9", "shipped": true}\n')
    bad(
        "jsonl_report_up",
        jsonl=_jsonl({"sha": SHA_A, "title": "t", "shipped": True, "report": "../../outside/secret.md"}),
    )
    bad(
        "jsonl_report_abs",
        jsonl=_jsonl({"sha": SHA_A, "title": "t", "shipped": True, "report": str(outside / "secret.md")}),
    )
    bad("jsonl_sha_option", jsonl=_jsonl({"sha": "--output=x", "title": "t", "shipped": True}))
    bad("jsonl_sha_up", jsonl=_jsonl({"sha": "../../outside", "title": "t", "shipped": True}))
    bad("huge_jsonl", jsonl="")
    _sparse(w.bad["huge_jsonl"] / "records" / "candidates.jsonl")
    bad("commit_link_out")
    link = w.bad["commit_link_out"] / "commits" / SHA_B
    link.symlink_to(outside)
    (w.bad["commit_link_out"] / "records" / "candidates.jsonl").write_text(
        _jsonl({"sha": SHA_B, "title": "t", "shipped": True})
    )

    # hostile campaigns (issue: hostile repositories and sizes)
    bad("jsonl_fifo").joinpath("records/candidates.jsonl").unlink()
    os.mkfifo(w.bad["jsonl_fifo"] / "records" / "candidates.jsonl")  # no writer ever comes
    bad("jsonl_dir").joinpath("records/candidates.jsonl").unlink()
    (w.bad["jsonl_dir"] / "records" / "candidates.jsonl").mkdir()
    bad("csv_loop").joinpath("benchmark.csv").unlink()
    (w.bad["csv_loop"] / "benchmark.csv").symlink_to("benchmark.csv")
    bad("jsonl_deep", jsonl="[" * 20_000 + "]" * 20_000 + "\n")
    bad("jsonl_bigint", jsonl='{"sha": "a1a1a1a1", "title": "t", "shipped": true, "x": ' + "9" * 4_301 + "}\n")
    bad("jsonl_surrogate", jsonl='{"sha": "a1a1a1a1", "title": "t \\ud800", "shipped": true}\n')
    bad("csv_subnormal", csv=_csv([r.rsplit(",", 2)[0] + ",5e-324,40" for r in rows]))
    bad(
        "csv_1e308",
        csv="arm,run,step,step_time_s,peak_mem_gb\n"
        + "".join(f"{r.split(',')[0]},{r.split(',')[1]},{r.split(',')[2]},1e308,1e308\n" for r in rows),
    )
    bad("csv_dup_header", csv=GOOD_CSV.replace("peak_mem_gb", "step_time_s", 1))
    broken = root / "broken-config"
    shutil.copytree(p.sup.path, broken, symlinks=True)
    cfg = broken / ".git" / "config"
    cfg.write_text(cfg.read_text()[:-40].rstrip() + "\n[core\n")  # cut off: the last section never closes
    w.bad["broken_config"] = broken

    drafts = root / "drafts"
    drafts.mkdir()
    (drafts / "broken.json").write_text('{"job": "x",')
    (drafts / "non_utf8.json").write_bytes(b'{"job": "caf\xe9 \xff"}')
    (drafts / "broken.yaml").write_text("job: [unclosed\n  gpu: H100\n")
    _sparse(drafts / "huge.json")
    (drafts / "list.json").write_text("[1, 2]")

    b = root / "builds"
    for side, text in (("good", "int x = 1;\n"), ("bad", "int x = 2;\n")):
        (b / side / "kernels").mkdir(parents=True)
        (b / side / "kernels" / "k.cpp").write_text(text)
    for side, extra in (("huge_good", 0), ("huge_bad", 1)):
        (b / side / "kernels").mkdir(parents=True)
        _sparse(b / side / "kernels" / "blob.bin", HUGE + extra)
        _sparse(b / side / "kernels" / "gen.cpp", HUGE + extra, head=b"// generated\n" * 1000)
    (b / "bad" / "kernels" / "stolen.cpp").symlink_to(outside / "secret.md")
    w.builds = b
    return w


# ---- the table -----------------------------------------------------------------------------------

Args = Callable[[World], dict[str, Any]]


@dataclass
class Bad:
    id: str
    tool: str
    args: Args
    field: str  # the error names this field first
    problem: str = ""  # regular expression the error text must match
    cli: bool = True  # False when a command line cannot carry the value (a NUL byte)


@dataclass
class Hostile:
    id: str
    tool: str
    args: Args
    check: Callable[[World, dict], None]
    writes: Callable[[World], set[str]] = lambda w: set()


def camp(name: str) -> Callable[[World], str]:
    return lambda w: str(w.bad[name])


def _repo_rows(tool: str, extra: dict[str, Any]) -> list[Bad]:
    """The repository argument, wrong in every way, for a tool whose first parameter is repo."""
    return [
        Bad(f"{tool}-repo-missing", tool, lambda w: {"repo": str(w.root / "nope")} | extra, "repo", "does not exist"),
        Bad(f"{tool}-repo-file", tool, lambda w: {"repo": str(w.afile)} | extra, "repo", "not a folder"),
        Bad(f"{tool}-repo-not-git", tool, lambda w: {"repo": str(w.plain)} | extra, "repo", "not a git repository"),
        Bad(f"{tool}-repo-empty", tool, lambda w: {"repo": ""} | extra, "repo", "empty"),
        Bad(f"{tool}-repo-nul", tool, lambda w: {"repo": str(w.repo) + "\x00x"} | extra, "repo", "", cli=False),
        Bad(f"{tool}-repo-too-long", tool, lambda w: {"repo": LONG} | extra, "repo", "longer than"),
    ]


REVS = {
    "option": "--output=pwned.txt",
    "short-option": "-p",
    "range": "HEAD~2..HEAD",
    "unknown": "deadbeef99",
    "shell": "$(touch pwned)",
    "backticks": "`touch pwned`",
    "empty": "",
    "nul": "HEAD\x00",
}


def _rev_rows(tool: str, name: str, base: Callable[[World], dict[str, Any]], only: tuple[str, ...] = ()) -> list[Bad]:
    """A revision argument that is not one revision: options, ranges, shell syntax, unknown names.
    A tool's second revision argument goes through the same check: `only` keeps the table short."""
    values = {k: v for k, v in REVS.items() if not only or k in only}
    rows = []
    for label, value in values.items():
        problem = "is empty" if label == "empty" else "not a single revision|not a commit"
        rows.append(
            Bad(
                f"{tool}-{name}-{label}",
                tool,
                lambda w, v=value: base(w) | {name: v},
                name,
                problem,
                cli=label != "nul",
            )
        )
    return rows


def rows() -> list[Bad | Hostile]:
    out: list[Bad | Hostile] = []
    rb = "read_benchmark"
    out += [
        Bad("rb-dir-missing", rb, lambda w: {"campaign_dir": str(w.root / "nope")}, "campaign_dir", "does not exist"),
        Bad("rb-dir-file", rb, lambda w: {"campaign_dir": str(w.afile)}, "campaign_dir", "not a folder"),
        Bad("rb-dir-empty-string", rb, lambda w: {"campaign_dir": ""}, "campaign_dir", "empty"),
        Bad("rb-dir-too-long", rb, lambda w: {"campaign_dir": LONG}, "campaign_dir", "at most 4096 characters"),
        Bad("rb-dir-nul", rb, lambda w: {"campaign_dir": str(w.camp) + "\x00"}, "campaign_dir", "", cli=False),
        Bad("rb-no-csv", rb, lambda w: {"campaign_dir": camp("no_csv")(w)}, "campaign_dir", "no benchmark.csv"),
        Bad("rb-csv-is-dir", rb, lambda w: {"campaign_dir": camp("csv_dir")(w)}, "benchmark.csv", "is a folder"),
        Bad(
            "rb-csv-symlink-out",
            rb,
            lambda w: {"campaign_dir": camp("csv_link_out")(w)},
            "benchmark.csv",
            "outside the campaign folder",
        ),
        Bad("rb-csv-empty", rb, lambda w: {"campaign_dir": camp("empty")(w)}, "benchmark.csv", "empty"),
        Bad("rb-csv-header-only", rb, lambda w: {"campaign_dir": camp("header_only")(w)}, "benchmark.csv", "no rows"),
        Bad(
            "rb-csv-wrong-type",
            rb,
            lambda w: {"campaign_dir": camp("wrong_type")(w)},
            "benchmark.csv column 'step_time_s'",
            "not a finite number.*'fast'",
        ),
        Bad(
            "rb-csv-nan",
            rb,
            lambda w: {"campaign_dir": camp("nan")(w)},
            "benchmark.csv column 'step_time_s'",
            "not a finite number",
        ),
        Bad(
            "rb-csv-inf",
            rb,
            lambda w: {"campaign_dir": camp("inf")(w)},
            "benchmark.csv column 'step_time_s'",
            "not a finite number",
        ),
        Bad(
            "rb-csv-neg-inf",
            rb,
            lambda w: {"campaign_dir": camp("neg_inf")(w)},
            "benchmark.csv column 'step_time_s'",
            "not a finite number",
        ),
        Bad(
            "rb-csv-run-not-int",
            rb,
            lambda w: {"campaign_dir": camp("run_not_int")(w)},
            "benchmark.csv column 'run'",
            "whole number",
        ),
        Bad("rb-csv-duplicate", rb, lambda w: {"campaign_dir": camp("dup")(w)}, "benchmark.csv", "share an"),
        Bad("rb-csv-non-utf8", rb, lambda w: {"campaign_dir": camp("non_utf8")(w)}, "benchmark.csv", "UTF-8|read"),
        Bad(
            "rb-csv-long-line",
            rb,
            lambda w: {"campaign_dir": camp("long_line")(w)},
            "benchmark.csv column 'step_time_s'",
            "not a finite number",
        ),
        Bad(
            "rb-csv-too-many-fields",
            rb,
            lambda w: {"campaign_dir": camp("too_many_fields")(w)},
            "benchmark.csv",
            "more fields than the header|expected 5 fields in line 7, saw 6",
        ),
        Bad("rb-csv-huge-binary", rb, lambda w: {"campaign_dir": camp("huge_csv")(w)}, "benchmark.csv", ""),
        Bad("rb-csv-huge-text", rb, lambda w: {"campaign_dir": camp("huge_text_csv")(w)}, "benchmark.csv", ""),
        Bad(
            "rb-jsonl-symlink-out",
            rb,
            lambda w: {"campaign_dir": camp("jsonl_link_out")(w)},
            "records/candidates.jsonl",
            "outside the campaign folder",
        ),
        Bad(
            "rb-jsonl-broken-line",
            rb,
            lambda w: {"campaign_dir": camp("jsonl_broken")(w)},
            "records/candidates.jsonl line 2",
            "not valid JSON",
        ),
        Bad(
            "rb-jsonl-array",
            rb,
            lambda w: {"campaign_dir": camp("jsonl_array")(w)},
            "records/candidates.jsonl line 1",
            "not an object",
        ),
        Bad(
            "rb-jsonl-nan",
            rb,
            lambda w: {"campaign_dir": camp("jsonl_nan")(w)},
            "records/candidates.jsonl line 1 field 'before'",
            "finite number",
        ),
        Bad(
            "rb-jsonl-infinity",
            rb,
            lambda w: {"campaign_dir": camp("jsonl_inf")(w)},
            "records/candidates.jsonl line 1 field 'after'",
            "finite number",
        ),
        Bad(
            "rb-jsonl-wrong-type",
            rb,
            lambda w: {"campaign_dir": camp("jsonl_type")(w)},
            "records/candidates.jsonl line 1 field 'shipped'",
            "true or false",
        ),
        Bad(
            "rb-jsonl-non-utf8",
            rb,
            lambda w: {"campaign_dir": camp("jsonl_non_utf8")(w)},
            "records/candidates.jsonl",
            "UTF-8",
        ),
        Bad(
            "rb-jsonl-report-dotdot",
            rb,
            lambda w: {"campaign_dir": camp("jsonl_report_up")(w)},
            "records/candidates.jsonl line 1 field 'report'",
            "not a path inside the campaign folder",
        ),
        Bad(
            "rb-jsonl-report-absolute",
            rb,
            lambda w: {"campaign_dir": camp("jsonl_report_abs")(w)},
            "records/candidates.jsonl line 1 field 'report'",
            "not a path inside the campaign folder",
        ),
        Bad(
            "rb-jsonl-sha-option",
            rb,
            lambda w: {"campaign_dir": camp("jsonl_sha_option")(w)},
            "records/candidates.jsonl line 1 field 'sha'",
            "not a commit sha",
        ),
        Bad(
            "rb-jsonl-sha-dotdot",
            rb,
            lambda w: {"campaign_dir": camp("jsonl_sha_up")(w)},
            "records/candidates.jsonl line 1 field 'sha'",
            "not a commit sha",
        ),
        Bad("rb-jsonl-huge", rb, lambda w: {"campaign_dir": camp("huge_jsonl")(w)}, "records/candidates.jsonl", ""),
        Bad(
            "rb-commit-dir-symlink-out",
            rb,
            lambda w: {"campaign_dir": camp("commit_link_out")(w)},
            "records/candidates.jsonl line 1 field 'sha'",
            "outside the campaign folder",
        ),
        Bad(
            "rb-baseline-unknown",
            rb,
            lambda w: {"campaign_dir": str(w.camp), "baseline": "--nope"},
            "baseline",
            "no arm",
        ),
        Bad(
            "rb-candidate-unknown",
            rb,
            lambda w: {"campaign_dir": str(w.camp), "candidate": "$(touch pwned)"},
            "candidate",
            "no arm",
        ),
        Bad(
            "rb-warmup-negative",
            rb,
            lambda w: {"campaign_dir": str(w.camp), "warmup_steps": -1},
            "warmup_steps",
            "greater than or equal to 0",
        ),
        Bad(
            "rb-warmup-all",
            rb,
            lambda w: {"campaign_dir": str(w.camp), "warmup_steps": 10**6},
            "benchmark.csv arm 'baseline'",
            "no steady-state steps",
        ),
        Bad(
            "rb-threshold-zero",
            rb,
            lambda w: {"campaign_dir": str(w.camp), "slow_threshold_s": 0},
            "slow_threshold_s",
            "greater than 0",
        ),
        Bad(
            "rb-threshold-inf",
            rb,
            lambda w: {"campaign_dir": str(w.camp), "slow_threshold_s": "inf"},
            "slow_threshold_s",
            "finite",
        ),
        Bad(
            "rb-threshold-nan",
            rb,
            lambda w: {"campaign_dir": str(w.camp), "slow_threshold_s": "nan"},
            "slow_threshold_s",
            "finite|greater than 0",
        ),
        Bad(
            "rb-columns-unknown-role",
            rb,
            lambda w: {"campaign_dir": str(w.camp), "columns": {"speed": "x"}},
            "columns",
            "input should be 'arm', 'run', 'step', 'step_time_s' or 'peak_mem_gb'",
        ),
        Bad(
            "rb-columns-missing-column",
            rb,
            lambda w: {"campaign_dir": str(w.camp), "columns": {"run": "trial"}},
            "columns",
            "not a column",
        ),
    ]

    ec = "evaluate_culprit"
    out += _repo_rows(ec, {"commit": "HEAD"})
    out += _rev_rows(ec, "commit", lambda w: {"repo": str(w.repo)})
    out += [
        Bad(
            "ec-submodule-unknown",
            ec,
            lambda w: {"repo": str(w.repo), "commit": "HEAD", "submodule": "nope"},
            "submodule",
            "not a submodule",
        ),
        Bad(
            "ec-submodule-dotdot",
            ec,
            lambda w: {"repo": str(w.repo), "commit": "HEAD", "submodule": "../outside"},
            "submodule",
            "not a submodule",
        ),
        Bad(
            "ec-max-highlights",
            ec,
            lambda w: {"repo": str(w.repo), "commit": "HEAD", "max_highlights": -1},
            "max_highlights",
            "greater than or equal to 0",
        ),
    ]

    for tool in ("classify_changes", "git_blame_removal"):
        out += _repo_rows(tool, {"base": "HEAD~1"})
        out += _rev_rows(tool, "base", lambda w: {"repo": str(w.repo)})
        out += _rev_rows(
            tool,
            "head",
            lambda w: {"repo": str(w.repo), "base": w.c["add"]},
            ("option", "short-option", "range", "unknown"),
        )
        out.append(
            Bad(
                f"{tool}-wrong-order",
                tool,
                lambda w: {"repo": str(w.repo), "base": w.c["head"], "head": w.c["add"]},
                "base",
                "not an ancestor",
            )
        )
    out.append(
        Bad(
            "cc-globs-empty",
            "classify_changes",
            lambda w: {"repo": str(w.repo), "base": w.c["add"], "recipe_globs": [""]},
            "recipe_globs",
            "empty",
        )
    )
    gb = "git_blame_removal"
    for label, path in (
        ("dotdot", "../outside/secret.md"),
        ("absolute", "/etc/passwd"),
        ("option", "--output=x"),
        ("missing", "src/nope.py"),
        ("empty", ""),
    ):
        out.append(
            Bad(
                f"gb-paths-{label}",
                gb,
                lambda w, p=path: {"repo": str(w.repo), "base": w.c["add"], "paths": [p]},
                "paths",
                "not a path inside|exists neither",
            )
        )
    out.append(
        Bad(
            "gb-paths-nul",
            gb,
            lambda w: {"repo": str(w.repo), "base": w.c["add"], "paths": ["src\x00"]},
            "paths",
            "",
            cli=False,
        )
    )

    rp = "render_pr"

    def rpa(w: World, **kw) -> dict[str, Any]:
        return {"campaign_dir": str(w.camp), "repo": str(w.target), "out_dir": str(w.root / "rendered")} | kw

    out += [
        Bad(
            "rp-campaign-missing",
            rp,
            lambda w: rpa(w, campaign_dir=str(w.root / "nope")),
            "campaign_dir",
            "not a folder|does not exist",
        ),
        Bad(
            "rp-campaign-nan",
            rp,
            lambda w: rpa(w, campaign_dir=camp("nan")(w)),
            "benchmark.csv column 'step_time_s'",
            "not a finite number",
        ),
        Bad(
            "rp-campaign-jsonl-report-out",
            rp,
            lambda w: rpa(w, campaign_dir=camp("jsonl_report_up")(w)),
            "records/candidates.jsonl line 1 field 'report'",
            "not a path inside",
        ),
        Bad("rp-repo-missing", rp, lambda w: rpa(w, repo=str(w.root / "nope")), "repo", "does not exist"),
        Bad("rp-repo-not-git", rp, lambda w: rpa(w, repo=str(w.plain)), "repo", "not a git repository"),
        Bad("rp-draft-broken-text", rp, lambda w: rpa(w, draft='{"job": '), "draft", "not valid JSON"),
        Bad("rp-draft-too-long", rp, lambda w: rpa(w, draft=LONG), "draft", "longer than"),
        Bad("rp-out-dir-too-long", rp, lambda w: rpa(w, out_dir=LONG), "out_dir", "longer than"),
        Bad("rp-draft-missing-file", rp, lambda w: rpa(w, draft=str(w.root / "nope.json")), "draft", "not a file"),
        Bad(
            "rp-draft-broken-file",
            rp,
            lambda w: rpa(w, draft=str(w.root / "drafts" / "broken.json")),
            "draft",
            "not valid JSON",
        ),
        Bad(
            "rp-draft-non-utf8", rp, lambda w: rpa(w, draft=str(w.root / "drafts" / "non_utf8.json")), "draft", "UTF-8"
        ),
        Bad("rp-draft-broken-yaml", rp, lambda w: rpa(w, draft=str(w.root / "drafts" / "broken.yaml")), "draft", ""),
        Bad("rp-draft-huge", rp, lambda w: rpa(w, draft=str(w.root / "drafts" / "huge.json")), "draft", ""),
        Bad(
            "rp-draft-list", rp, lambda w: rpa(w, draft=str(w.root / "drafts" / "list.json")), "draft", "not an object"
        ),
        Bad(
            "rp-draft-unknown-field",
            rp,
            lambda w: rpa(w, draft={"jobb": "x"}),
            "draft.jobb",
            r"unknown field; did you mean job\?",
        ),
        Bad("rp-draft-wrong-type", rp, lambda w: rpa(w, draft={"gpu_count": "eight"}), "draft.gpu_count", "integer"),
        Bad("rp-draft-nan", rp, lambda w: rpa(w, draft='{"gpu_count": NaN}'), "draft.gpu_count", "finite"),
        Bad(
            "rp-draft-threshold-inf",
            rp,
            lambda w: rpa(w, draft='{"benchmark": {"slow_threshold_s": Infinity}}'),
            "draft.benchmark.slow_threshold_s",
            "finite",
        ),
        Bad(
            "rp-draft-change-arm",
            rp,
            lambda w: rpa(w, draft={"changes": [{"name": "x", "arm": "nope"}]}),
            "draft.changes.arm",
            "not an arm",
        ),
        Bad("rp-out-dir-file", rp, lambda w: rpa(w, out_dir=str(w.afile)), "out_dir", "not a folder"),
        Bad(
            "rp-pr-template-unknown",
            rp,
            lambda w: rpa(w, pr_template="../../outside/secret.md"),
            "pr_template",
            "not a PR template",
        ),
        Bad("rp-issue-form-unknown", rp, lambda w: rpa(w, issue_form="--bug"), "issue_form", "no issue forms|not an"),
    ]
    out.append(
        Hostile(
            "rp-hostile-template-and-draft",
            rp,
            lambda w: rpa(
                w,
                draft={
                    "job": "{{ 7*7 }} $(touch pwned)",
                    "summary": "{% raw %}x{% endraw %} <img src=x onerror=alert(1)> `id`",
                    "template_answers": {"Reviewer notes": "{{ cycler.__init__.__globals__ }}"},
                },
            ),
            _hostile_render_ok,
            lambda w: {"rendered/proposed-pr-description.md", "rendered/proposed-issue.md"},
        )
    )

    for name, boxes, must, never in (
        ("deep-nesting", 1, ("- [ ] the one box",), ()),
        ("huge-options", 5_001, ("### PR Types\nPerformance\n", "- [x] Performance"), ("kind 19999",)),
        ("unterminated-comment", 0, ("<answer 'Tests'>",), ()),
        ("unterminated-details", 5_000, ("### not a heading",), ()),
    ):
        out.append(
            Hostile(
                f"rp-template-{name}",
                rp,
                lambda w, name=name: rpa(w, repo=str(w.templates[name]), out_dir=str(w.root / f"rendered-{name}")),
                _parsed(name, boxes, must, never),
                lambda w, name=name: {
                    f"rendered-{name}",
                    f"rendered-{name}/proposed-pr-description.md",
                    f"rendered-{name}/proposed-issue.md",
                },
            )
        )

    lw = "lint_wording"
    out += [
        Bad("lw-neither", lw, lambda w: {}, "path", "exactly one"),
        Bad("lw-both", lw, lambda w: {"path": str(w.afile), "text": "x"}, "path", "exactly one"),
        Bad("lw-path-missing", lw, lambda w: {"path": str(w.root / "nope.md")}, "path", "not a file"),
        Bad("lw-path-too-long", lw, lambda w: {"path": LONG}, "path", "longer than"),
        Bad("lw-campaign-too-long", lw, lambda w: {"text": "x", "campaign_dir": LONG}, "campaign_dir", "longer than"),
        Bad("lw-path-dir", lw, lambda w: {"path": str(w.plain)}, "path", "not a file"),
        Bad("lw-path-huge", lw, lambda w: {"path": str(w.bad["huge_csv"] / "benchmark.csv")}, "path", "larger"),
        Bad("lw-path-non-utf8", lw, lambda w: {"path": str(w.root / "drafts" / "non_utf8.json")}, "path", "UTF-8"),
        Bad("lw-text-huge", lw, lambda w: {"text": "word " * 600_000}, "text", "larger"),
        Bad("lw-kind", lw, lambda w: {"text": "x", "kind": "email"}, "kind", "'auto', 'pr' or 'issue'"),
        Bad(
            "lw-campaign-missing",
            lw,
            lambda w: {"text": "x", "campaign_dir": str(w.root / "nope")},
            "campaign_dir",
            "not a folder",
        ),
        Bad(
            "lw-campaign-inf",
            lw,
            lambda w: {"text": "x", "campaign_dir": camp("inf")(w)},
            "benchmark.csv column 'step_time_s'",
            "not a finite number",
        ),
        Bad("lw-repo-not-git", lw, lambda w: {"text": "x", "repo": str(w.plain)}, "repo", "not a git repository"),
        Bad(
            "lw-draft-broken",
            lw,
            lambda w: {"text": "x", "campaign_dir": str(w.camp), "draft": "{oops"},
            "draft",
            "not valid JSON",
        ),
    ]
    out.append(
        Hostile(
            "lw-hostile-text",
            lw,
            lambda w: {
                "text": "# {{ 7*7 }}\n\n$(touch pwned) `rm -rf /` <script>x</script>\n"
                + "a" * 200_000
                + "\n\ufffd\x00\n"
            },
            _lint_ok,
        )
    )

    tb = "triage_builds"

    def tba(w: World, **kw) -> dict[str, Any]:
        return {"good_dir": str(w.builds / "good"), "bad_dir": str(w.builds / "bad")} | kw

    out += [
        Bad("tb-good-missing", tb, lambda w: tba(w, good_dir=str(w.root / "nope")), "good_dir", "does not exist"),
        Bad("tb-good-too-long", tb, lambda w: tba(w, good_dir=LONG), "good_dir", "longer than"),
        Bad("tb-bad-file", tb, lambda w: tba(w, bad_dir=str(w.afile)), "bad_dir", "not a folder"),
        Bad("tb-good-empty", tb, lambda w: tba(w, good_dir=""), "good_dir", "empty"),
        Bad("tb-same", tb, lambda w: tba(w, bad_dir=str(w.builds / "good" / ".." / "good")), "bad_dir", "same folder"),
        Bad("tb-subdirs-empty", tb, lambda w: tba(w, subdirs=[]), "subdirs", "empty|not a relative"),
        Bad("tb-subdirs-dotdot", tb, lambda w: tba(w, subdirs=["../../outside"]), "subdirs", "not a relative"),
        Bad("tb-subdirs-absolute", tb, lambda w: tba(w, subdirs=["/etc"]), "subdirs", "not a relative"),
        Bad("tb-subdirs-none-exist", tb, lambda w: tba(w, subdirs=["nope"]), "subdirs", "none of"),
        Bad("tb-max-diffs", tb, lambda w: tba(w, max_diffs=51), "max_diffs", "less than or equal to 50"),
        Bad("tb-diff-lines", tb, lambda w: tba(w, diff_lines=1), "diff_lines", "greater than or equal to 5"),
    ]
    out.append(Hostile("tb-link-out-of-the-build", tb, lambda w: tba(w, subdirs=["kernels"]), _link_not_read))
    out.append(
        Hostile(
            "tb-huge-files",
            tb,
            lambda w: tba(
                w, good_dir=str(w.builds / "huge_good"), bad_dir=str(w.builds / "huge_bad"), subdirs=["kernels"]
            ),
            _huge_triage_ok,
        )
    )

    bs = "bisect_start"

    def bsa(w: World, **kw) -> dict[str, Any]:
        return {"repo": str(w.repo), "good": w.c["add"], "run": "echo PASS"} | kw

    out += _repo_rows(bs, {"good": "HEAD~1", "run": "true"})
    out += _rev_rows(bs, "good", lambda w: bsa(w))
    out += _rev_rows(bs, "bad", lambda w: bsa(w), ("option", "short-option", "range", "unknown"))
    out += [
        Bad("bs-wrong-order", bs, lambda w: bsa(w, good=w.c["head"], bad=w.c["add"]), "good", "not an ancestor"),
        Bad("bs-same-ends", bs, lambda w: bsa(w, good=w.c["head"]), "good", "same commit"),
        Bad("bs-run-empty", bs, lambda w: bsa(w, run=" "), "run", "no run command"),
        Bad("bs-run-missing", bs, lambda w: {"repo": str(w.repo), "good": w.c["add"]}, "run", "no run command"),
        Bad("bs-run-cwd-too-long", bs, lambda w: bsa(w, run_cwd="/" + LONG), "run_cwd", "longer than|not a folder"),
        Bad("bs-run-cwd-missing", bs, lambda w: bsa(w, run_cwd=str(w.root / "nope")), "run_cwd", "not a folder"),
        Bad("bs-submodule-unknown", bs, lambda w: bsa(w, submodule="nope"), "submodule", "not a submodule"),
        Bad("bs-submodule-dotdot", bs, lambda w: bsa(w, submodule="../outside"), "submodule", "not a submodule"),
        Bad("bs-fail-pattern", bs, lambda w: bsa(w, fail_pattern="(unclosed"), "fail_pattern", "regular expression"),
        Bad("bs-pass-pattern-empty", bs, lambda w: bsa(w, pass_pattern=""), "pass_pattern", "empty"),
        Bad("bs-metric-pattern", bs, lambda w: bsa(w, metric_pattern="[x"), "metric_pattern", "regular expression"),
        Bad("bs-timeout-zero", bs, lambda w: bsa(w, timeout_s=0), "timeout_s", "greater than 0"),
        Bad("bs-timeout-inf", bs, lambda w: bsa(w, timeout_s="inf"), "timeout_s", "finite"),
        Bad("bs-timeout-nan", bs, lambda w: bsa(w, timeout_s="nan"), "timeout_s", "finite"),
        Bad(
            "bs-install-timeout-negative",
            bs,
            lambda w: bsa(w, install_timeout_s=-1),
            "install_timeout_s",
            "greater than 0",
        ),
        Bad("bs-confidence-one", bs, lambda w: bsa(w, confidence=1.0), "confidence", "less than 1"),
        Bad("bs-flaky-fail-half", bs, lambda w: bsa(w, flaky_fail=0.5), "flaky_fail", "less than 0.5"),
        Bad("bs-max-skips-negative", bs, lambda w: bsa(w, max_skips=-1), "max_skips", "greater than or equal to 0"),
        Bad("bs-build-ahead-negative", bs, lambda w: bsa(w, build_ahead=-1), "build_ahead", "greater than or equal"),
        Bad("bs-cache-limit-zero", bs, lambda w: bsa(w, cache_limit_mb=0), "cache_limit_mb", "greater than 0"),
        Bad("bs-paths-empty", bs, lambda w: bsa(w, checkout_paths=[]), "checkout_paths", "at least 1|whole tree"),
        Bad("bs-paths-absolute", bs, lambda w: bsa(w, checkout_paths=[str(w.outside)]), "checkout_paths", "absolute"),
        Bad("bs-paths-leave", bs, lambda w: bsa(w, checkout_paths=["src/../../x"]), "checkout_paths", "leads out"),
        Bad("bs-paths-whole", bs, lambda w: bsa(w, checkout_paths=["./"]), "checkout_paths", "whole tree"),
        Bad("bs-paths-missing", bs, lambda w: bsa(w, checkout_paths=["nope/x"]), "checkout_paths", "neither a folder"),
        Bad(
            "bs-paths-cwd-outside",
            bs,
            lambda w: bsa(w, checkout_paths=["src"], run_cwd="tools/bench"),
            "checkout_paths",
            "run.cwd 'tools/bench' is not inside",
        ),
    ]
    for tool in ("bisect_step", "bisect_run", "bisect_status", "bisect_reset"):
        out += _repo_rows(tool, {})
    for tool in ("bisect_step", "bisect_run"):
        out.append(
            Bad(f"{tool}-nothing-started", tool, lambda w: {"repo": str(w.repo)}, "repo", "no bisect is recorded")
        )
    out += _hostile_size_rows()
    return out


def _hostile_render_ok(w: World, result: dict) -> None:
    pr = Path(result["pr_path"]).read_bytes().decode("utf-8")
    for literal in (
        "{{ 7*7 }}",
        "{% for x in range(3) %}loop{% endfor %}",
        "{{ ''.__class__.__mro__ }}",
        "<script>alert(1)</script>",
        "$(touch pwned) `touch pwned`",
        "{{ 7*7 }} $(touch pwned)",
        "{% raw %}x{% endraw %}",
        "{{ cycler.__init__.__globals__ }}",
        "word " * 40_000,
    ):
        assert literal in pr, literal
    assert "49" not in pr.split("\n", 1)[0] and "loop loop" not in pr and "<class" not in pr
    assert "café" in pr  # the template's stray latin-1 bytes were read as text, not refused or dropped
    assert "{{ 7*7 }}" in result["pr_title"]
    assert "49" not in Path(result["issue_path"]).read_text()


def _lint_ok(w: World, result: dict) -> None:
    assert result["kind"] in ("pr", "issue") and isinstance(result["findings"], list)


def _link_not_read(w: World, result: dict) -> None:
    sub = result["subdirs"][0]
    assert "stolen.cpp" not in json.dumps(sub) and "secret" not in json.dumps(result["diffs"])
    assert any("lead outside the build folders" in x and "stolen.cpp" in x for x in result["warnings"])


def _huge_triage_ok(w: World, result: dict) -> None:
    sub = result["subdirs"][0]
    assert sorted(sub["binary_differ"]) == ["blob.bin", "gen.cpp"], sub
    assert result["reading"] == "runtime"


def _hostile_size_rows() -> list[Bad | Hostile]:
    """Files and values built to hang or crash a tool: each ends as a clear error in bounded time."""
    rb, ec, cc = "read_benchmark", "evaluate_culprit", "classify_changes"
    jl = "records/candidates.jsonl"
    long = "a" * 200_000  # more than one process argument may hold (E2BIG)
    return [
        Bad("rb-jsonl-fifo", rb, lambda w: {"campaign_dir": camp("jsonl_fifo")(w)}, jl, "named pipe"),
        Bad("rb-jsonl-dir", rb, lambda w: {"campaign_dir": camp("jsonl_dir")(w)}, jl, "is a folder"),
        Bad("rb-csv-link-loop", rb, lambda w: {"campaign_dir": camp("csv_loop")(w)}, "benchmark.csv", "loops"),
        Bad("rb-jsonl-deep", rb, lambda w: {"campaign_dir": camp("jsonl_deep")(w)}, f"{jl} line 1", "levels deep"),
        Bad("rb-jsonl-bigint", rb, lambda w: {"campaign_dir": camp("jsonl_bigint")(w)}, f"{jl} line 1", "digits"),
        Bad(
            "rb-jsonl-surrogate",
            rb,
            lambda w: {"campaign_dir": camp("jsonl_surrogate")(w)},
            f"{jl} line 1 field 'title'",
            "lone surrogate",
        ),
        Bad(
            "rb-csv-subnormal",
            rb,
            lambda w: {"campaign_dir": camp("csv_subnormal")(w)},
            "benchmark.csv column 'step_time_s'",
            "between 1e-09 and 1e\\+09 seconds",
        ),
        Bad(
            "rb-csv-1e308",
            rb,
            lambda w: {"campaign_dir": camp("csv_1e308")(w)},
            "benchmark.csv column 'step_time_s'",
            "between 1e-09 and 1e\\+09 seconds",
        ),
        Bad(
            "rb-csv-repeated-header",
            rb,
            lambda w: {"campaign_dir": camp("csv_dup_header")(w)},
            "benchmark.csv",
            "names column 'step_time_s' twice",
        ),
        Bad("ec-commit-200k", ec, lambda w: {"repo": str(w.repo), "commit": long}, "commit", "1,024", cli=False),
        Bad("cc-base-200k", cc, lambda w: {"repo": str(w.repo), "base": long}, "base", "1,024", cli=False),
        Bad("cc-repo-200k", cc, lambda w: {"repo": "/" + long, "base": "HEAD"}, "repo", "4,096", cli=False),
        Bad(
            "ec-broken-config",
            ec,
            lambda w: {"repo": str(w.bad["broken_config"]), "commit": w.c["head"]},
            "repo",
            "broken the git config.*bad config line",
        ),
        Bad(
            "cc-broken-config",
            cc,
            lambda w: {"repo": str(w.bad["broken_config"]), "base": w.c["head"]},
            "repo",
            "bad config line",
        ),
    ]


ROWS = rows()
BAD = [r for r in ROWS if isinstance(r, Bad)]
HOSTILE = [r for r in ROWS if isinstance(r, Hostile)]


def test_every_tool_has_rows():
    assert {r.tool for r in BAD} == set(SPECS)
    assert len({r.id for r in ROWS}) == len(ROWS)


# ---- running the table through both surfaces -----------------------------------------------------


def argv_for(tool: str, args: dict[str, Any]) -> list[str]:
    """The command line the CLI adapter builds from the same arguments (the README's rules)."""
    spec = SPECS[tool]
    positional, options = [], []
    for p in spec.parameters():
        if p.name not in args:
            continue
        value = args[p.name]
        flag = "--" + p.name.replace("_", "-")
        if p.default is inspect.Parameter.empty:
            positional.append(str(value))
        elif isinstance(value, bool):
            options.append(flag if value else "--no-" + p.name.replace("_", "-"))
        elif isinstance(value, list):  # --flag=value: a value may start with '-'
            options += [f"{flag}={v}" for v in value] or [f"{flag}="]
        elif isinstance(value, dict):
            options.append(f"{flag}={json.dumps(value)}")
        else:
            options.append(f"{flag}={value}")
    # `--` would end option parsing; positional values starting with '-' go after it
    return (
        [spec.cli_name, *options, "--json", "--", *positional]
        if any(v.startswith("-") for v in positional)
        else [spec.cli_name, *positional, *options, "--json"]
    )


@dataclass
class Results:
    mcp: dict[str, dict]
    cli: dict[str, dict]
    cli_world: dict[str, World]  # which world each CLI row ran in


# The table runs in chunks, each over its own world: no single setup holds the whole table, so a busy
# machine slows a chunk down but cannot time out every row at once. With `--dist loadgroup` (tests/run.sh)
# a chunk's rows go to one test process (helpers/table_chunks.py), which computes the chunk once, on its
# first row.
CHUNK_OF = {r.id: table_chunks.chunk_of(r.id) for r in ROWS}
CHUNKS = [[r for r in ROWS if CHUNK_OF[r.id] == k] for k in range(table_chunks.CHUNKS)]
_DONE: dict[int, Results] = {}


def in_chunks(rows: list) -> list:
    """Parameters for rows, each marked with its chunk so one test process runs a chunk.

    A chunk's first row pays for the whole chunk, so its time limit grows with the machine's load."""
    limit = pytest.mark.timeout(slack(300))
    return [
        pytest.param(r, id=r.id, marks=[pytest.mark.xdist_group(f"bad-input-{CHUNK_OF[r.id]}"), limit]) for r in rows
    ]


def chunk_results(row_id: str, factory: pytest.TempPathFactory) -> Results:
    """Both surfaces for the chunk holding row_id, computed once for the whole run.

    tests/run.sh keeps a chunk's rows in one test process; a run with another `--dist` may spread them,
    so the first process to reach a chunk computes it under a file lock in the folder every test
    process shares, and the others read what it saved (the world's paths included) instead of
    computing the chunk again."""
    k = CHUNK_OF[row_id]
    if k in _DONE:
        return _DONE[k]
    base = factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    saved = shared / f"bad-input-chunk-{k}.pickle"
    with open(shared / f"bad-input-chunk-{k}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if saved.exists():
            _DONE[k] = pickle.loads(saved.read_bytes())
        else:
            _DONE[k] = _compute_chunk(k, factory)
            saved.write_bytes(pickle.dumps(_DONE[k]))
    return _DONE[k]


def _compute_chunk(k: int, factory: pytest.TempPathFactory) -> Results:
    """Both surfaces for chunk k: the MCP client here, then the CLI driver, in one world."""
    world = build_world(factory.mktemp(f"bad-input-{k}"))
    rows = CHUNKS[k]
    mcp = _mcp_pass(world, rows)
    cli_rows = [r for r in rows if not isinstance(r, Bad) or r.cli]
    job = json.dumps(
        {
            "root": str(world.root),
            "cases": [{"id": r.id, "argv": argv_for(r.tool, r.args(world)), "cwd": str(world.plain)} for r in cli_rows],
        }
    )
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "helpers" / "cli_batch.py")],
        input=job,
        capture_output=True,
        text=True,
        timeout=slack(600),
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    cli = {r["id"]: r for r in json.loads(proc.stdout)}
    return Results(mcp, cli, {r.id: world for r in cli_rows})


def _mcp_pass(world: World, rows: list) -> dict[str, dict]:
    out: dict[str, dict] = {}

    async def go():
        async with Client(build_server(), mode="legacy") as client:
            before = tree(world.root)
            for row in rows:
                with anyio.fail_after(slack(120)):
                    r = await client.call_tool(row.tool, row.args(world))
                after = tree(world.root)
                out[row.id] = {
                    "is_error": r.is_error,
                    "text": r.content[0].text if r.content else "",
                    "structured": r.structured_content,
                    "changes": changes(before, after),
                }
                if isinstance(row, Hostile) and not r.is_error:
                    out[row.id]["checked"] = _run_check(row, world, r.structured_content)
                _undo_writes(world, row)
                before = tree(world.root)

    anyio.run(go)
    return out


def _run_check(row: Hostile, world: World, result: dict) -> str | None:
    try:
        row.check(world, result)
    except AssertionError as exc:
        return f"{exc}"[:2000]
    return None


def _undo_writes(world: World, row) -> None:
    """Remove the output files a Hostile row wrote, so the next row starts from the same tree."""
    if isinstance(row, Hostile):
        for rel in sorted(row.writes(world), key=lambda r: -r.count("/")):  # files before their folder
            target = world.root / rel
            if target.is_dir():
                target.rmdir()
            else:
                target.unlink(missing_ok=True)
        out = world.root / "rendered"
        if out.is_dir() and not any(out.iterdir()):
            out.rmdir()


def _cli_field(row: Bad) -> str:
    """The field as the command line spells it: --flag for an option, NAME for a positional."""
    head, _, rest = row.field.partition(".")
    params = {p.name: p for p in SPECS[row.tool].parameters()}
    if head not in params:
        return row.field
    spelled = head.upper() if params[head].default is inspect.Parameter.empty else "--" + head.replace("_", "-")
    return spelled + ("." + rest if rest else "")


def _check_error_text(row: Bad, text: str, cli: bool = False) -> None:
    """Our errors start with 'field: problem', also where the MCP SDK refused the arguments against the input
    schema (perfkit words that refusal through tools.spec.argument_error, as the CLI does)."""
    assert "Traceback" not in text and "internal error" not in text, text[:2000]
    assert "validation error" not in text, f"{row.id}: {text[:500]!r}"
    field = _cli_field(row) if cli else row.field
    assert text.startswith(field + ":"), f"{row.id}: {text[:500]!r}"
    if row.problem:
        assert re.search(row.problem, text, re.I | re.S), f"{row.id}: {text[:500]!r} !~ {row.problem}"


@pytest.mark.parametrize("row", in_chunks(BAD))
def test_bad_input_over_mcp(row: Bad, tmp_path_factory):
    res = chunk_results(row.id, tmp_path_factory).mcp[row.id]
    assert res["is_error"], f"{row.id} succeeded: {json.dumps(res['structured'])[:300]}"
    text = res["text"].removeprefix(f"Error executing tool {row.tool}: ")
    _check_error_text(row, text)
    assert not res["changes"], f"{row.id} wrote: {res['changes'][:10]}"


@pytest.mark.parametrize("row", in_chunks([r for r in BAD if r.cli]))
def test_bad_input_on_the_cli(row: Bad, tmp_path_factory):
    res = chunk_results(row.id, tmp_path_factory).cli[row.id]
    assert res["rc"] == 2, f"{row.id}: exit {res['rc']}: {res['stderr'][-1500:]}"
    assert res["stdout"] == ""
    lines = res["stderr"].strip().split("\n")
    assert len(lines) == 1, res["stderr"][-1500:]
    if lines[0].startswith("{"):  # with --json the error is one JSON object on stderr, the same message in it
        said = json.loads(lines[0])
        assert said["error"] == "bad_input" and said["exit_code"] == 2, said
        message = said["message"]
    else:
        assert lines[0].startswith("perfkit: error: ")
        message = lines[0].removeprefix("perfkit: error: ")
    _check_error_text(row, message, cli=True)
    assert not mcp_words(message, SPECS[row.tool], list(SPECS.values())), message  # the CLI's own words
    assert not res["changes"], f"{row.id} wrote: {res['changes'][:10]}"


@pytest.mark.parametrize("row", in_chunks(HOSTILE))
def test_hostile_but_valid_input(row: Hostile, tmp_path_factory):
    results = chunk_results(row.id, tmp_path_factory)
    res = results.mcp[row.id]
    assert not res["is_error"], res["text"][:1000]
    assert res["checked"] is None, res["checked"]
    assert {c[2:] for c in res["changes"]} <= row.writes(results.cli_world[row.id]) | {"rendered"}, res["changes"]
    res, world = results.cli[row.id], results.cli_world[row.id]
    assert res["rc"] in ((0, 1) if row.tool == "lint_wording" else (0,)), res["stderr"][-1500:]
    result = json.loads(res["stdout"])
    if row.tool == "lint_wording":  # lint-wording exits 1 when it has findings (docs/publish.md, "Exit status")
        assert res["rc"] == (1 if result["findings"] else 0), (res["rc"], result["findings"][:3])
    row.check(world, result)
    assert {c[2:] for c in res["changes"]} <= row.writes(world) | {"rendered"}, res["changes"]
    assert not any(w.plain.joinpath("pwned").exists() for w in results.cli_world.values())


BATCH_CHECKED = {
    "rb-csv-nan",
    "evaluate_culprit-commit-option",
    "bs-wrong-order",
    "tb-subdirs-dotdot",
    "lw-kind",
    "rb-jsonl-huge",
}


@pytest.mark.parametrize("row", in_chunks([r for r in BAD if r.id in BATCH_CHECKED]))
def test_the_batch_cli_is_the_real_cli(row: Bad, tmp_path_factory):
    """A few rows through `python -m perfkit.cli` itself: the same exit status and the same output."""
    results = chunk_results(row.id, tmp_path_factory)
    world = results.cli_world[row.id]
    proc = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", *argv_for(row.tool, row.args(world))],
        capture_output=True,
        text=True,
        timeout=slack(120),
        cwd=world.plain,
    )
    batch = results.cli[row.id]
    assert (proc.returncode, proc.stdout, proc.stderr) == (batch["rc"], batch["stdout"], batch["stderr"])
