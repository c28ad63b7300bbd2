"""Affinity: a point is tested only where its build is, on the device that build belongs to.

The installs here behave like a real non-editable `pip install`: they copy the compiler source and
the runtime kernel into an install folder and write the commit they were made from. The check
never reads the checkout: it decides good or bad from the installed copies, and before that it
compares the installed commits with the point under test (PERFKIT_COMMIT, PERFKIT_SUBMODULE_COMMIT)
through git, in what the install builds (the superproject without the submodule folder, the
submodule's tree). Any difference is an affinity violation: the check writes it to a file the test
reads, prints it, and reads FAIL, so it can never pass unnoticed.

Install folders, as users set them up:
- `venv`: the worker's own environment (`$VIRTUAL_ENV/inst`);
- `venv-device`: a folder per device inside it (`$VIRTUAL_ENV/inst-{device}`): a build made for one
  device is not there for another;
- `none`: no worker environment, one folder per device outside (`<env>/inst/{device}`), the set-up
  the docs suggest for worker_env = "none".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.bisect_project import Project, build
from helpers.gitbuild import snapshot
from perfkit.bisect.state import store as statefile
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start
from perfkit.errors import InputError

pytestmark = pytest.mark.slow

_CHECK = r"""
P="$1"
super_at=$(cat "$P/super" 2>/dev/null || echo none); sub_at=$(cat "$P/sub" 2>/dev/null || echo none)
if ! git -C "$PERFKIT_CHECKOUT" diff --quiet "$super_at" "$PERFKIT_COMMIT" -- . ":(exclude)runtime" 2>/dev/null ||
   ! git -C "$PERFKIT_SUBMODULE" diff --quiet "$sub_at" "$PERFKIT_SUBMODULE_COMMIT" 2>/dev/null; then
  line="AFFINITY VIOLATION step $PERFKIT_STEP device $2: installed $super_at/$sub_at in $P"
  line="$line, tested $PERFKIT_COMMIT/$PERFKIT_SUBMODULE_COMMIT"
  echo "$line" >> "$BISECT_ENV/violations"
  echo "$line"; echo FAIL; exit 1
fi
echo "$PERFKIT_COMMIT $PERFKIT_SUBMODULE_COMMIT" >> "$BISECT_ENV/runs.log"
bad=0
grep -q BUG "$P/codegen.py" && bad=1
grep -q BROKEN "$P/kernel.cpp" && bad=1
if [ $bad = 1 ]; then echo "check FAIL"; exit 1; fi
echo "check PASS"
"""


def place(p: Project, mode: str) -> str:
    if mode == "venv":
        return '"$VIRTUAL_ENV/inst"'
    if mode == "venv-device":
        return '"$VIRTUAL_ENV/inst-{device}"'
    return f'"{p.env}/inst/{{device}}"'


def commands(p: Project, mode: str) -> dict[str, object]:
    """install, install_submodule and run for an install folder kind; `{device}` is in every command
    except the installs of `venv` (the kind build_ahead needs: a build made ahead has no device)."""
    (p.env / "affinity.sh").write_text(_CHECK)
    at = place(p, mode)
    return {
        "install": [f"mkdir -p {at} && cp src/codegen.py {at}/codegen.py && git rev-parse HEAD > {at}/super"],
        "install_submodule": [f"mkdir -p {at} && cp kernel.cpp {at}/kernel.cpp && git rev-parse HEAD > {at}/sub"],
        "run": f"BISECT_ENV={p.env} bash {p.env / 'affinity.sh'} {at} {{device}}",
        "worker_env": "none" if mode == "none" else "venv",
    }


def pinned_history(
    tmp: Path, compiler: int = 60, runtime: int = 60, bug: int = 35, bump_at: int = 30, every: int = 4
) -> Project:
    """A `compiler`-commit compiler pinning a `runtime`-commit runtime; the runtime breaks at commit `bug`,
    which arrives with the pointer bump at compiler commit `bump_at` (c<bump_at>)."""
    kernel = ["BROKEN" if i >= bug else "" for i in range(runtime)]
    # the pointer moves every `every` compiler commits; the one at bump_at jumps over the bug
    moves: dict[int, int] = {}
    for c in range(bump_at % every + every, compiler - 1, every):
        target = round(c * (runtime - 1) / (compiler - 2))
        moves[c] = target
    moves[bump_at] = min(bug + 3, runtime - 1)
    moves[bump_at - every] = bug - 6
    plan: list[tuple] = []
    for c in range(2, compiler - 1):  # commits 0 and 1 are made by build(); the last is its docs commit
        if c in moves:
            plan.append(("ptr", moves[c], f"c{c}"))
        else:
            plan.append(("src", "", f"c{c}"))
    return build(tmp, kernel, plan)


def superproject_builds_all(p: Project, mode: str) -> dict[str, object]:
    """No install_submodule: the superproject's install builds the runtime too, as many projects' do."""
    cmds = commands(p, mode)
    at = place(p, mode)
    cmds["install"] = [
        f"mkdir -p {at} && cp src/codegen.py runtime/kernel.cpp {at}/ && git rev-parse HEAD > {at}/super "
        f"&& git -C runtime rev-parse HEAD > {at}/sub"
    ]
    cmds["install_submodule"] = []
    return cmds


def run_and_check(p: Project, devices: list[str], mode: str, ahead: int = 0, cmds=None, **kw: object):  # type: ignore[no-untyped-def]
    before = snapshot(p.sup.path)
    cmds = cmds or commands(p, mode)
    bisect_start(p.path, p.c["add"], devices=devices, build_ahead=ahead, **cmds, **kw)  # type: ignore[arg-type]
    try:
        res = bisect_run(p.path)
        assert p.lines("violations") == [], p.lines("violations")
        for s in res.steps:
            if s.ran:
                assert s.verdict == p.expected(s.superproject, s.submodule), s
        assert snapshot(p.sup.path) == before
        sdir = statefile.state_dir(p.sup.path)
        assert not (sdir / "workers").exists()
        return res
    finally:
        bisect_reset(p.path)


def test_the_wrong_culprit_setup_names_c30_and_rt35(tmp_path):
    """The issue's set-up: worker_env none, per-device install folders, 3 devices, 60 x 60 commits."""
    p = pinned_history(tmp_path)
    res = run_and_check(p, ["npu0", "npu1", "npu2"], "none")
    assert res.outcome == "found", res.message
    assert res.culprit.commit == p.c["c30"], (res.culprit.short, res.message)
    assert res.submodule_culprit.commit == p.r[35]


MATRIX = [
    (d, mode, ahead)
    for d in (1, 2, 3)
    for mode, aheads in (("venv", (0, 2, 6)), ("venv-device", (0,)), ("none", (0,)))
    for ahead in aheads
]


# the default run covers every device count, environment mode and build-ahead depth once; the rest of the
# matrix is extended (PERFKIT_TESTS=all)
COVERING = {(1, "venv", 0), (2, "venv-device", 0), (3, "none", 0), (2, "venv", 2), (3, "venv", 6)}


@pytest.mark.parametrize(
    "d,mode,ahead",
    [pytest.param(*c, marks=[] if c in COVERING else [pytest.mark.extended]) for c in MATRIX],
    ids=[f"{d}dev-{m}-ahead{a}" for d, m, a in MATRIX],
)
def test_every_point_runs_where_its_build_is(tmp_path, monkeypatch, d, mode, ahead):
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "user-env"))  # where the final restore installs
    p = pinned_history(tmp_path, compiler=40, runtime=40, bug=23, bump_at=20, every=2)
    res = run_and_check(p, [f"dev{i}" for i in range(d)], mode, ahead)
    assert res.culprit.commit == p.c["c20"] and res.submodule_culprit.commit == p.r[23], res.message
    by_slot_device = {(s.device, s.round) for s in res.steps if s.ran}
    assert len(by_slot_device) == sum(1 for s in res.steps if s.ran)  # a device runs one point per round


@pytest.mark.parametrize("mode", ["venv-device", "none"])
def test_the_superproject_install_building_the_runtime_and_the_build_cache(tmp_path, monkeypatch, mode):
    """Beyond the matrix: one install that builds both sides, and worker builds swapped by the build cache."""
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "user-env"))
    p = pinned_history(tmp_path, compiler=40, runtime=40, bug=23, bump_at=20, every=2)
    res = run_and_check(p, ["dev0", "dev1"], mode, cmds=superproject_builds_all(p, mode))
    assert res.culprit.commit == p.c["c20"] and res.submodule_culprit.commit == p.r[23], res.message
    if mode == "venv-device":
        q = pinned_history(tmp_path / "cache", compiler=40, runtime=40, bug=23, bump_at=20, every=2)
        res = run_and_check(q, ["dev0", "dev1"], mode, cache_builds=True)
        assert res.culprit.commit == q.c["c20"] and res.submodule_culprit.commit == q.r[23], res.message


@pytest.mark.extended  # test_bisect_ray.py runs a two-level bisect on a local Ray cluster in the default run
@pytest.mark.parametrize("mode", ["venv-device"])  # each actor holds its own environment, per device inside
def test_every_point_runs_where_its_build_is_on_ray_with_two_actors(tmp_path, monkeypatch, mode):
    ray = pytest.importorskip("ray", reason="ray is not installed here (pip install -e '.[test,ray]'); CI installs it")
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "user-env"))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    ray.init(num_cpus=2, resources={"NPU": 2}, include_dashboard=False, log_to_driver=False)
    try:
        p = pinned_history(tmp_path, compiler=40, runtime=40, bug=23, bump_at=20, every=2)
        res = run_and_check(p, ["a", "b"], mode, backend="ray", ray_resource="NPU")
        assert res.culprit.commit == p.c["c20"] and res.submodule_culprit.commit == p.r[23], res.message
        assert {s.device for s in res.steps if s.ran} == {"0", "1"}  # the NPU ids Ray gave the two actors
    finally:
        ray.shutdown()


def test_device_in_a_command_without_devices_is_refused(tmp_path):
    p = pinned_history(tmp_path, compiler=8, runtime=6, bug=3, bump_at=6)
    for key, value in (("run", "run -d {device}"), ("install", ["pip install --prefix=/opt/{device} ."])):
        args: dict[str, object] = {"run": "true", key: value}
        with pytest.raises(InputError) as exc:
            bisect_start(p.path, p.c["add"], **args)  # type: ignore[arg-type]
        assert exc.value.field == key and "{device}" in str(exc.value) and "devices" in str(exc.value)
    assert not statefile.state_file(statefile.state_dir(p.sup.path)).exists()


def test_a_point_sent_to_another_device_is_an_internal_error_not_a_verdict(tmp_path, monkeypatch):
    """Break the pool on purpose (devices given by position again): the slot refuses to run the point."""
    from perfkit.bisect.workers.affinity import AffinityError
    from perfkit.bisect.workers.local import LocalPool

    real = LocalPool.assign

    def by_position(self, points, keep=None):  # type: ignore[no-untyped-def]
        pairs = real(self, points, keep)
        for k, (_p, w) in enumerate(pairs):
            w.device = self.devices[(k + 1) % len(self.devices)] if len(pairs) > 1 else w.device
        return pairs

    monkeypatch.setattr(LocalPool, "assign", by_position)
    p = pinned_history(tmp_path, compiler=16, runtime=12, bug=7, bump_at=8)
    bisect_start(p.path, p.c["add"], devices=["dev0", "dev1"], **commands(p, "none"))  # type: ignore[arg-type]
    try:
        with pytest.raises(AffinityError, match="internal error, no verdict recorded") as exc:
            bisect_run(p.path)
        assert "belongs to device" in str(exc.value)
        st = statefile.load(statefile.state_dir(p.sup.path))
        assert st is not None and st.phase != "done" and not [s for s in st.steps if s.ran]
        assert p.lines("runs.log") == [] and p.lines("violations") == []
    finally:
        bisect_reset(p.path)


def test_several_devices_in_one_entry_say_to_repeat_the_option(tmp_path):
    from helpers.procs import perfkit

    p = pinned_history(tmp_path, compiler=8, runtime=6, bug=3, bump_at=6)
    for given in ("0,1", "0 1"):
        out = perfkit("bisect-start", p.path, p.c["add"], "--run", "true", "--devices", given)
        assert out.returncode == 2 and "--devices 0 --devices 1" in out.stderr, out.stderr
    # one JSON list, the form the MCP description shows, is read as the list it is
    out = perfkit("bisect-start", p.path, p.c["add"], "--run", "true", "--devices", '["0","1"]', "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["settings"]["devices"] == ["0", "1"]
    assert perfkit("bisect-reset", p.path).returncode == 0
    help_text = perfkit("bisect-start", "--help").stdout
    assert '["0", "1", "2", "3"]' not in help_text and "Repeat" in help_text
