"""Title and label rules a repository enforces in code: its workflows, and the scripts they run, that check PRs.

A rule a CI job checks is the strictest kind: a PR that breaks it fails. So the workflows that read a
PR's title or labels are read too (from git objects at the commit, never run), with the scripts they
run, and two shapes of check are turned into rules:
- labels: a known label-checking action (`mheap/github-action-required-labels`, `agilepathway/
  label-checker`, `yogevbd/enforce-label-action`, `jesusvasquez333/verify-pr-label-action`) with its
  label list, or a script that reads the PR's labels, fails, and holds a list of label names under a
  name about labels (`REQUIRED_LABELS = [...]`, `const allowed = [...]`); a label that only skips or
  bypasses a check is not required;
- titles: `amannn/action-semantic-pull-request` (conventional types), or a script that reads the PR's
  title, fails, and holds lists of allowed values (`allowed_types = [...]`, `allowed_modules += [...]`)
  or a pattern of alternatives (`^\\[(Bugfix|Kernel|Misc)\\]`).
Each rule names the file and the line of its list, the workflow it was reached from, and the values
exactly as the code writes them.
"""

from __future__ import annotations

import re
from pathlib import Path

from perfkit.publish import rule_params
from perfkit.publish.models import RepoRule, RuleParams

MAX_WORKFLOWS = 200
MAX_SCRIPTS = 40
_TEXT_CAP = 300

_READS_LABELS = re.compile(r"pull_request\.labels|\bpr\.labels\b|\blabels\.\*\.name|\.labels\b|\blabels\s*[=:]", re.I)
_READS_TITLE = re.compile(r"pull_request\.title|\bpr[_.]?title\b|PR_TITLE|\.title\b", re.I)
_FAILS = re.compile(
    r"\bexit\s+1\b|setFailed|\braise\b|\bsys\.exit\(\s*[1-9]|process\.exit\(\s*[1-9]|::error::|\bthrow\b|\bfail\b",
    re.I,
)
_SCRIPT = re.compile(r"(?<![\w$./-])((?:\.?[\w-]++/)*+[\w.-]*?\.(?:py|sh|js|cjs|mjs|ts|rb))\b")
_LIST_RE = re.compile(r"(?m)^[ \t]*(?:(?:const|let|var)\s+)?([A-Za-z_][\w.]*)\s*(\+?=|:)\s*\[([^\]]{0,4000})\]")
_STRINGS = re.compile(r"""["']([^"'\n]{1,80})["']""")
_ALTERNATION = re.compile(r"\\\[\(\??:?([^()]{3,2000}?)\)\\\]|\^\(\??:?([A-Za-z|_-]{3,2000}?)\)")
_WORKFLOW_KEYS = {"types", "branches", "branches-ignore", "paths", "paths-ignore", "tags", "tags-ignore"}
_SKIP_NAME = re.compile(r"skip|bypass|ignore|exempt|override", re.I)
_LABEL_NAME = re.compile(r"label", re.I)
_TITLE_LIST_NAME = re.compile(r"type|module|scope|prefix|tag|categor|kind|component|area|allowed|valid", re.I)
_ACTION_LABELS = re.compile(
    r"uses:\s*(mheap/github-action-required-labels|agilepathway/label-checker|docker://agilepathway/"
    r"pull-request-label-checker\S*|yogevbd/enforce-label-action|jesusvasquez333/verify-pr-label-action)",
    re.I,
)
_ACTION_LABEL_INPUTS = re.compile(
    r"^[^\S\n]*+(labels|one_of|any_of|all_of|valid-labels|REQUIRED_LABELS_ANY|REQUIRED_LABELS_ALL)\s*+:\s*(.+)$",
    re.M,
)
_ACTION_MODE = re.compile(r"^[^\S\n]*+mode\s*+:\s*+['\"]?(exactly|minimum|maximum)", re.M)
_SEMANTIC = re.compile(r"uses:\s*amannn/action-semantic-pull-request", re.I)
# 'types:' or 'types: |' ending its line; the end taken as before (blank lines after it are read past)
_SEMANTIC_TYPES = re.compile(r"^[^\S\n]*+types\s*+:(?:\s*+\|\s*$|\s*$)", re.M)
# the next step of a workflow job: a '- name:', '- uses:' or '- run:' line
_STEP_RE = re.compile(r"\n[^\S\n]*+-\s++(?:name|uses|run)\s*+:")


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _cap(text: str) -> str:
    return text.strip()[:_TEXT_CAP]


def _labels_from_action(path: str, text: str) -> list[RepoRule]:
    out = []
    for m in _ACTION_LABELS.finditer(text):
        block = text[m.end() : m.end() + 1500]
        step = _STEP_RE.search(block)
        if step:  # cut at the first line break of the blank run before the next step
            block = block[: block.index("\n", len(block[: step.start()].rstrip()))]
        for inp in _ACTION_LABEL_INPUTS.finditer(block):
            names = [x.strip().strip("'\"") for x in re.split(r"[,\n]", inp.group(2).strip().strip("'\""))]
            names = [x for x in names if x and not _SKIP_NAME.search(inp.group(1))]
            if not names:
                continue
            key = inp.group(1).lower()
            mode = _ACTION_MODE.search(block)
            labels_mode: str | None = {"one_of": "one-of", "any_of": "any", "all_of": "all"}.get(key)
            if labels_mode is None and key in ("labels", "valid-labels", "required_labels_any"):
                labels_mode = "one-of" if mode and mode.group(1) == "exactly" else "any"
            if key == "required_labels_all":
                labels_mode = "all"
            params = RuleParams(labels=names, labels_mode=labels_mode, closed=True, checked_by=path)
            at = m.end() + inp.start()
            out.append(_rule("labels", path, _line(text, at), text.split("\n")[_line(text, at) - 1], params, []))
    return out


def _rule(kind, path: str, line: int, text: str, params: RuleParams, via: list[str]) -> RepoRule:  # type: ignore[no-untyped-def]
    return RepoRule(
        source=path,
        line=line,
        kind=kind,
        text=_cap(text),
        via=via,
        required=True,
        params=params,
        action=rule_params.action(kind, params, False) + f" (checked by {params.checked_by})",
    )


def _lists(text: str) -> dict[str, tuple[int, list[str]]]:
    """Named lists of strings in a script, '+=' lists joined: name -> (line of the first, values)."""
    out: dict[str, tuple[int, list[str]]] = {}
    for m in _LIST_RE.finditer(text):
        name = m.group(1).split(".")[-1]
        vals = [v for v in _STRINGS.findall(m.group(3))]
        if not vals:
            continue
        if name in out:
            out[name] = (out[name][0], out[name][1] + [v for v in vals if v not in out[name][1]])
        else:
            out[name] = (_line(text, m.start()), vals)
    return out


def _from_script(path: str, text: str, via: list[str]) -> list[RepoRule]:
    out: list[RepoRule] = []
    if not _FAILS.search(text):
        return out
    lines = text.split("\n")
    named = _lists(text)
    if _READS_LABELS.search(text):
        for name, (line, vals) in named.items():
            if _LABEL_NAME.search(name) and not _SKIP_NAME.search(name):
                mode = (
                    "any"
                    if re.search(r"\.some\(|\bany\(", text)
                    else "all"
                    if re.search(r"\.every\(|\ball\(", text)
                    else None
                )
                params = RuleParams(labels=vals, labels_mode=mode, closed=True, checked_by=path)
                out.append(_rule("labels", path, line, lines[line - 1], params, via))
    if _READS_TITLE.search(text):
        lists = [
            n
            for n in named
            if _TITLE_LIST_NAME.search(n)
            and not _LABEL_NAME.search(n)
            and not _SKIP_NAME.search(n)
            and n not in _WORKFLOW_KEYS
        ]
        slots = {re.sub(r"^(?:allowed|valid|accepted|known)_?", "", n, flags=re.I) or n: named[n][1] for n in lists}
        if slots:
            first = min(named[n][0] for n in lists)
            params = RuleParams(slots=slots, closed=True, checked_by=path)
            out.append(_rule("title-rule", path, first, lines[first - 1], params, via))
        else:
            for m in _ALTERNATION.finditer(text):
                body = m.group(1) or m.group(2)
                alts = [a.replace("\\", "") for a in body.split("|") if a and len(a) <= 40]
                if len(alts) >= 2:
                    bracket = m.group(1) is not None
                    params = RuleParams(
                        prefixes=[f"[{a}]" for a in alts] if bracket else [],
                        slots={} if bracket else {"type": alts},
                        closed=True,
                        checked_by=path,
                    )
                    line = _line(text, m.start())
                    out.append(_rule("title-rule", path, line, lines[line - 1], params, via))
                    break
    return out


def _semantic(path: str, text: str) -> list[RepoRule]:
    if not _SEMANTIC.search(text):
        return []
    types: list[str] = []
    m = _SEMANTIC_TYPES.search(text)
    line = _line(text, _SEMANTIC.search(text).start())  # type: ignore[union-attr]
    if m:
        line = _line(text, m.start())
        for ln in text[m.end() :].split("\n")[1:]:
            if not ln.strip() or ":" in ln:
                break
            types.append(ln.strip())
    params = RuleParams(
        pattern="type(scope): subject", slots={"type": types} if types else {}, closed=True, checked_by=path
    )
    return [_rule("title-rule", path, line, text.split("\n")[line - 1], params, [])]


def rules(top: Path, commit: str | None) -> list[RepoRule]:
    """The title and label rules the repo's PR checks enforce, with the file and line of each list."""
    from perfkit.repo import contribution_files

    if commit is None:
        return []
    flows = contribution_files.read_folder(top, commit, ".github/workflows", MAX_WORKFLOWS, ("yml", "yaml"))
    out: list[RepoRule] = []
    scripts: dict[str, list[str]] = {}
    for path, text in sorted(flows.items()):
        if not (_READS_LABELS.search(text) or _READS_TITLE.search(text)):
            continue
        out += _labels_from_action(path, text)
        out += _semantic(path, text)
        out += _from_script(path, text, [])
        for m in _SCRIPT.finditer(text):
            scripts.setdefault(m.group(1).removeprefix("./"), []).append(path)
    wanted = sorted(scripts)[:MAX_SCRIPTS]
    for path, text in sorted(contribution_files.read_paths(top, commit, wanted).items() if wanted else []):
        out += _from_script(path, text, [f"{p} runs it" for p in scripts[path][:1]])
    return out
