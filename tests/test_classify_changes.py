"""classify_changes on a real delivery branch that plants every kind of change."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
from helpers.gitbuild import Repo
from perfkit.changes.classify import classify_changes
from perfkit.changes.models import ClassifyResult
from perfkit.errors import InputError

TRAINER = """import os

try:
    import flash_attn
except ImportError:
    flash_attn = None


def build(cfg):
    workers = cfg.get("num_workers", 2)
    model = Model(cfg)
    return model, workers


def step(model, batch):
    if batch.dtype == "fp16" and not batch.contiguous:
        batch = batch.make_contiguous()
    out = model(batch)
    sync_all(model)
    return out


def legacy_loader(path):
    with open(path) as f:
        return f.read().split()
"""

UTIL = """def clamp(x, lo, hi):
    return max(lo, min(hi, x))


def pad_batch(batch, multiple):
    extra = (-len(batch)) % multiple
    padding = [batch[-1]] * extra
    return batch + padding


def identity(x):
    return x
"""

ARG_COMPILE = '    p.add_argument("--compile", action="store_true")\n'
ARGS = (
    "import argparse\n\n\ndef parse():\n    p = argparse.ArgumentParser()\n"
    + ARG_COMPILE
    + "    return p.parse_args()\n"
)


def _lineno(text: str, needle: str) -> int:
    """1-based number of the first line containing needle (independent of the tool)."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def build_campaign(path):
    """A trainer repository and a delivery branch 'perf' with one commit per kind of change."""
    repo = Repo(path / "trainer")
    s = {
        "base": repo.commit(
            "Initial trainer (#1)",
            {
                "src/trainer.py": TRAINER,
                "src/util.py": UTIL,
                "src/old_name.py": "VALUE = 1\nOTHER = 2\nTHIRD = 3\n",
                "configs/train.yaml": "num_workers: 2\nlr: 0.1\n",
                "scripts/train.sh": "#!/bin/bash\npython -m src.train --config configs/train.yaml\n",
                "requirements.txt": "torch\n",
                "assets/logo.png": b"\x89PNG\x00\x01\x02",
                "src/args.py": ARGS,
                "README.md": "# trainer\n",
            },
        )
    }
    repo.git("checkout", "-q", "-b", "perf")
    s["settings"] = repo.commit(
        "Install flash-attn, more loader workers, NCCL tree",
        {
            "requirements.txt": "torch\nflash-attn>=2.5\n",
            "configs/train.yaml": "num_workers: 8\nlr: 0.1\n",
            "scripts/train.sh": "#!/bin/bash\nexport NCCL_ALGO=Tree\npython -m src.train --config configs/train.yaml\n",
        },
    )
    trainer = TRAINER.replace(
        '    workers = cfg.get("num_workers", 2)\n',
        '    workers = cfg.get("num_workers", 2)\n    fused = cfg.get("use_fused_adam", False)\n',
    )
    s["default"] = repo.commit(
        "Add a fused-Adam option, on in the recipe",
        {"src/trainer.py": trainer, "configs/train.yaml": "num_workers: 8\nlr: 0.1\nuse_fused_adam: true\n"},
    )
    trainer = trainer.replace("import os\n", 'import os\n\nGRAPHS = os.environ.get("TRAINER_CUDA_GRAPHS", "0")\n')
    s["env_default"] = repo.commit(
        "Read TRAINER_CUDA_GRAPHS, set by the launcher",
        {
            "src/trainer.py": trainer,
            "scripts/train.sh": "#!/bin/bash\nexport NCCL_ALGO=Tree\nexport TRAINER_CUDA_GRAPHS=1\n"
            "python -m src.train --config configs/train.yaml\n",
        },
    )
    s["flags"] = repo.commit(
        "Compile, and overlap communication behind a new flag",
        {
            "src/args.py": ARGS.replace(
                ARG_COMPILE, ARG_COMPILE + '    p.add_argument("--overlap-comm", action="store_true")\n'
            ),
            "scripts/train.sh": "#!/bin/bash\nexport NCCL_ALGO=Tree\nexport TRAINER_CUDA_GRAPHS=1\n"
            "python -m src.train --config configs/train.yaml --compile --overlap-comm\n",
        },
    )
    trainer = trainer.replace("    out = model(batch)\n", "    out = model.forward_fast(batch, chunks=4)\n")
    s["source"] = repo.commit("Vectorise the step (#7)", {"src/trainer.py": trainer})
    s["pre_removal_trainer"] = trainer
    trainer = trainer.replace(
        '    if batch.dtype == "fp16" and not batch.contiguous:\n        batch = batch.make_contiguous()\n', ""
    )
    trainer = trainer.replace("    sync_all(model)\n", "")
    trainer = trainer[: trainer.index("\n\ndef legacy_loader")] + "\n"
    s["removal"] = repo.commit("Drop the contiguity guard, a sync and the legacy loader", {"src/trainer.py": trainer})
    util = UTIL.replace(UTIL[UTIL.index("def pad_batch") : UTIL.index("def identity")], "")
    helpers = (
        "import math\n\n\ndef pad_batch(batch, multiple):\n    extra = (-len(batch)) % multiple\n"
        "    padding = [batch[-1]] * extra\n    return batch + padding\n"
    )
    repo.git("mv", "src/old_name.py", "src/new_name.py")
    s["move"] = repo.commit(
        "Move pad_batch to helpers; rename old_name", {"src/util.py": util, "src/helpers.py": helpers}
    )
    s["binary"] = repo.commit("New logo", {"assets/logo.png": b"\x89PNG\x00\x09\x09\x09"})
    repo.git("checkout", "-q", "-b", "side")
    s["side"] = repo.commit("Side fix", {"src/side.py": "def side():\n    return compute_side(1)\n"})
    repo.git("checkout", "-q", "perf")
    repo.git("merge", "-q", "--no-ff", "side", "-m", "Merge pull request #9 from dev/side")
    s["merge"] = repo.head()
    return repo, s


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    return build_campaign(tmp_path_factory.mktemp("campaign"))


def _hunks(res, sha, path):
    c = next(c for c in res.commits if c.sha == sha)
    return next(f for f in c.files if f.path == path).hunks


def test_first_parent_order_and_merge(campaign):
    repo, s = campaign
    res = classify_changes(str(repo.path), s["base"], "perf")
    expected = repo.git("rev-list", "--first-parent", "--reverse", f"{s['base']}..perf").split()
    assert [c.sha for c in res.commits] == expected
    assert s["side"] not in expected and res.commits[-1].sha == s["merge"]
    merge = res.commits[-1]
    assert merge.is_merge and merge.pr_number == 9
    assert [f.path for f in merge.files] == ["src/side.py"]
    assert any("merge" in w for w in res.warnings)
    assert res.totals == {k: sum(c.kinds[k] for c in res.commits) for k in res.totals}
    assert not res.incomplete_history and not res.empty_range


def test_settings(campaign):
    repo, s = campaign
    res = classify_changes(str(repo.path), s["base"], "perf")
    req = _hunks(res, s["settings"], "requirements.txt")
    assert [h.kind for h in req] == ["setting"] and req[0].confidence >= 0.85
    fallback = {(e.path, e.line) for e in req[0].evidence if e.at == "base"}
    assert ("src/trainer.py", _lineno(TRAINER, "except ImportError")) in fallback
    assert ("src/trainer.py", _lineno(TRAINER, "import flash_attn")) in fallback

    cfg = _hunks(res, s["settings"], "configs/train.yaml")
    assert [h.kind for h in cfg] == ["setting"]
    base_read = [e for e in cfg[0].evidence if e.at == "base"][0]
    assert (base_read.path, base_read.line) == ("src/trainer.py", _lineno(TRAINER, '"num_workers"'))

    sh = _hunks(res, s["settings"], "scripts/train.sh")
    assert [h.kind for h in sh] == ["setting"]
    assert sh[0].evidence[0].text == "export NCCL_ALGO=Tree" and sh[0].new_start == 2
    assert sh[0].confidence < cfg[0].confidence  # nothing in the repository reads NCCL_ALGO


def test_defaults(campaign):
    repo, s = campaign
    res = classify_changes(str(repo.path), s["base"], "perf")
    src = _hunks(res, s["default"], "src/trainer.py")
    assert [h.kind for h in src] == ["default"]
    notes = " ".join(e.note for e in src[0].evidence)
    assert "use_fused_adam" in notes and "default False" in notes
    assert any(e.path == "configs/train.yaml" and e.text == "use_fused_adam: true" for e in src[0].evidence)
    cfg = _hunks(res, s["default"], "configs/train.yaml")
    assert [h.kind for h in cfg] == ["default"]
    assert any(e.path == "src/trainer.py" and "use_fused_adam" in e.text for e in cfg[0].evidence)

    env_src = _hunks(res, s["env_default"], "src/trainer.py")
    assert [h.kind for h in env_src] == ["default"]
    env_sh = _hunks(res, s["env_default"], "scripts/train.sh")
    assert [h.kind for h in env_sh] == ["default"]
    assert env_sh[0].evidence[0].text == "export TRAINER_CUDA_GRAPHS=1"


def test_launcher_flags(campaign):
    repo, s = campaign
    res = classify_changes(str(repo.path), s["base"], "perf")
    args = _hunks(res, s["flags"], "src/args.py")
    assert [h.kind for h in args] == ["default"]
    sh = _hunks(res, s["flags"], "scripts/train.sh")
    assert [h.kind for h in sh] == ["default"] and "overlap-comm" in sh[0].reason
    notes = [e.note for e in sh[0].evidence if e.at == "added" and e.path == "scripts/train.sh"]
    assert any(n.startswith("sets flag overlap-comm: default") for n in notes)
    assert any(n.startswith("sets flag compile: setting") for n in notes)  # --compile is read at base
    assert not any("flag config" in n for n in notes)  # --config was already on the rewritten line
    read = next(e for e in sh[0].evidence if e.at == "base")
    assert (read.path, read.line) == ("src/args.py", _lineno(ARGS, "--compile"))


def test_source_and_removals(campaign):
    repo, s = campaign
    res = classify_changes(str(repo.path), s["base"], "perf")
    src = _hunks(res, s["source"], "src/trainer.py")
    assert [h.kind for h in src] == ["source"]

    rem = _hunks(res, s["removal"], "src/trainer.py")
    before = s["pre_removal_trainer"]
    by_start = {h.old_start: h for h in rem}
    guard = by_start[_lineno(before, 'if batch.dtype == "fp16"')]
    assert (guard.kind, guard.removal, guard.old_lines) == ("removal", "guard", 2)
    call = by_start[_lineno(before, "sync_all(model)")]
    assert (call.kind, call.removal, call.old_lines) == ("removal", "call", 1)
    func = next(h for h in rem if h.removal == "function")
    assert func.kind == "removal" and "legacy_loader" in func.reason
    assert func.old_start <= _lineno(before, "def legacy_loader") <= func.old_start + func.old_lines - 1
    assert all(h.kind == "removal" for h in rem)


def test_moves_renames_and_binary_are_not_removals(campaign):
    repo, s = campaign
    res = classify_changes(str(repo.path), s["base"], "perf")
    c = next(c for c in res.commits if c.sha == s["move"])
    files = {f.path: f for f in c.files}
    assert files["src/new_name.py"].status == "renamed" and files["src/new_name.py"].old_path == "src/old_name.py"
    assert files["src/new_name.py"].kinds == ["source"]
    assert files["src/util.py"].kinds == ["source"], files["src/util.py"]
    assert "move" in files["src/util.py"].hunks[0].reason
    assert c.kinds["removal"] == 0
    block = next(m for m in res.moved if m.from_path == "src/util.py")
    assert (block.to_path, block.from_commit, block.to_commit) == ("src/helpers.py", s["move"], s["move"])
    assert block.from_start == _lineno(UTIL, "def pad_batch") and block.lines == 4
    logo = _hunks(res, s["binary"], "assets/logo.png")
    assert [h.kind for h in logo] == ["source"] and "binary" in logo[0].reason
    assert next(f for f in next(c for c in res.commits if c.sha == s["binary"]).files).binary


def test_recipe_globs_override(campaign):
    repo, s = campaign
    res = classify_changes(str(repo.path), s["base"], s["settings"], recipe_globs=["nothing/*"])
    roles = {f.path: f.role for f in res.commits[0].files}
    assert roles["configs/train.yaml"] == "source"  # no longer a config by path
    assert roles["scripts/train.sh"] == "launcher"  # still a launcher by its shebang
    assert roles["requirements.txt"] == "dependency"
    assert res.recipe_globs == ["nothing/*"]
    with pytest.raises(InputError, match="^recipe_globs: "):
        classify_changes(str(repo.path), s["base"], "perf", recipe_globs=[" "])


def test_bad_input_and_empty_range(campaign, tmp_path):
    repo, s = campaign
    with pytest.raises(InputError, match="^base: 'nope123' is not a commit"):
        classify_changes(str(repo.path), "nope123", "perf")
    with pytest.raises(InputError, match="^head: .* not a single revision"):
        classify_changes(str(repo.path), s["base"], "--upload-pack=x")
    with pytest.raises(InputError, match="^base: .* is not an ancestor of head"):
        classify_changes(str(repo.path), s["removal"], s["settings"])
    with pytest.raises(InputError, match="^repo: "):
        classify_changes(str(tmp_path / "none"), "HEAD")
    res = classify_changes(str(repo.path), s["source"], s["source"])
    assert res.empty_range and res.commits == [] and res.totals["source"] == 0
    assert any("same commit" in w for w in res.warnings)


def test_shallow_clone_flags_missing_history(campaign, tmp_path):
    repo, s = campaign
    from helpers.gitbuild import run_git

    run_git(tmp_path, "clone", "-q", "--depth", "2", "--branch", "perf", f"file://{repo.path}", "shallow")
    shallow = tmp_path / "shallow"
    tip = run_git(shallow, "rev-parse", "HEAD")
    boundary = run_git(shallow, "rev-parse", "HEAD~1")
    res = classify_changes(str(shallow), boundary, tip)  # the range itself is complete: only older history is cut
    assert not res.incomplete_history and any("shallow clone" in w for w in res.warnings)
    assert [c.sha for c in res.commits] == [tip]
    with pytest.raises(InputError, match="^base: .*fetch the missing history"):
        classify_changes(str(shallow), s["base"], tip)
    run_git(shallow, "fetch", "-q", "--depth", "1", "origin", "main")  # main's tip, cut off from perf's line
    with pytest.raises(InputError, match="^base: .*not an ancestor.*shallow.*unshallow"):
        classify_changes(str(shallow), "FETCH_HEAD", tip)


def test_mcp_and_cli_agree(campaign):
    repo, s = campaign
    from mcp import Client
    from perfkit.mcp_server.server import build_server

    args = {"repo": str(repo.path), "base": s["base"], "head": "perf"}

    async def go():
        async with Client(build_server(), mode="legacy") as c:
            ok = await c.call_tool("classify_changes", args)
            bad = await c.call_tool("classify_changes", {**args, "base": "nope123"})
            return ok, bad

    ok, bad = anyio.run(go)
    assert not ok.is_error
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfkit.cli",
            "classify-changes",
            str(repo.path),
            s["base"],
            "--head",
            "perf",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout) == ok.structured_content
    assert bad.is_error and "base: 'nope123' is not a commit" in bad.content[0].text
    err = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", "classify-changes", str(repo.path), "nope123"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert err.returncode == 2 and err.stderr.count("\n") == 1 and "BASE: 'nope123'" in err.stderr
    human = ClassifyResult.model_validate(ok.structured_content).human()  # what the CLI prints without --json
    assert "proposal" in human and "removal guard" in human


@pytest.mark.parametrize(
    "line,role,path,expected",
    [
        ("export NCCL_ALGO=Tree", "launcher", "run.sh", [("NCCL_ALGO", "Tree", "env")]),
        (
            "CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun --nproc_per_node 8 train.py --use-fused-adam \\",
            "launcher",
            "run.sh",
            [
                ("CUDA_DEVICE_MAX_CONNECTIONS", "1", "env"),
                ("nproc_per_node", "8", "flag"),
                ("use-fused-adam", None, "flag"),
            ],
        ),
        ("python train.py ++optim.fused=true", "launcher", "run.sh", [("optim.fused", "true", "config")]),
        ("  num_workers: 8", "config", "conf/a.yaml", [("num_workers", "8", "config")]),
        ("model:", "config", "conf/a.yaml", []),
        ('  "use_fused_adam": true,', "config", "a.json", [("use_fused_adam", "true", "config")]),
        ("compile = true", "config", "a.toml", [("compile", "true", "config")]),
        ("# export FOO=1", "launcher", "run.sh", []),
        (
            "trainer = Trainer(model, use_fused_adam=True)",
            "recipe",
            "examples/train.py",
            [("use_fused_adam", "True", "kwarg")],
        ),
        ('os.environ["NCCL_ALGO"] = "Tree"', "recipe", "examples/train.py", [("NCCL_ALGO", "Tree", "env")]),
    ],
)
def test_settings_in(line, role, path, expected):
    from perfkit.changes.recipes import settings_in

    assert [(i.key, i.value, i.style) for i in settings_in(line, role, path)] == expected


@pytest.mark.parametrize(
    "line,expected",
    [
        ('x = os.environ.get("FAST_PATH", "0")', [("FAST_PATH", '"0"', "env")]),
        ('if os.getenv("FAST_PATH"):', [("FAST_PATH", None, "env")]),
        ('parser.add_argument("--use-fused-adam", action="store_true")', [("use-fused-adam", "False", "flag")]),
        ('parser.add_argument("-b", "--batch-size", type=int, default=32)', [("batch-size", "32", "flag")]),
        ('fused = cfg.get("use_fused_adam", False)', [("use_fused_adam", "False", "config")]),
        ('fused = getattr(args, "use_fused_adam", False)', [("use_fused_adam", "False", "config")]),
        ("def __init__(self, dim: int, use_fused_adam: bool = False):", [("use_fused_adam", "False", "kwarg")]),
        ("    use_fused_adam: bool = False", [("use_fused_adam", "False", "kwarg")]),
        ('const char* v = getenv("RT_FAST");', [("RT_FAST", None, "env")]),
        ("y = x + 1", []),
    ],
)
def test_option_reads(line, expected):
    from perfkit.changes.recipes import option_reads

    assert [(o.key, o.default, o.style) for o in option_reads(line)] == expected


@pytest.mark.parametrize(
    "line,role,path,expected",
    [
        ("flash-attn>=2.5", "dependency", "requirements.txt", ["flash-attn"]),
        ("-r base.txt", "dependency", "requirements.txt", []),
        ('    "liger-kernel>=0.3",', "dependency", "pyproject.toml", ["liger-kernel"]),
        ('name = "trainer"', "dependency", "pyproject.toml", []),
        ("pip install -U flash-attn --no-build-isolation && echo ok", "launcher", "setup.sh", ["flash-attn"]),
        ("RUN pip install -r requirements.txt apex", "dependency", "Dockerfile", ["apex"]),
    ],
)
def test_packages_in(line, role, path, expected):
    from perfkit.changes.recipes import packages_in

    assert packages_in(line, role, path) == expected


def test_diff_parse_rebuilds_every_file(tmp_path):
    """Apply the parsed zero-context hunks to the old text: the result must be git's new text, for odd names too."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from perfkit.changes.diff_parse import diff_commits

    names = ["plain.py", "with space.py", "ünï cödé.txt", 'quote"d.sh', "dir/deep/x.yaml"]
    line = st.sampled_from(["a", "b", "c", "    d = 1", "", "e()", "x" * 30])
    files = st.dictionaries(st.sampled_from(names), st.lists(line, max_size=12), max_size=5)
    counter = iter(range(10_000))

    @settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(before=files, after=files)
    def check(before, after):
        repo = Repo(tmp_path / f"r{next(counter)}")
        old = repo.commit("before", {k: "\n".join(v) + "\n" for k, v in before.items()})
        for k in before:
            if k not in after:
                repo.remove(k)
        new = repo.commit("after", {k: "\n".join(v) + "\n" for k, v in after.items()})
        parsed = diff_commits(repo.path, old, new)

        def lines(tree, name):  # "\n" alone is one empty line
            return [] if name not in tree else tree[name] or [""]

        changed = {
            n for n in set(before) | set(after) if (n in before) != (n in after) or lines(before, n) != lines(after, n)
        }
        assert changed <= {p for f in parsed for p in (f.path, f.old_path)}
        for f in parsed:
            text = lines(before, f.old_path) if f.status != "A" else []
            for h in reversed(f.hunks):
                if h.old_count:
                    assert [d.text for d in h.removed] == text[h.old_start - 1 : h.old_start - 1 + h.old_count]
                start = h.old_start - 1 if h.old_count else h.old_start
                text[start : start + h.old_count] = [d.text for d in h.added]
            assert text == (lines(after, f.path) if f.status != "D" else [])

    check()


def test_python_recipe_flags_and_requirement_lines():
    from perfkit.changes.recipes import settings_in

    args = 'cmd = ["torchrun", "train.py", "--use-fused-adam", "--lr", "0.1"]'
    assert [i.key for i in settings_in(args, "recipe", "examples/launch.py")] == ["use-fused-adam", "lr"]
    assert settings_in("torch==2.1", "dependency", "requirements.txt") == []


def _judge(removed, added=(), whole_file=False):
    from perfkit.changes.diff_parse import DiffLine
    from perfkit.changes.removal import judge, net_lines

    rem = [DiffLine(10 + i, t) for i, t in enumerate(removed)]
    add = [DiffLine(10 + i, t) for i, t in enumerate(added)]
    v = judge(net_lines(rem, add), whole_file)
    return v and v.shape


@pytest.mark.parametrize(
    "removed,added,shape",
    [
        (["    if x is None:", "        raise ValueError('x')"], [], "guard"),
        (
            ["    if use_fast:", "        y = fast(x)", "        z = y + 1"],
            ["    y = fast(x)", "    z = y + 1"],
            "guard",
        ),
        (['  TORCH_CHECK(t.is_contiguous(), "needs contiguous");'], [], "guard"),
        (["    assert x.ndim == 2"], [], "guard"),
        (["    else:", "        y = slow(x)"], [], "branch"),
        (["    for i in range(n):", "        warm(i)"], [], "branch"),
        (["    torch.cuda.synchronize()", "    barrier()"], [], "call"),
        (["import numpy as np", "from x import y"], [], "import"),
        (["    total = a + b"], [], "lines"),
        (["def helper(a):", "    return a"], ["def other(b):", "    return b * 2"], "function"),
        (["def helper(a):"], ["def helper(a, b=1):"], None),  # a changed signature is not a removal
        (["    # old comment", ""], [], None),
        (["    y = x * 2"], ["    y = x * 3"], None),
        (["    return foo(x)"], [], "call"),
    ],
)
def test_removal_shapes(removed, added, shape):
    assert _judge(removed, added) == shape
