"""The repo's rules found where they are written: linked guides, agent files, policy files, workflow checks.

Each shape in tests/shapes/rules (perfkit's own text in the layouts of public ML and systems
repositories) is committed into a real git repository, symlinks included, and read by
perfkit.publish.repo_notes through perfkit.publish.rule_search and perfkit.publish.pr_checks: every
rule must come back with its kind, file and line, how the file was reached, and the parameters an
agent needs (allowed prefixes, slot values, label names, where a disclosure goes). The false hits
seen on real repositories are refused: "LLM" in a folder tree or a project description is no AI
policy, a CLA is no sign-off rule, a license header naming "contributor license agreements" is no
CLA. A property test builds random trees of guides linking each other (cycles, links out of the
repo, symlinks in and out, huge files, uncommitted files) and holds the search to its bounds and to
the commit's git objects.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from helpers.gitbuild import Repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from perfkit.publish import repo_notes, rule_search
from perfkit.publish.models import RepoRule
from perfkit.repo import contribution_files, gitrepo
from test_issue_forms import _campaign_with_its_verify_record, render_over_mcp  # noqa: F401

SHAPES = Path(__file__).resolve().parent / "shapes" / "rules"
SYMLINKS = {"agents_signoff": {"CLAUDE.md": "AGENTS.md"}}


def build(tmp_path: Path, name: str, extra: dict[str, str] | None = None) -> Repo:
    """The shape committed into a real repository, with its symlinks."""
    repo = Repo(tmp_path / name)
    root = SHAPES / name
    for path in sorted(root.rglob("*")):
        if path.is_file():
            repo.write(str(path.relative_to(root)), path.read_text())
    for link, target in SYMLINKS.get(name, {}).items():
        os.symlink(target, repo.path / link)
    repo.commit("contribution files", extra or {})
    return repo


def rules_of(repo: Repo, template: str | None = None) -> tuple[list[RepoRule], list, list[str]]:
    files = contribution_files.read_repo_files(repo.path)
    return repo_notes.read(repo.path, files, template)


def line_of(repo: Repo, path: str, words: str) -> int:
    text = (repo.path / path).read_text()
    return next(n for n, ln in enumerate(text.split("\n"), 1) if words in ln)


def one(rules: list[RepoRule], kind: str, source: str, words: str) -> RepoRule:
    hits = [r for r in rules if r.kind == kind and r.source == source and words in r.text]
    assert len(hits) == 1, [(r.kind, r.source, r.line, r.text) for r in rules]
    return hits[0]


# --- rules in agent files and linked guides ------------------------------------------------------


def test_a_sign_off_rule_in_agents_md_is_found_and_claude_md_is_read_through_its_link(tmp_path):
    repo = build(tmp_path, "agents_signoff")
    rules, _, skipped = rules_of(repo, ".github/pull_request_template.md")
    r = one(rules, "sign-off", "AGENTS.md", "Sign off and sign each commit")
    assert r.line == line_of(repo, "AGENTS.md", "Sign off and sign")
    assert r.params.trailer == "Signed-off-by" and "git commit -s" in r.params.commands and r.required
    guide = one(rules, "sign-off", "docs/developer/contribute.md", "lack a sign-off")
    assert guide.line == line_of(repo, "docs/developer/contribute.md", "lack a sign-off")
    draft = one(rules, "pr-rule", "AGENTS.md", "draft")
    assert draft.required
    # CLAUDE.md is a committed symlink to AGENTS.md: read once, as AGENTS.md, never as a second copy
    assert not any(r.source == "CLAUDE.md" for r in rules) and skipped == []
    assert not any("Certificate" in r.text or "(a)" in r.text for r in rules)  # the certificate is code
    assert not any(r.kind == "ai-policy" for r in rules)  # "reviewed every line myself" is no AI policy


def test_a_symlink_start_file_is_reported_through_its_link(tmp_path):
    repo = Repo(tmp_path / "r")
    (repo.path / "docs").mkdir()
    repo.write("docs/agent-rules.md", "# Rules\n\nAll PRs must be opened as drafts.\n")
    os.symlink("docs/agent-rules.md", repo.path / "AGENTS.md")
    repo.commit("agents")
    rules, _, _ = rules_of(repo)
    r = one(rules, "pr-rule", "docs/agent-rules.md", "drafts")
    assert r.via == ["AGENTS.md -> docs/agent-rules.md"] and r.line == 3


def test_a_guide_linked_by_a_documentation_site_url_is_read(tmp_path):
    repo = build(tmp_path, "site_guide")
    rules, _, _ = rules_of(repo)
    guide = "docs/source/developer_guide/contribution/index.md"
    title = one(rules, "title-rule", guide, "Prefix the PR title")
    assert title.line == line_of(repo, guide, "Prefix the PR title")
    assert title.params.prefixes == ["[Attention]", "[Kernel]", "[Perf]", "[BugFix]", "[Doc]", "[Misc]"]
    assert title.params.closed is True  # "Please use one of the following:" on the same line
    assert title.action == "start the title with [Perf] (no other is allowed)"
    assert one(rules, "sign-off", guide, "must agree to the DCO").required
    agents = one(rules, "title-rule", "AGENTS.md", "[Type][Module] Description")
    assert agents.params.pattern == "[Type][Module] Description"
    assert agents.params.slots == {"Type": ["CI", "Doc", "BugFix", "Feat"], "Module": ["Misc", "Worker"]}
    assert agents.params.closed is False  # "e.g.": examples, not the only values
    keep = one(rules, "pr-rule", "AGENTS.md", "Upstream version")
    assert keep.line == line_of(repo, "AGENTS.md", "Upstream version")
    tests = one(rules, "tests", "AGENTS.md", "matching tests")
    assert tests.required


def test_the_search_says_how_each_linked_guide_was_reached(tmp_path):
    repo = Repo(tmp_path / "r")
    repo.commit(
        "guides",
        {
            "CONTRIBUTING.md": "# C\n\nSee [the guide](docs/guide/pr.md).\n",
            "docs/guide/pr.md": "# PRs\n\nRead [titles](../titles/rules.md).\n",
            "docs/titles/rules.md": "# Titles\n\nPR titles must start with `[Perf]` or `[Fix]`.\n",
        },
    )
    files = contribution_files.read_repo_files(repo.path)
    found = rule_search.search(repo.path, files, [])
    by_path = {s.path: s for s in found.sources}
    assert by_path["docs/guide/pr.md"].via == ("CONTRIBUTING.md:3",)
    assert by_path["docs/titles/rules.md"].via == ("CONTRIBUTING.md:3", "docs/guide/pr.md:3")
    rules, _, _ = repo_notes.read(repo.path, files, None)
    r = one(rules, "title-rule", "docs/titles/rules.md", "must start with")
    assert r.via == ["CONTRIBUTING.md:3", "docs/guide/pr.md:3"] and r.params.prefixes == ["[Perf]", "[Fix]"]


def test_an_ai_policy_file_linked_from_contributing_gives_where_the_disclosure_goes(tmp_path):
    repo = build(tmp_path, "policy_file")
    rules, conflicts, _ = rules_of(repo)
    policy = "docs/policies/ai-usage.md"
    disclose = one(rules, "ai-policy", policy, "Disclose substantial help")
    assert disclose.via == [f"CONTRIBUTING.md:{line_of(repo, 'CONTRIBUTING.md', 'AI usage policy')}"]
    assert disclose.params.where == ["pr-description"] and disclose.required
    assert disclose.action == "disclose AI assistance in the PR description"
    agent = one(rules, "ai-policy", "CLAUDE.md", "name the tool")
    assert agent.params.where == ["pr-description"] and agent.params.names_tool
    trailer = one(rules, "ai-policy", "CLAUDE.md", "Assisted-by")
    assert trailer.params.trailer == "Assisted-by" and trailer.params.where == ["commit-trailer"]
    assert [c.line for c in conflicts] == [line_of(repo, policy, "will be closed")]
    ai = [r for r in rules if r.kind == "ai-policy"]
    assert ai[-1].text == "AI tools are welcome for drafting code and tests."  # permissive last


def test_the_false_hits_are_refused(tmp_path):
    """'LLM' in a folder tree or the project's own description, a license header and a pointer to a policy."""
    repo = build(tmp_path, "policy_file")
    rules, _, _ = rules_of(repo)
    texts = " ".join(r.text for r in rules)
    assert "LLM documentation" not in texts and "serves LLMs" not in texts
    assert not any("Licensed to" in r.text for r in rules)  # the header's "contributor license agreements"
    cla = one(rules, "cla", "CONTRIBUTING.md", "Contributor License Agreement")
    assert cla.line == line_of(repo, "CONTRIBUTING.md", "Please read our")
    assert not any(r.kind == "sign-off" for r in rules)  # a CLA is not a sign-off rule
    assert not any(r.kind == "ai-policy" and r.source == "CONTRIBUTING.md" for r in rules)  # a link to a policy


@pytest.mark.parametrize(
    "text, kind",
    [
        ("    ├── llm/           # LLM documentation and recipes", None),
        ("|-- agents/   # autonomous agents for RL", None),
        ("Servekit serves LLMs and vision models on one box.", None),
        ("Licensed to the Foundation under one or more contributor license agreements.", None),
        ("You must sign the CLA before we merge your pull request.", "cla"),
        ("Sign off every commit with `git commit -s`.", "sign-off"),
        ("Using an LLM to draft a pull request is fine if you disclose it.", "ai-policy"),
    ],
)
def test_one_line_is_read_for_what_it_is(tmp_path, text, kind):
    repo = Repo(tmp_path / "r")
    repo.commit("guide", {"CONTRIBUTING.md": f"# Contributing\n\n{text}\n"})
    rules, _, _ = rules_of(repo)
    assert [r.kind for r in rules] == ([kind] if kind else [])


def test_the_readme_contributing_section_leads_to_the_guide(tmp_path):
    repo = build(tmp_path, "readme_section")
    rules, conflicts, _ = rules_of(repo)
    guide = "docs/contributing.md"
    ban = one(rules, "ai-policy", guide, "may not write code")
    assert [c.text for c in conflicts] == [ban.text]
    assert one(rules, "cla", guide, "Sign the").line == line_of(repo, guide, "Sign the")
    tests = one(rules, "tests", guide, "make sure the tests pass")
    assert tests.params.commands == ["pytest -n auto tests/"]
    assert one(rules, "pr-rule", guide, "single commit").required
    # the README outside its contributing section is the project's own words, not rules
    assert not any(r.source == "README.md" for r in rules)


def test_an_rst_guide_reads_sections_and_skips_comments_and_code_blocks(tmp_path):
    repo = build(tmp_path, "rst_guide")
    rules, _, _ = rules_of(repo)
    sign = [r for r in rules if r.kind == "sign-off"]
    assert [r.line for r in sign] == [
        line_of(repo, "CONTRIBUTING.rst", "must `Sign Your Work`_"),
        line_of(repo, "CONTRIBUTING.rst", "We require every contributor"),
        line_of(repo, "CONTRIBUTING.rst", "Commits without a sign-off"),
    ]
    one(rules, "title-rule", "CONTRIBUTING.rst", "imperative mood")
    one(rules, "tests", "CONTRIBUTING.rst", "`L0_*` test")
    assert not any(r.kind in ("cla", "ai-policy") for r in rules)  # the header comment, the DCO block
    assert all("Certificate" not in r.text for r in rules)


def test_a_translated_guide_under_docs_is_read(tmp_path):
    repo = build(tmp_path, "zh_guide")
    rules, _, _ = rules_of(repo)
    guide = "docs/developer-guide/how-to-be-a-contributor.zh.md"
    assert {r.kind for r in rules} == {"cla", "title-rule", "tests"}
    assert one(rules, "title-rule", guide, "标题").line == line_of(repo, guide, "标题")
    assert one(rules, "cla", guide, "签署").line == line_of(repo, guide, "签署")


# --- rules a workflow enforces -------------------------------------------------------------------


def test_a_title_check_script_gives_the_allowed_values(tmp_path):
    repo = build(tmp_path, "title_script")
    rules, _, _ = rules_of(repo, ".github/PULL_REQUEST_TEMPLATE.md")
    script = "scripts/ci/check_pr_title.py"
    checked = one(rules, "title-rule", script, "allowed_modules")
    assert checked.line == line_of(repo, script, "allowed_modules = [")
    assert checked.via == [".github/workflows/pr-title.yml runs it"]
    assert checked.params.checked_by == script and checked.params.closed is True
    assert checked.params.slots == {
        "modules": ["trainer", "rollout", "perf", "data", "ckpt", "misc"],
        "types": ["feat", "fix", "refactor", "chore", "test"],
    }
    assert rules.index(checked) < next(i for i, r in enumerate(rules) if r.source.endswith("TEMPLATE.md"))
    box = one(rules, "title-rule", ".github/PULL_REQUEST_TEMPLATE.md", "[{modules}] {type}: {description}")
    assert box.params.pattern == "[{modules}] {type}: {description}" and box.params.closed is True
    assert box.params.slots["type"] == ["feat", "fix", "refactor", "chore", "test"]
    assert box.params.slots["modules"] == ["trainer", "rollout", "perf", "data", "ckpt", "misc"]


def test_a_title_prefix_check_in_a_workflow(tmp_path):
    repo = build(tmp_path, "site_guide")
    rules, _, _ = rules_of(repo)
    flow = ".github/workflows/pr_title.yaml"
    r = one(rules, "title-rule", flow, "VALID_PREFIXES")
    assert r.params.prefixes == ["[Attention]", "[Kernel]", "[Perf]", "[BugFix]", "[Doc]", "[Misc]"]
    assert r.params.checked_by == flow and r.required and r.line == line_of(repo, flow, "VALID_PREFIXES=")


def test_required_labels_from_actions_scripts_and_prose(tmp_path):
    repo = build(tmp_path, "labels_check")
    rules, _, _ = rules_of(repo)
    labels = [r for r in rules if r.kind == "labels"]
    flow = ".github/workflows/labels.yml"
    action = one(labels, "labels", flow, "release-note")
    assert action.params.labels == ["release-note", "no-release-note"] and action.params.labels_mode == "one-of"
    assert action.line == line_of(repo, flow, 'labels: "release-note')
    script = one(labels, "labels", flow, "categoryLabels")
    assert script.params.labels == ["kernels", "runtime", "docs"] and script.params.labels_mode == "any"
    prose = one(labels, "labels", "CONTRIBUTING.md", "performance")
    assert prose.params.labels == ["performance"] and prose.action == "add the label 'performance'"
    # a label that only skips a check, the labeler bot and an issue label are not required
    assert not any("skip-squash-check" in r.params.labels or "good first issue" in r.params.labels for r in labels)
    assert len(labels) == 3


def test_render_pr_returns_the_rules_over_mcp(tmp_path):
    repo = build(tmp_path, "policy_file")
    res = render_over_mcp(repo, tmp_path / "o")
    assert not res.is_error, res.content
    notes = res.structured_content["repo_notes"]
    disclose = next(n for n in notes if n["text"].startswith("Disclose substantial help"))
    assert disclose["kind"] == "ai-policy" and disclose["source"] == "docs/policies/ai-usage.md"
    assert disclose["params"]["where"] == ["pr-description"] and disclose["via"] == ["CONTRIBUTING.md:14"]
    assert any(n["kind"] == "cla" for n in notes) and not any(n["kind"] == "sign-off" for n in notes)


# --- the search stays bounded and inside the commit ----------------------------------------------

SECRET = "OUTSIDE-RULE titles must start with [LEAKED]"


@st.composite
def guide_trees(draw):
    """Guides linking each other: cycles, links out of the repo, symlinks in and out, huge and uncommitted files."""
    n = draw(st.integers(2, 14))
    names = [f"docs/g{k}.md" if k % 3 else f"guides/sub/g{k}.md" for k in range(n)]
    files: dict[str, str] = {}
    links: dict[str, str] = {}
    for k, name in enumerate(names):
        targets = draw(st.lists(st.integers(0, n + 3), max_size=5))
        body = [f"# Guide {k}", "", f"Pull requests must include a link to issue {k}."]
        for t in targets:
            if t < n:
                rel = os.path.relpath(names[t], os.path.dirname(name))
                body.append(f"See [guide {t}]({rel}) and `{names[t]}`.")
            elif t == n:
                body.append("Read [the outside rules](../../../secret.md) and [this](/etc/passwd).")
            elif t == n + 1:
                body.append("Also https://github.com/o/r/blob/main/uncommitted.md and @notes/missing.md.")
            else:
                body.append("See [a loop](loop-a.md).")
        if draw(st.booleans()) and k % 4 == 1:
            body.append("filler line for a huge guide " * 400)
        files[name] = "\n".join(body) + "\n"
    start = draw(st.sampled_from(names))
    files["CONTRIBUTING.md"] = f"# Contributing\n\nStart with [the guide]({start}).\n"
    links["docs/loop-a.md"] = "loop-b.md"
    links["docs/loop-b.md"] = "loop-a.md"
    links["docs/out.md"] = "../../secret.md"
    links["AGENTS.md"] = draw(st.sampled_from(["ABSOLUTE", "docs/out.md", names[0]]))  # ABSOLUTE: the secret's path
    return files, links


def _git_calls(mp: pytest.MonkeyPatch) -> list[int]:
    """A count of the git processes run (the real git still runs them)."""
    calls = [0]
    real_run = subprocess.run

    def counted_run(cmd, *a, **kw):
        if isinstance(cmd, list) and cmd and cmd[0] == "git":
            calls[0] += 1
        return real_run(cmd, *a, **kw)

    mp.setattr(subprocess, "run", counted_run)  # gitrepo.git and cat-file --batch both run through it
    return calls


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tree=guide_trees())
def test_the_search_is_bounded_and_reads_only_the_commit(tmp_path_factory, tree):
    files, symlinks = tree
    base = tmp_path_factory.mktemp("tree")
    (base / "secret.md").write_text(SECRET + "\n")
    repo = Repo(base / "a" / "b" / "repo")
    for path, text in files.items():
        repo.write(path, text)
    for link, target in symlinks.items():
        (repo.path / link).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(str(base / "secret.md") if target == "ABSOLUTE" else target, repo.path / link)
    repo.commit("guides")
    repo.write("uncommitted.md", SECRET + "\n")  # in the working tree only
    repo.write("notes/missing.md", SECRET + "\n")
    got = contribution_files.read_repo_files(repo.path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rule_search, "MAX_LINKED", 5)
        mp.setattr(rule_search, "MAX_LINKED_BYTES", 4000)
        mp.setattr(rule_search, "TOTAL_BYTES", 9000)
        calls = _git_calls(mp)
        found = rule_search.search(repo.path, got, [])
    committed = set(gitrepo.git(repo.path, "ls-tree", "-r", "--name-only", "HEAD").split("\n"))
    linked = [s for s in found.sources if s.start == "linked"]
    assert len(linked) <= 5 and sum(len(s.text) for s in linked) <= 9000
    assert all(len(s.text) <= 4000 for s in linked)
    for s in found.sources:
        assert s.path in committed and not os.path.islink(repo.path / s.path)
        assert s.text == gitrepo.git(repo.path, "show", f"HEAD:{s.path}")  # the blob, as committed
        assert SECRET not in s.text
        assert len([v for v in s.via if "->" not in v]) <= rule_search.DEPTH
    assert len({s.path for s in found.sources}) == len(found.sources)  # each file read once
    # per round of links: two git calls per symlink hop, four to list and read; one listing of docs
    assert calls[0] <= (rule_search.DEPTH + 1) * (2 * rule_search.MAX_SYMLINK_HOPS + 4) + 1
    rules, _, _ = repo_notes.read(repo.path, got, None)
    assert all("LEAKED" not in r.text for r in rules)


@pytest.mark.parametrize(
    "guide, expected",
    [
        (  # under a heading about AI, a rule on PRs is AI policy even without the word
            "## AI tool use\n\nIt is strongly recommended that contributors write PR descriptions themselves.\n",
            [("ai-policy", 3)],
        ),
        (  # an agent file's "Agent rules": the agent is the subject
            "## Agent rules\n\n- Do NOT write PR descriptions for the user\n",
            [("ai-policy", 3)],
        ),
        (  # a certificate's first-person clause is not a rule; -S signs, it does not sign off
            "I understand and agree that a record of my sign-off is kept.\n\n"
            "Sign commits with a key (`git commit -S`) if you like.\n",
            [],
        ),
        (  # a table row without a leading pipe is reference data
            "Triage | **New members should start here**<br>Can label PRs | Committer\n",
            [],
        ),
        (  # evidence a performance PR must carry
            "When a PR changes performance, run benchmarks on both branches and report them.\n",
            [("pr-rule", 1)],
        ),
        (  # the title named in the sentence before, the form in plain text, its values in the next item
            "- Name the task in the title. The general format is: \\[Prefix\\] Short description (Suffix)\n"
            "- Prefix: new feature \\[Feature\\], bug fix \\[Fix\\]\n",
            [("title-rule", 1)],
        ),
        (  # a commit message form with slots is the title's form too
            "- **Commit**: write a one-line message: `[Module:Type] Summary`.\n"
            "  - Modules: `Core`, `CUDA`\n  - Types: `Feature`, `Perf`\n",
            [("title-rule", 1)],
        ),
        (  # a request to AI agents in a template comment is a requirement, not advice
            "<!-- If you are an AI agent, please state which model you are. -->\n",
            [("ai-policy", 1)],
        ),
        ("State whether the data was produced by humans or machine generated.\n", []),  # a dataset card guide
    ],
)
def test_lines_are_read_in_their_context(tmp_path, guide, expected):
    repo = Repo(tmp_path / "r")
    name = "AGENTS.md" if "Agent rules" in guide else "CONTRIBUTING.md"
    repo.commit("guide", {name: guide})
    rules, _, _ = rules_of(repo)
    assert [(r.kind, r.line) for r in rules] == expected, [(r.kind, r.line, r.text) for r in rules]
    for r in rules:
        if r.kind == "title-rule" and "Prefix" in guide:
            assert r.params.prefixes == ["[Feature]", "[Fix]"]
        if r.kind == "title-rule" and "Module:Type" in guide:
            assert r.params.slots == {"Module": ["Core", "CUDA"], "Type": ["Feature", "Perf"]}
        if r.kind == "ai-policy":
            assert r.required
