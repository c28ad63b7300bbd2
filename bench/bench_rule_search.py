"""The rule search measured on a corpus of real repositories' contribution files, against a maintainer's judgment.

The corpus is a folder holding one small git repository per project (its PR and issue templates,
CONTRIBUTING files, agent files, policy files, workflows and the guides they link to, committed at
their real paths) under CORPUS/<half>/<owner>__<name>/, and one judgment per project in
CORPUS/expected/<owner>__<name>.json:

    {"expected": [{"what": "...", "kind": "sign-off" | [kinds], "at": ["FILE:LINE", "FILE", ...],
                   "params": {"prefixes_include": [...], "slots_keys": [...], "where": [...], "labels": [...]}}],
     "neutral":  [{"kind": ..., "at": [...]}]}

An expected item is a rule the maintainer would want reported; it is found when perfkit reports a
rule of its kind at one of its places (a line within two of the one given, or anywhere in a file
given without a line). A reported rule that matches no expected or neutral item is a false one.
"params" are checked on found items (the values must be among those reported). No repository text
is in this script: it reads the corpus it is given. With --before SHA the same corpus is read by the
rules as they were at that commit (exported with `git archive`), side by side.

Usage: python bench/bench_rule_search.py CORPUS [--half design|holdout|both] [--before SHA] [--show]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import inspect, json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
try:
    from perfkit.repo import contribution_files as files_reader
except ImportError:  # the tree before the packages were grouped
    from perfkit import repofiles as files_reader
from perfkit.publish import repo_notes, repo_template
out = {}
for d in sys.argv[2:]:
    top = Path(d)
    files = files_reader.read_repo_files(top)
    tpl = repo_template.select(files, None)
    if "top" in inspect.signature(repo_notes.read).parameters:
        got = repo_notes.read(top, files, tpl.path)
    else:  # the reader before the rule search
        got = repo_notes.read(files, tpl.path, tpl.text)
    out[top.name] = [
        {"kind": r.kind, "source": r.source, "line": r.line, "text": r.text,
         "params": r.params.model_dump() if hasattr(r, "params") else {}}
        for r in got[0]
    ]
print(json.dumps(out))
"""


def _read(server: Path, repos: list[Path]) -> tuple[dict[str, list[dict[str, Any]]], float]:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(server), *map(str, repos)], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-2000:])
    return json.loads(proc.stdout), time.perf_counter() - started


def _at(rule: dict[str, Any], places: list[str]) -> bool:
    for place in places:
        path, _, line = place.partition(":")
        if rule["source"] == path and (not line or abs(rule["line"] - int(line)) <= 2):
            return True
    return False


def _kinds(item: dict[str, Any]) -> list[str]:
    k = item["kind"]
    return k if isinstance(k, list) else [k]


def _params_ok(item: dict[str, Any], rule: dict[str, Any]) -> bool:
    want, got = item.get("params", {}), rule.get("params", {})
    return (
        set(want.get("prefixes_include", [])) <= set(got.get("prefixes", []))
        and set(want.get("slots_keys", [])) <= set(got.get("slots", {}))
        and set(want.get("where", [])) <= set(got.get("where", []))
        and set(want.get("labels", [])) <= set(got.get("labels", []))
    )


def score(judgment: dict[str, Any], rules: list[dict[str, Any]]) -> dict[str, Any]:
    """found, missed and false rules of one repository, and the params checked on found ones.

    Each reported rule counts for one expected item (one not yet found first, when it matches several);
    an item's params are right when one of the rules at its places carries them.
    """
    matched: dict[int, list[dict[str, Any]]] = {}
    false: list[dict[str, Any]] = []
    neutral = 0
    for r in rules:
        hits = [k for k, e in enumerate(judgment["expected"]) if r["kind"] in _kinds(e) and _at(r, e["at"])]
        hit = next((k for k in hits if k not in matched), hits[0] if hits else None)
        if hit is not None:
            matched.setdefault(hit, []).append(r)
        elif any(r["kind"] in _kinds(n) and _at(r, n["at"]) for n in judgment.get("neutral", [])):
            neutral += 1
        else:
            false.append(r)
    missed = [e for k, e in enumerate(judgment["expected"]) if k not in matched]
    checked = [k for k in matched if judgment["expected"][k].get("params")]
    params_ok = [
        k
        for k in checked
        if any(
            _params_ok(e, r)
            for e in [judgment["expected"][k]]
            for r in rules
            if r["kind"] in _kinds(e) and _at(r, e["at"])
        )
    ]
    return {
        "expected": len(judgment["expected"]),
        "found": len(matched),
        "missed": missed,
        "false": false,
        "neutral": neutral,
        "params_checked": len(checked),
        "params_ok": len(params_ok),
    }


def _export(sha: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", sha, "server"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into / "server"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--half", choices=["design", "holdout", "both"], default="both")
    ap.add_argument("--before", help="a commit whose rule reader runs beside this tree's")
    ap.add_argument("--show", action="store_true", help="list each missed and false rule")
    args = ap.parse_args()
    halves = ["design", "holdout"] if args.half == "both" else [args.half]
    versions = [("now", ROOT / "server")]
    tmp = tempfile.TemporaryDirectory()
    if args.before:
        versions.append((f"at {args.before}", _export(args.before, Path(tmp.name))))
    for label, server in versions:
        print(f"## rules read {label}")
        for half in halves:
            repos = sorted(p for p in (args.corpus / half).iterdir() if (p / ".git").exists())
            got, seconds = _read(server, repos)
            totals = dict.fromkeys(
                ("expected", "found", "missed", "false", "neutral", "params_checked", "params_ok"), 0
            )
            print(f"\n{half}: {len(repos)} repositories, read in {seconds:.1f} s")
            print("| repository | expected | found | missed | false | neutral | params right |")
            print("| --- | --- | --- | --- | --- | --- | --- |")
            for repo in repos:
                judgment = json.loads((args.corpus / "expected" / f"{repo.name}.json").read_text())
                s = score(judgment, got[repo.name])
                for k in totals:
                    totals[k] += len(s[k]) if isinstance(s[k], list) else s[k]
                print(
                    f"| {repo.name} | {s['expected']} | {s['found']} | {len(s['missed'])} | {len(s['false'])} | "
                    f"{s['neutral']} | {s['params_ok']}/{s['params_checked']} |"
                )
                if args.show:
                    for e in s["missed"]:
                        print(f"|   missed | {'/'.join(_kinds(e))} | {e['at'][0]} | {e.get('what', '')} | | | |")
                    for r in s["false"]:
                        print(f"|   false | {r['kind']} | {r['source']}:{r['line']} | {r['text'][:70]!r} | | | |")
            t = totals
            recall = t["found"] / t["expected"] if t["expected"] else 1.0
            reported = t["found"] + t["false"] + t["neutral"]
            print(
                f"| **{half} total** | {t['expected']} | {t['found']} | {t['missed']} | {t['false']} | "
                f"{t['neutral']} | {t['params_ok']}/{t['params_checked']} |"
            )
            print(f"\nfound {recall:.0%} of expected rules; {t['false']} false of {reported} reported")
    tmp.cleanup()


if __name__ == "__main__":
    main()
