"""The reproduce script leaves the user's environment byte-identical.

The user's environment is a virtual environment first on the PATH. The install command does what
`pip install -e .` does to the active environment: it writes a `.pth` file into its site-packages
naming the checkout it ran in, so `import codegen` then finds that checkout's source. Run from a
temporary worktree straight into the user's environment, that file would point at a folder the
script removes a moment later (the `ModuleNotFoundError` users met). The test hashes every file of
the user's site-packages before and after running the script, and checks that the script's own
run did import the build it made.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.bisect_project import Project, build
from perfkit.bisect.command.envs import WorkerEnv
from perfkit.bisect.models import BisectSettings
from perfkit.bisect.tool import bisect_reset, bisect_run, bisect_start

pytestmark = pytest.mark.slow

EDITABLE = (
    "python -c \"import os, sysconfig; open(os.path.join(sysconfig.get_paths()['purelib'], 'codegen-editable.pth'), "
    "'w').write(os.path.join(os.getcwd(), 'src') + chr(10))\""
)


def site_hash(env: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(env.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            h.update(str(p.relative_to(env)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def user_env(tmp: Path) -> tuple[Path, dict[str, str]]:
    env_dir = tmp / "user-env"
    WorkerEnv(env_dir, BisectSettings(run="-", python=sys.executable)).ensure()
    env = {**os.environ, "PATH": f"{env_dir / 'bin'}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(env_dir)}
    return env_dir, env


def imports_run(p: Project) -> str:
    """The check, after importing the installed source and saying where it came from."""
    find = "import importlib.util as u; print('imported', u.find_spec('codegen').origin)"
    return f'python -c "{find}" || exit 3; {p.run_cmd()}'


def finished(p: Project, tmp: Path, env: dict[str, str], **kw: object):  # type: ignore[no-untyped-def]
    old = dict(os.environ)
    os.environ.update(env)  # the bisect's own commands run in the user's environment, as on their machine
    try:
        bisect_start(p.path, p.c["add"], run=imports_run(p), install=[EDITABLE], **kw)  # type: ignore[arg-type]
        return bisect_run(p.path)
    finally:
        os.environ.clear()
        os.environ.update(old)


def test_the_reproduce_script_leaves_the_users_environment_byte_identical(tmp_path):
    plan = [("src", "")] * 6 + [("src", "BUG", "bug")] + [("src", "BUG")] * 3
    p = build(tmp_path / "w", [""] * 2, plan)
    env_dir, env = user_env(tmp_path)
    res = finished(p, tmp_path, env)
    assert res.culprit.commit == p.c["bug"], res.message
    assert res.reproduce
    pth = next(env_dir.rglob("codegen-editable.pth"))
    assert pth.read_text().strip() == f"{p.path}/src"  # the restore pointed it back at the user's checkout
    before = site_hash(env_dir)
    out = subprocess.run(["bash", "-c", res.reproduce], capture_output=True, text=True, timeout=120, env=env)
    assert "check max_abs_err=0.25 FAIL" in out.stdout, (out.stdout, out.stderr)
    imported = [line.split(" ", 1)[1] for line in out.stdout.splitlines() if line.startswith("imported ")]
    assert imported and not imported[0].startswith(p.path)  # the run saw the script's own build
    assert site_hash(env_dir) == before  # the user's environment: byte for byte as it was
    assert pth.read_text().strip() == f"{p.path}/src"
    # and the script's folders are gone
    assert not Path(imported[0]).exists()
    bisect_reset(p.path)


def test_opting_into_the_users_environment_prints_the_exact_undo(tmp_path):
    plan = [("src", "")] * 3 + [("src", "BUG", "bug")] + [("src", "BUG")] * 2
    p = build(tmp_path / "w", [""] * 2, plan)
    env_dir, env = user_env(tmp_path)
    res = finished(p, tmp_path, env)
    before = site_hash(env_dir)
    opt_in = {**env, "PERFKIT_REPRODUCE_IN_MY_ENV": "1"}
    out = subprocess.run(["bash", "-c", res.reproduce], capture_output=True, text=True, timeout=120, env=opt_in)
    assert "FAIL" in out.stdout and site_hash(env_dir) != before  # it did install into the user's environment
    undo = out.stdout.split("to undo, run:", 1)[1].strip().splitlines()
    assert undo and all(line.startswith(f"cd {p.path} && ") for line in undo)
    for line in undo:  # typing the lines it printed puts the environment back, byte for byte
        subprocess.run(["bash", "-c", line], check=True, env=env, timeout=60)
    assert site_hash(env_dir) == before
    bisect_reset(p.path)


def test_device_is_replaced_in_the_reproduce_script_and_the_restore(tmp_path):
    """After a device run the script names the device the failing point ran on; nothing keeps `{device}`."""
    plan = [("src", "")] * 5 + [("src", "BUG", "bug")] + [("src", "BUG")] * 2
    p = build(tmp_path / "w", [""] * 2, plan)
    folders = tmp_path / "inst"
    install = [f'mkdir -p {folders}/{{device}} && echo "$PWD" > {folders}/{{device}}/built-from']
    run = f'test "$(cat {folders}/{{device}}/built-from)" = "$PWD" || exit 3; {p.run_cmd()}'
    bisect_start(p.path, p.c["add"], run=run, install=install, devices=["npu4", "npu5"], worker_env="none")
    res = bisect_run(p.path)
    assert res.culprit.commit == p.c["bug"], res.message
    assert sorted(x.name for x in folders.iterdir()) == ["npu4", "npu5"]  # no folder named {device}
    for d in ("npu4", "npu5"):  # the restore re-ran each device's install against the user's checkout
        assert (folders / d / "built-from").read_text().strip() == p.path
    assert res.reproduce and "{device}" not in res.reproduce
    culprit_device = next(s.device for s in reversed(res.steps) if s.superproject == p.c["bug"])
    assert f"{folders}/{culprit_device}/" in res.reproduce
    out = subprocess.run(["bash", "-c", res.reproduce], capture_output=True, text=True, timeout=120)
    assert "check max_abs_err=0.25 FAIL" in out.stdout, (out.stdout, out.stderr)
    # its install wrote the device's folder, outside any environment: the script put it back on exit
    assert (folders / culprit_device / "built-from").read_text().strip() == p.path
    bisect_reset(p.path)
