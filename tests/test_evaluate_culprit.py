"""evaluate_culprit on real repositories with a real submodule."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
from helpers.gitbuild import Repo, run_git
from perfkit.culprit.evaluate import evaluate_culprit
from perfkit.errors import InputError


def count(repo, rng: str) -> int:
    """Commits in a range, straight from git: the figure the tool must reproduce."""
    return int(run_git(repo.path, "rev-list", "--count", rng))


def test_kinds(superproject):
    sup, runtime, s = superproject
    src = evaluate_culprit(str(sup.path), s["src"])
    assert src.kind == "source" and src.submodule is None and src.pr_number == 11
    assert [f.path for f in src.files] == ["src/codegen.py"]
    assert src.next_action.kind == "read_highlights" and src.source_changed

    bump = evaluate_culprit(str(sup.path), s["bump"], submodule="runtime")
    assert bump.kind == "submodule_bump" and not bump.source_changed
    assert (bump.submodule.old, bump.submodule.new) == (s["r1"], s["r4"])
    assert bump.submodule.direction == "forward"
    assert bump.submodule.commits_between == count(runtime, f"{s['r1']}..{s['r4']}") == 3
    assert bump.submodule.name == "simpler"
    assert bump.warnings == []  # the message names the pointer it holds
    act = bump.next_action
    assert act.kind == "bisect_submodule" and (act.old, act.new, act.commits) == (s["r1"], s["r4"], 3)
    assert act.range == f"{s['r1']}..{s['r4']}" and act.superproject_commit == s["bump"]
    assert "second-level bisect" in act.sentence and s["r1"][:12] in act.sentence

    rb = evaluate_culprit(str(sup.path), s["rollback"])
    assert rb.kind == "submodule_rollback"
    assert rb.submodule.direction == "backward"
    assert rb.submodule.commits_between == count(runtime, f"{s['r2']}..{s['r4']}") == 2
    act = rb.next_action
    assert act.kind == "find_fix" and act.range == f"{s['r2']}..{s['r4']}" and act.commits == 2
    assert act.superproject_commit == s["rollback"] and "dropped" in act.sentence

    mixed = evaluate_culprit(str(sup.path), s["mixed"])
    assert mixed.kind == "mixed" and mixed.source_changed
    assert mixed.submodule.commits_between == count(runtime, f"{s['r2']}..{s['r5']}") == 3
    assert {f.path for f in mixed.files} == {"runtime", "src/codegen.py"}
    act = mixed.next_action
    assert act.kind == "split_test" and act.superproject_commit == s["rollback"]  # the culprit's parent
    assert (act.old, act.new, act.commits) == (s["r2"], s["r5"], 3) and "Split test" in act.sentence

    added = evaluate_culprit(str(sup.path), s["add"])
    assert added.kind == "submodule_added"
    assert added.submodule.direction == "added" and added.submodule.old is None
    assert added.next_action.kind == "read_highlights" and "no pinned range" in added.next_action.sentence


def test_stat_and_message(superproject):
    sup, _, s = superproject
    sup.write("src/codegen.py", "x = 4\ny = 5\n")
    sha = sup.commit("fix(codegen): two lines (#15)\n\nLonger body.\nSecond line.")
    res = evaluate_culprit(str(sup.path), sha)
    assert res.message == "fix(codegen): two lines (#15)\n\nLonger body.\nSecond line."
    assert res.stat == run_git(sup.path, "diff", "--shortstat", f"{sha}^", sha)
    assert "src/codegen.py" in res.stat_text and res.stat_text.rstrip().endswith(res.stat)


def test_rollback_with_source_and_sideways(superproject):
    sup, runtime, s = superproject
    sup.set_submodule("runtime", s["r3"])
    sup.write("src/codegen.py", "x = 9\n")
    rb = sup.commit("feat: new op (#16)")  # a stale branch that also rolls the runtime back
    res = evaluate_culprit(str(sup.path), rb)
    assert res.kind == "mixed" and res.source_changed and res.submodule.direction == "backward"
    assert res.submodule.commits_between == count(runtime, f"{s['r3']}..{s['r5']}") == 2
    act = res.next_action
    assert act.kind == "split_test" and act.superproject_commit == s["mixed"]  # the parent
    assert act.range == f"{s['r3']}..{s['r5']}" and act.commits == 2
    assert "find-fix search" in act.sentence and "dropping 2 commits" in act.sentence

    runtime.git("checkout", "-q", "-b", "side", s["r2"])
    side = runtime.commit("side fix", {"kernel.cpp": "// side\n"})
    runtime.git("checkout", "-q", "main")
    sup.set_submodule("runtime", side)
    sw = sup.commit("chore(runtime): move to side branch")
    res = evaluate_culprit(str(sup.path), sw)
    assert res.kind == "submodule_sideways" and res.submodule.direction == "sideways"
    assert res.submodule.merge_base == run_git(runtime.path, "merge-base", s["r3"], side) == s["r2"]
    assert res.submodule.commits_between == count(runtime, f"{s['r3']}..{side}") == 1
    assert res.next_action.kind == "bisect_submodule" and s["r2"][:12] in res.next_action.sentence


def test_message_names_another_submodule_commit(superproject):
    sup, runtime, s = superproject
    sup.set_submodule("runtime", s["r3"])
    sha = sup.commit(f"chore(runtime): bump simpler to {s['r4'][:10]}")
    res = evaluate_culprit(str(sup.path), sha)
    assert any(s["r4"][:10] in w and s["r3"][:12] in w for w in res.warnings), res.warnings
    m = {x.id: x for x in res.submodule.mentions}[s["r4"][:10]]
    assert (m.relation, m.as_target, m.warns) == ("in_range", True, True)  # a commit this rollback drops


def test_mentions_that_must_not_warn(superproject):
    """Real bump messages name the old pointer, commits inside the range, other repositories and e-mails."""
    sup, runtime, s = superproject
    sup.set_submodule("runtime", s["r4"])
    sup.commit("bump to r4")
    sup.set_submodule("runtime", s["r5"])
    msg = (
        f"chore(runtime): bump simpler to {s['r5'][:8]} (#20)\n\nBumps `runtime` from `{s['r4'][:8]}` -> "
        f"`{s['r5'][:8]}`.\nIncludes {s['r4'][:7]} and earlier {s['r1'][:9]}.\n"
        f"pto-isa pin kept at `4e352b26ab`. Compiler base {s['src'][:10]}.\n"
        "Co-authored-by: Some One <26245345+someone@users.noreply.github.com>\n"
        "See https://github.com/x/pto-isa/commit/f24f7b736b689cc107b9eb2d362be6a7718fcc99\n"
    )
    sha = sup.commit(msg)
    res = evaluate_culprit(str(sup.path), sha)
    assert res.warnings == [], res.warnings
    rel = {m.id: m.relation for m in res.submodule.mentions}
    assert rel[s["r5"][:8]] == "new_pointer" and rel[s["r4"][:8]] == "old_pointer"
    assert rel[s["r1"][:9]] == "before_range" and rel[s["src"][:10]] == "superproject"
    assert rel["4e352b26ab"] == "unknown"
    assert not any("26245345" in k or "f24f7b73" in k for k in rel)


def test_ids_of_digits_or_letters_count_only_as_commits(tmp_path):
    """One abbreviated id in 27 is all digits: it is a mention when it names a commit, else a number."""
    from perfkit.culprit.mentions import classify_mentions

    repo = Repo(tmp_path / "r")
    first = repo.commit("start")
    digits = None
    for n in range(2000):  # about 27 tries expected
        sha = repo.commit(f"step {n}")
        if sha[:7].isdigit():
            digits = sha
            break
    assert digits is not None
    head = repo.commit("after")
    numbers = [
        n for n in ("1234567", "2026120", "9876543") if not run_git(repo.path, "rev-parse", "--disambiguate=" + n)
    ]
    msg = f"Bump from {first[:8]} to {head[:8]}.\nIncludes {digits[:7]}; build {numbers[0]}; a defaced facade.\n"
    rel = {m.id: m.relation for m in classify_mentions(repo.path, repo.path, msg, first, head)}
    assert rel == {first[:8]: "old_pointer", head[:8]: "new_pointer", digits[:7]: "in_range"}


def test_message_target_inside_range_or_unknown(superproject):
    sup, runtime, s = superproject
    sup.set_submodule("runtime", s["r2"])
    sup.commit("back to r2")
    sup.set_submodule("runtime", s["r5"])
    short = sup.commit(f"chore(runtime): bump simpler to {s['r3'][:8]}")  # pointer went further than it says
    res = evaluate_culprit(str(sup.path), short)
    m = {x.id: x for x in res.submodule.mentions}[s["r3"][:8]]
    assert m.relation == "in_range" and m.as_target and m.warns
    assert any(s["r3"][:8] in w for w in res.warnings)

    runtime.git("checkout", "-q", "-b", "side", s["r1"])
    side = runtime.commit("side", {"kernel.cpp": "// side\n"})
    runtime.git("checkout", "-q", "main")
    r6 = runtime.commit("r6", {"kernel.cpp": "// v6\n"})
    sup.set_submodule("runtime", r6)
    other = sup.commit(f"chore(runtime): bump simpler, includes the fix {side[:9]}")
    m = {x.id: x for x in evaluate_culprit(str(sup.path), other).submodule.mentions}[side[:9]]
    assert (m.relation, m.as_target, m.warns) == ("outside_range", False, True)

    sup.set_submodule("runtime", s["r5"])
    sup.commit("back")
    sup.set_submodule("runtime", r6)
    unk = sup.commit("chore(runtime): bump simpler to 0123abcd9f")  # a sha nobody has
    res = evaluate_culprit(str(sup.path), unk)
    assert any("0123abcd9f" in w and "not found in the local submodule clone" in w for w in res.warnings)


def _clone(sup: Repo, runtime: Repo, tmp_path, *update_args: str):
    """A fresh clone of the superproject; with update_args, its submodule fetched over file:// (so depth works)."""
    dst = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(sup.path), str(dst))
    if update_args:
        run_git(dst, "submodule", "init", "-q", "runtime")
        run_git(dst, "config", "submodule.simpler.url", f"file://{runtime.path}")
        run_git(dst, "submodule", "update", "-q", *update_args, "runtime")
    return dst


def test_uninitialised_submodule_is_flagged(superproject, tmp_path):
    sup, runtime, s = superproject
    dst = _clone(sup, runtime, tmp_path)
    res = evaluate_culprit(str(dst), s["bump"])
    assert res.kind == "submodule_unresolved" and res.submodule.commits_between is None
    assert res.submodule.direction == "unknown" and not res.submodule.objects_available
    assert res.next_action.kind == "fetch_submodule"
    assert res.submodule.fetch_hint == "git submodule update --init runtime"
    mixed = evaluate_culprit(str(dst), s["mixed"])  # source changes keep it mixed; the action is still a fetch
    assert mixed.kind == "mixed" and mixed.next_action.kind == "fetch_submodule"


def test_missing_submodule_commits_are_flagged_then_fetched(superproject, tmp_path):
    sup, runtime, s = superproject
    dst = _clone(sup, runtime, tmp_path, "--depth", "1")  # only the tip's pointer r5 is local
    res = evaluate_culprit(str(dst), s["bump"])
    assert res.kind == "submodule_unresolved" and res.submodule.commits_between is None
    assert not res.submodule.objects_available
    assert "fetch" in res.submodule.fetch_hint and any("not in the local clone" in w for w in res.warnings)
    run_git(dst / "runtime", "fetch", "-q", "--unshallow", "origin")
    res = evaluate_culprit(str(dst), s["bump"])
    assert res.kind == "submodule_bump" and res.submodule.commits_between == count(runtime, f"{s['r1']}..{s['r4']}")


def test_shallow_cut_never_gives_a_count(superproject, tmp_path):
    """Both pointers local but the history between them cut: ancestry would say 'sideways', wrongly."""
    sup, runtime, s = superproject
    runtime.git("config", "uploadpack.allowAnySHA1InWant", "true")
    dst = _clone(sup, runtime, tmp_path, "--depth", "1")
    run_git(dst / "runtime", "fetch", "-q", "--depth", "1", "origin", s["r1"], s["r4"])
    res = evaluate_culprit(str(dst), s["bump"])
    assert res.submodule.objects_available and not res.submodule.history_complete
    assert res.kind == "submodule_unresolved" and res.submodule.direction == "unknown"
    assert res.submodule.commits_between is None and res.next_action.commits is None
    assert res.submodule.fetch_hint == "git -C runtime fetch --unshallow origin"
    run_git(dst / "runtime", "fetch", "-q", "--unshallow", "origin")
    res = evaluate_culprit(str(dst), s["bump"])
    assert res.submodule.history_complete and res.submodule.commits_between == 3


PLANTED_OLD = """\
#include <vector>
// accumulate in fp32 for stability
void matmul(const float* a, const float* b, float* c, int n) {
  using AccT = float;
  for (int i = 0; i < n; ++i) {
    AccT acc = 0;
    for (int k = 0; k < n; ++k) acc += a[i * n + k] * b[k * n + i];
    pipe_barrier(PIPE_ALL);
    c[i] = acc;
  }
}

int unrelated_helper() { return 42; }
"""


def _line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def test_highlights_rank_precision_changes(superproject):
    sup, _, s = superproject
    sup.write("src/kernels/matmul.cpp", PLANTED_OLD)
    sup.write("docs/numerics.md", "We use fp32 everywhere.\n")
    sup.write("src/config.py", "EPS = 1e-6\nNAME = 'x'\n")
    sup.commit("add matmul")
    new = (
        PLANTED_OLD.replace("using AccT = float;", "using AccT = bfloat16_t;")
        .replace("    pipe_barrier(PIPE_ALL);\n", "")
        .replace("return 42", "return 43")
    )
    sup.write("src/kernels/matmul.cpp", new)
    sup.write("docs/numerics.md", "We use bf16 everywhere.\n")
    sup.write("src/config.py", "EPS = 1e-3\nNAME = 'y'\n")
    sha = sup.commit("perf: faster matmul (#30)")
    res = evaluate_culprit(str(sup.path), sha)
    assert res.highlights_total == len(res.highlights) == 3  # the helper's return value is not flagged
    top = res.highlights[0]
    assert top.file == "src/kernels/matmul.cpp" and top.category == "dtype"
    assert top.line == _line_of(new, "using AccT") and top.old_line == _line_of(PLANTED_OLD, "using AccT")
    assert "sync_removed" in top.categories and "+  using AccT = bfloat16_t;" in top.excerpt
    assert any("pipe_barrier" in w for w in top.why) and any("float -> bfloat16_t" in w for w in top.why)
    assert "return 4" not in top.excerpt
    files = [h.file for h in res.highlights]
    assert files.index("src/config.py") < files.index("docs/numerics.md")  # documentation ranks last
    cfg = res.highlights[files.index("src/config.py")]
    assert cfg.category == "tolerance" and cfg.line == 1
    assert [h.score for h in res.highlights] == sorted((h.score for h in res.highlights), reverse=True)
    assert res.next_action.kind == "read_highlights" and "3 flagged hunks" in res.next_action.sentence

    limited = evaluate_culprit(str(sup.path), sha, max_highlights=1)
    assert len(limited.highlights) == 1 and limited.highlights_total == 3


def test_added_synchronisation_and_comments_are_not_removals(superproject):
    sup, _, s = superproject
    sup.write("src/sync.cpp", "void f() {\n  compute();\n}\n")
    sup.commit("sync base")
    sup.write("src/sync.cpp", "void f() {\n  compute();\n  pipe_barrier(PIPE_ALL);\n}\n")
    added = evaluate_culprit(str(sup.path), sup.commit("add a barrier"))
    assert all("sync_removed" not in h.categories for h in added.highlights)
    sup.write("src/sync.cpp", "void f() {\n  // use fp16 here one day\n  compute();\n  pipe_barrier(PIPE_ALL);\n}\n")
    comment = evaluate_culprit(str(sup.path), sup.commit("comment"))
    sup.write(
        "src/sync.cpp", "void f() {\n  // use fp16 here one day\n  compute_fp16();\n  pipe_barrier(PIPE_ALL);\n}\n"
    )
    code = evaluate_culprit(str(sup.path), sup.commit("code"))
    assert comment.highlights[0].score < code.highlights[0].score


def test_level_two_culprit_in_the_submodule_checkout(superproject):
    """The bisect engine evaluates the runtime culprit on the submodule checkout itself."""
    sup, runtime, s = superproject
    runtime.write("kernel.cpp", "float acc = 0;\nsum(acc);\n")
    runtime.commit("kernel base")
    runtime.write("kernel.cpp", "half acc = 0;\nsum(acc);\n")
    culprit = runtime.commit("perf(kernel): half accumulator (#700)")
    sup.set_submodule("runtime", culprit)
    sup.commit("bump")
    res = evaluate_culprit(str(sup.path / "runtime"), culprit)
    assert res.kind == "source" and res.pr_number == 700 and res.commit == culprit
    assert res.highlights and res.highlights[0].file == "kernel.cpp" and res.highlights[0].category == "dtype"


def test_bad_input(superproject, tmp_path):
    sup, _, s = superproject
    with pytest.raises(InputError, match="^repo: .* does not exist"):
        evaluate_culprit(str(tmp_path / "nope"), "HEAD")
    (tmp_path / "plain").mkdir()
    with pytest.raises(InputError, match="^repo: .* not a git repository"):
        evaluate_culprit(str(tmp_path / "plain"), "HEAD")
    with pytest.raises(InputError, match="^commit: 'deadbeef1234' is not a commit"):
        evaluate_culprit(str(sup.path), "deadbeef1234")
    with pytest.raises(InputError, match="^commit: .* not a single revision"):
        evaluate_culprit(str(sup.path), "--output=out.txt")
    tree = run_git(sup.path, "rev-parse", f"{s['bump']}^{{tree}}")
    with pytest.raises(InputError, match="^commit: .* is not a commit"):
        evaluate_culprit(str(sup.path), tree)
    with pytest.raises(InputError, match="^submodule: 'lib' is not a submodule"):
        evaluate_culprit(str(sup.path), s["bump"], submodule="lib")
    with pytest.raises(InputError, match="^submodule: 'src' is not a submodule"):
        evaluate_culprit(str(sup.path), s["bump"], submodule="src")
    with pytest.raises(InputError, match="^submodule: 'runtime' is not a submodule at .* or its parent"):
        evaluate_culprit(str(sup.path), s["s0"], submodule="runtime")
    # the commit that adds the submodule is valid: it is a submodule at the commit, not at its parent
    assert evaluate_culprit(str(sup.path), s["add"], submodule="runtime/").kind == "submodule_added"


def test_mcp_cli_and_core_agree(superproject):
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    sup, _, s = superproject
    core = evaluate_culprit(str(sup.path), s["mixed"]).model_dump(mode="json")

    async def go():
        async with Client(build_server(), mode="legacy") as c:
            return await c.call_tool("evaluate_culprit", {"repo": str(sup.path), "commit": s["mixed"]})

    mcp_res = anyio.run(go)
    cli = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "evaluate-culprit", str(sup.path), s["mixed"], "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cli.returncode == 0, cli.stderr
    assert not mcp_res.is_error and mcp_res.structured_content == core == json.loads(cli.stdout)


def test_one_diff_read_matches_what_git_prints_for_each_question(superproject):
    """files, counts, stat and highlights come from one combined diff: each must equal git's own answer
    to the single question, also for names with quotes and newlines, a file git diffs as text although
    it holds NUL bytes, a binary file and more files than the stat lists."""
    sup, _, s = superproject
    sup.write(".gitattributes", "*.dat diff\n")
    files: dict[str, str | bytes] = {f"gen/part_{i:03d}.cpp": f"float acc_{i} = 0;\n" for i in range(70)}
    files['odd "name"\nwith newline.py'] = "rtol = 1e-3\n"
    files["blob.dat"] = b"head\0tail\nsecond line\n"
    files["weights.bin"] = bytes(range(256)) * 4
    sha = sup.commit("a wide change", files)
    res = evaluate_culprit(str(sup.path), sha, max_highlights=200)
    stat = run_git(sup.path, "diff", "--no-renames", "--stat=100,70", "--stat-count=60", f"{sha}^", sha)
    assert res.stat_text.startswith(" ") and res.stat_text.strip() == stat  # run_git strips the first space
    assert "\n ...\n" in res.stat_text  # more files than the stat lists
    assert res.stat == run_git(sup.path, "diff", "--no-renames", "--shortstat", f"{sha}^", sha)
    numstat = run_git(sup.path, "diff", "--no-renames", "--numstat", "-z", f"{sha}^", sha).split("\0")
    expected = {}
    for rec in numstat:
        if rec.count("\t") >= 2:
            a, d, path = rec.split("\t", 2)
            expected[path] = (None if a == "-" else int(a), None if d == "-" else int(d))
    assert {f.path: (f.added, f.deleted) for f in res.files} == expected and len(expected) == 74
    assert expected["weights.bin"] == (None, None) and expected["blob.dat"] == (2, 0)
    flagged = {h.file for h in res.highlights}
    assert 'odd "name"\nwith newline.py' in flagged  # the tolerance line, under its real name
    assert res.highlights_total == 71  # 70 accumulators and the tolerance; nothing from the NUL file


def test_a_file_too_big_to_scan_is_left_out_of_highlights_only(superproject):
    sup, _, _ = superproject
    big = "".join(f"float w{i} = {i}.0f;\n" for i in range(20001))
    sha = sup.commit("vendor generated weights and tweak a tolerance", {"gen/w.cpp": big, "src/t.py": "atol = 1e-6\n"})
    res = evaluate_culprit(str(sup.path), sha)
    assert {f.path: f.added for f in res.files} == {"gen/w.cpp": 20001, "src/t.py": 1}
    assert [h.file for h in res.highlights] == ["src/t.py"] and res.highlights_total == 1
    assert any("gen/w.cpp" in w and "not scanned" in w for w in res.warnings)


def test_a_full_sha_that_is_not_a_commit_gets_the_same_message_as_any_bad_revision(superproject):
    sup, _, s = superproject
    tree = run_git(sup.path, "rev-parse", f"{s['src']}^{{tree}}")
    with pytest.raises(InputError) as bad:
        evaluate_culprit(str(sup.path), tree)
    assert bad.value.field == "commit" and "is not a commit" in str(bad.value)
    missing = "0123456789abcdef0123456789abcdef01234567"
    with pytest.raises(InputError) as gone:
        evaluate_culprit(str(sup.path), missing)
    assert gone.value.field == "commit"
    tag = evaluate_culprit(str(sup.path), run_git(sup.path, "rev-parse", s["src"]))
    assert tag.commit == s["src"]


def _change(tmp_path, path: str, old: str, new: str):
    """evaluate_culprit on a commit that turns old into new at path, in a fresh repository."""
    r = Repo(tmp_path / "change")
    r.commit("base", {path: old})
    return evaluate_culprit(str(r.path), r.commit("change", {path: new}))


def test_a_moved_pass_is_flagged_once_and_a_moved_plain_line_not_at_all(tmp_path):
    moved_pass = _change(
        tmp_path / "pass",
        "src/pipeline.py",
        "pm.add_pass(FuseMatmulPass())\npm.add_pass(CanonicalizePass())\n",
        "pm.add_pass(CanonicalizePass())\npm.add_pass(FuseMatmulPass())\n",
    )
    reasons = [w for h in moved_pass.highlights for w in h.why if "pass order changed" in w]
    assert moved_pass.highlights_total == 1
    assert reasons == ["moves 'pm.add_pass(FuseMatmulPass())' (pass order changed)"]
    plain = _change(tmp_path / "plain", "src/report.py", 'print("done")\nx = 1\n', 'x = 1\nprint("done")\n')
    assert (plain.highlights, plain.highlights_total) == ([], 0)


def test_the_highlight_category_is_its_strongest_reason(tmp_path):
    res = _change(tmp_path, "src/kernel.py", "y = tile(x, 64)\n", "y = x.astype(fp16)\n")
    assert [(h.category, h.categories) for h in res.highlights] == [("dtype", ["dtype", "layout"])]


def test_a_path_git_quotes_with_octal_escapes_is_read_back(tmp_path):
    """git quotes such a name in patch headers; the one diff reader takes names from the -z records instead."""
    res = _change(tmp_path, "src/odd\x01na\u00e9.py", "atol = 1e-3\n", "atol = 1e-6\n")
    assert [h.file for h in res.highlights] == ["src/odd\x01na\u00e9.py"]


def test_the_terminal_summary_lists_the_highlights(superproject):
    sup, _, _ = superproject
    sha = sup.commit("tighten the tolerance", {"src/check.py": "atol = 1e-6\n"})
    res = evaluate_culprit(str(sup.path), sha)
    assert res.highlights_total == 1 and "highlights (1 of 1):" in res.human()
