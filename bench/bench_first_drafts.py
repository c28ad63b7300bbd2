"""First drafts and the agent's loop on a folder of real repositories' contribution files.

Each sub-folder of CORPUS is a small git repository holding one project's PR template, issue forms,
CONTRIBUTING and agent files. For each, render_pr runs on a copy of examples/campaign with
examples/publish/draft.json (the first draft), and the draft is judged by the rule of acceptability:

- no instruction or example text left: no line of the PR template, nor of a Markdown issue template,
  reaches the PR description or the issue unchanged unless it looks like structure by its shape alone
  (tests/helpers/publish_agent.py judges, without perfkit's parse);
- no question unanswered and unlisted: every placeholder of both files is in left_for_human;
- the right form: the issue form is not a regression or automation form (printed for a reader to check);
- the repo's rules reported and followed: each rule note is in left_for_human, and the title follows a
  title rule when there is one.

Then a scripted agent (the same module) answers from the draft's facts, hands over what it cannot
know, and renders again, at most three renders in all. A final draft is acceptable when left_for_human
holds only deliberate items, lint is clean, no template instruction text is in the body and no
answer was overwritten. Prints one line per repository and each defect left.
Usage: python bench/bench_first_drafts.py CORPUS [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from helpers import publish_agent  # noqa: E402

MAX_RENDERS = 3


def _render(campaign: Path, repo: Path, draft: dict, out: Path) -> tuple[dict, str, str]:
    from perfkit.publish.render import render_pr

    res = render_pr(str(campaign), str(repo), draft=draft, out_dir=str(out))
    return json.loads(res.model_dump_json()), Path(res.pr_path).read_text(), Path(res.issue_path).read_text()


def _template_text(repo: Path, path: str | None) -> str:
    if not path:
        return ""
    import subprocess

    out = subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True)
    return out.stdout


def _issue_template_text(repo: Path, path: str | None) -> str:
    """A Markdown issue template's text without its front matter (never posted); "" for a YAML form, whose
    markdown elements are never posted either."""
    if not path or not path.lower().endswith(".md"):
        return ""
    text = _template_text(repo, path)
    if text.startswith("---"):
        end = text.find("\n---", 3)
        text = text[end + 4 :] if end != -1 else text
    return text


def _text_left(template: str, body: str, issue_template: str, issue: str) -> list[str]:
    left = [f"template text left: {t[:90]!r}" for t in publish_agent.surviving_template_text(template, body)]
    return left + [
        f"issue template text left: {t[:80]!r}" for t in publish_agent.surviving_template_text(issue_template, issue)
    ]


def judge(res: dict, body: str, template: str, issue: str = "", issue_template: str = "") -> list[str]:
    """The defects of one draft by the rule above."""
    defects = _text_left(template, body, issue_template, issue)
    listed = {(i["file"], i["line"]) for i in res["left_for_human"] if i["kind"] == "placeholder"}
    listed_text = {i["text"] for i in res["left_for_human"]}
    for ph in res["placeholders"]:
        if (ph["file"], ph["line"]) not in listed and ph["text"] not in listed_text:
            if ph["text"] != "<tick if true, else say why not>":
                defects.append(f"placeholder not listed: {ph['file']}:{ph['line']} {ph['text']}")
    form = res["issue_form"]
    kind = next((s["kind"] for s in form["scores"] if s["path"] == form["path"]), None)
    if kind == "regression" or (form["path"] and "automation" in form["why"]):
        defects.append(f"wrong form: {form['path']} ({kind})")
    rules = {i["text"] for i in res["left_for_human"] if i["kind"] == "rule"}
    for n in res["repo_notes"]:
        if not any(n["text"][:60] in r for r in rules):
            defects.append(f"rule not listed: {n['source']}:{n['line']} {n['text'][:80]}")
    return defects


def loop(campaign: Path, repo: Path, draft: dict, out: Path, template: str, issue_template: str) -> dict:
    rounds = []
    d = draft
    for n in range(1, MAX_RENDERS + 1):
        res, body, issue = _render(campaign, repo, d, out)
        open_items = [i for i in res["left_for_human"] if not i["deliberate"]]
        lint = len(res["lint_pr"]) + len(res["lint_issue"])
        rounds.append({"render": n, "open": len(open_items), "lint": lint})
        nxt = publish_agent.next_draft(d, res)
        if nxt is None or n == MAX_RENDERS:
            break
        d = nxt
    left = [i for i in res["left_for_human"] if not i["deliberate"]]
    over = publish_agent.overwritten(d, res, body)
    defects = [f"open: {i['kind']} {i.get('id') or ''} {i['text'][:70]}" for i in left]
    defects += [f"lint: {f['rule']} {f['excerpt'][:50]!r}" for f in res["lint_pr"] + res["lint_issue"]]
    defects += _text_left(template, body, issue_template, issue)
    defects += [f"answer overwritten: {k}" for k in over]
    return {"renders": len(rounds), "rounds": rounds, "acceptable": not defects, "defects": defects}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--json", type=Path)
    ns = ap.parse_args()
    draft = json.loads((ROOT / "examples" / "publish" / "draft.json").read_text())
    repos = sorted(p for p in ns.corpus.iterdir() if (p / ".git").exists())
    report = []
    with tempfile.TemporaryDirectory() as tmp:
        campaign = Path(tmp) / "campaign"
        shutil.copytree(ROOT / "examples" / "campaign", campaign)
        for repo in repos:
            out = Path(tmp) / "out" / repo.name
            res, body, issue = _render(campaign, repo, draft, out)
            template = _template_text(repo, res["pr_template"]["path"])
            issue_template = _issue_template_text(repo, res["issue_form"]["path"])
            first = judge(res, body, template, issue, issue_template)
            agent = loop(campaign, repo, draft, out, template, issue_template)
            report.append(
                {
                    "repo": repo.name,
                    "template": res["pr_template"]["path"],
                    "form": res["issue_form"]["path"],
                    "first_ok": not first,
                    "first_defects": first,
                    **{f"loop_{k}": v for k, v in agent.items()},
                }
            )
    ok = sum(r["first_ok"] for r in report)
    final = sum(r["loop_acceptable"] for r in report)
    renders = [r["loop_renders"] for r in report]
    print("| repository | PR template | issue form | first draft | renders | final draft |")
    print("|---|---|---|---|---|---|")
    for r in report:
        print(
            f"| {r['repo']} | {r['template'] or '-'} | {r['form'] or '-'} | {'ok' if r['first_ok'] else 'defects'} "
            f"| {r['loop_renders']} | {'ok' if r['loop_acceptable'] else 'defects'} |"
        )
    print(
        f"\nfirst drafts acceptable: {ok} of {len(report)}; final drafts acceptable: {final} of {len(report)}; "
        f"renders: mean {sum(renders) / max(1, len(renders)):.1f}, max {max(renders, default=0)}"
    )
    for r in report:
        for dfc in r["first_defects"]:
            print(f"first  {r['repo']}: {dfc}")
        for dfc in r["loop_defects"]:
            print(f"final  {r['repo']}: {dfc}")
    if ns.json:
        ns.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
