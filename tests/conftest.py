"""Shared fixtures: real repositories with real submodules, built per test."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from helpers.gitbuild import Repo  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# every test id this process collected, before -m or -k deselected any (test_guarantees_cited reads it)
COLLECTED = pytest.StashKey[set[str]]()
# the real pypto/simpler histories, shipped with the tests (8.6 MB); see its README
PYPTO_FIXTURE = ROOT / "tests" / "fixtures" / "pypto-history"


@pytest.fixture
def superproject(tmp_path: Path):
    """A compiler repo that pins a runtime submodule at path 'runtime' (name 'simpler').

    Returns (super, runtime, shas) where shas names the interesting commits.
    """
    runtime = Repo(tmp_path / "simpler-origin")
    r = {f"r{i}": runtime.commit(f"runtime change {i}", {"kernel.cpp": f"// v{i}\n"}) for i in range(6)}
    sup = Repo(tmp_path / "pypto")
    shas = {"s0": sup.commit("initial compiler", {"src/codegen.py": "x = 1\n"})}
    sup.add_submodule(runtime, "runtime", name="simpler")
    sup.set_submodule("runtime", r["r1"])
    shas["add"] = sup.commit("chore(runtime): add simpler as submodule (#10)")
    shas["src"] = sup.commit("fix(codegen): tidy (#11)", {"src/codegen.py": "x = 2\n"})
    sup.set_submodule("runtime", r["r4"])
    shas["bump"] = sup.commit(f"chore(runtime): bump simpler to {r['r4'][:8]} (#12)")
    sup.set_submodule("runtime", r["r2"])
    shas["rollback"] = sup.commit("revert runtime to r2 (#13)")
    sup.set_submodule("runtime", r["r5"])
    sup.write("src/codegen.py", "x = 3\n")
    shas["mixed"] = sup.commit("Bump runtime and adapt codegen (#14)")
    return sup, runtime, shas | r


def pypto_fixture() -> Path:
    """The real pypto/simpler histories; part of the repository, so missing means a broken clone."""
    if not (PYPTO_FIXTURE / "pypto.bundle").is_file():
        pytest.fail(f"{PYPTO_FIXTURE / 'pypto.bundle'} is missing: the clone is incomplete (git status shows it)")
    return PYPTO_FIXTURE


@pytest.fixture(scope="session")
def pypto_history(tmp_path_factory) -> Path:
    """A clone of the pypto fixture with its runtime submodule initialised offline (shared, read-only use)."""
    from helpers.gitbuild import run_git

    src = pypto_fixture()
    base = tmp_path_factory.mktemp("pypto-history")
    run_git(base, "clone", "-q", str(src / "pypto.bundle"), "pypto")
    run_git(base, "clone", "-q", "--bare", str(src / "simpler.bundle"), "simpler.git")
    repo = base / "pypto"
    run_git(repo, "config", "submodule.simpler.url", str(base / "simpler.git"))
    run_git(repo, "submodule", "update", "--init", "-q", "runtime")
    return repo


def pytest_xdist_make_scheduler(config, log):  # type: ignore[no-untyped-def]
    """`--dist loadgroup`, with the bad-input table's chunks as groups (helpers/table_chunks.py).

    xdist names a test's group by adding it to the test's id, which pytest 9 no longer lets it do, so
    its own scheduler spreads a group over every test process. This one takes the group from the id
    itself (or from xdist's suffix, where xdist could add it); every other test is its own unit."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from helpers.table_chunks import group_of
    from xdist.scheduler import LoadGroupScheduling

    class ChunkScheduling(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid) or super()._split_scope(nodeid)

    return ChunkScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):  # type: ignore[no-untyped-def]
    config.stash[COLLECTED] = {item.nodeid for item in items}
