"""The code under test is the commit under test, in every environment a step or the reproduce script makes.

The user's interpreter is a virtual environment on a base interpreter whose global site-packages holds
an older regular copy of the package under test (pkg 1.0), made without --system-site-packages, so the
user never sees that copy. A worker environment that saw the base's global packages would import that
copy instead of the editable install of the commit under test (Python asks an editable install's hook
last): every point would pass. Here the worker sees what the user sees and nothing more, each step
records the package, the path it imported and the commit there, and a copy that does shadow the build
(the user's own environment holding pkg 1.0) stops the bisect naming the path, before any verdict.
Real pip, real virtual environments, a real base interpreter of its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.gitbuild import run_git
from helpers.pythons import base_interpreter, install, pkg_repo, venv
from perfkit.bisect.command.envs import WorkerEnv
from perfkit.bisect.models import BisectSettings
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start, bisect_status
from perfkit.errors import ToolFailure

pytestmark = pytest.mark.slow

EDITABLE = "pip install -q --no-deps --no-index --no-build-isolation -e ."


def _sees(python: Path, module: str) -> str | None:
    code = f"import importlib.util as u; s = u.find_spec({module!r}); print(s.origin if s else '')"
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120, cwd="/")
    return out.stdout.strip() or None


@pytest.fixture
def world(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """A base interpreter holding pkg 1.0 globally, the user's virtual environment on it (first on the PATH),
    and pkg's history: the sum loses precision at commit 5 of 8."""
    base_py, base_site = base_interpreter(tmp_path / "base")
    shas = pkg_repo(tmp_path / "pkg", commits=8, culprit=5)
    old = tmp_path / "pkg-1.0"
    run_git(tmp_path, "clone", "-q", str(tmp_path / "pkg"), str(old))
    run_git(old, "checkout", "-q", shas[0])
    install(Path(sys.executable), old, target=base_site)
    assert _sees(base_py, "pkg") == str(base_site / "pkg" / "__init__.py")  # the base holds it globally
    user_env = tmp_path / "user-env"
    user_py = venv(base_py, user_env)
    assert _sees(user_py, "pkg") is None  # the user's environment does not see it
    monkeypatch.setenv("PATH", f"{user_env / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("VIRTUAL_ENV", str(user_env))
    return tmp_path / "pkg", shas, user_py, old, base_site


def test_a_worker_environment_sees_what_the_users_interpreter_sees_and_nothing_more(tmp_path):
    base_py, base_site = base_interpreter(tmp_path / "base")
    (base_site / "only_in_base.py").write_text("")
    for system_site in (False, True):
        user_py = venv(base_py, tmp_path / f"user-{system_site}", system_site=system_site)
        worker = tmp_path / f"worker-{system_site}"
        WorkerEnv(worker, BisectSettings(run="-", python=str(user_py))).ensure()
        worker_sees = _sees(worker / "bin" / "python", "only_in_base")
        assert worker_sees == _sees(user_py, "only_in_base")
        assert (worker_sees is not None) is system_site
        assert _sees(worker / "bin" / "python", "pip") == _sees(user_py, "pip")  # the user's packages are there


def test_the_bisect_names_the_culprit_and_records_what_each_step_imported(world):
    repo, shas, user_py, old, _ = world
    bisect_start(str(repo), shas[0], run="python tests/check.py", install=[EDITABLE], devices=["0"],
                 python=str(user_py))  # fmt: skip
    res = bisect_run(str(repo))
    assert res.outcome == "found" and res.culprit and res.culprit.commit == shas[5], res.message
    ran = [s for s in res.steps if s.ran]
    assert ran
    for s in ran:
        assert [(t.package, t.module, t.editable, t.commit) for t in s.tested] == [("pkg", "pkg", True, s.superproject)]
        assert s.tested[0].path.endswith("/pkg") and "/perfkit-bisect/" in s.tested[0].path
        assert s.verdict == ("bad" if shas.index(s.superproject) >= 5 else "good"), s
    # the reproduce script, from the user's environment, builds and imports the culprit and sees it fail
    assert res.reproduce
    out = subprocess.run(["bash", "-c", res.reproduce], capture_output=True, text=True, timeout=600)
    assert "FAIL" in out.stdout and "PASS" not in out.stdout, (out.stdout, out.stderr)
    assert "perfkit reproduce: tested pkg" in out.stdout and shas[5][:12] in out.stdout
    # the user installs the release into their own environment: now it shadows an editable build, and the
    # reproduce script refuses to run, naming the copy that would have been imported
    install(user_py, old)
    shadow = str(Path(_sees(user_py, "pkg") or "").parent)
    out = subprocess.run(["bash", "-c", res.reproduce], capture_output=True, text=True, timeout=600)
    assert out.returncode != 0 and "PASS" not in out.stdout and "FAIL" not in out.stdout, out.stdout
    assert f"pkg (import pkg) from {shadow}" in out.stdout + out.stderr
    bisect_reset(str(repo))


def test_a_copy_that_shadows_the_build_stops_the_bisect_naming_its_path(world):
    repo, shas, user_py, old, _ = world
    install(user_py, old)  # the user's own environment holds a regular pkg 1.0
    shadow = str(Path(_sees(user_py, "pkg") or "").parent)
    bisect_start(str(repo), shas[0], run="python tests/check.py", install=[EDITABLE], devices=["0"],
                 python=str(user_py))  # fmt: skip
    with pytest.raises(ToolFailure) as err:
        bisect_run(str(repo))
    assert f"pkg (import pkg) from {shadow}" in str(err.value) and "no verdict recorded" in str(err.value)
    st = bisect_status(str(repo))
    assert not st.done and [s for s in st.steps if s.verdict != "skip"] == []  # no verdict was counted
    bisect_reset(str(repo))
