"""Ray that fails loudly: every failure a user meets ends within 60 s with one clear message.

Each test drives the CLI in a process of its own, as a user does, against a real Ray head the test
starts with `ray start --head` in a session of its own (so the test stops exactly that cluster, by
its process group). The cluster and the CLI share a private temporary folder, so the test can see
that no actor folder is left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.bisect_project import Project, build
from helpers.gitbuild import snapshot
from helpers.load import slack
from perfkit.bisect.state import store as statefile

pytest.importorskip("ray", reason="ray is not installed here (pip install -e '.[test,ray]'); CI installs it")

pytestmark = pytest.mark.slow

RAY = str(Path(sys.executable).with_name("ray"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Head:
    port: int
    base: Path  # TMPDIR of the cluster and the CLI
    pgid: int = 0

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "TMPDIR": str(self.base / "tmp"), "RAY_ADDRESS": f"127.0.0.1:{self.port}"}

    def start(self, resources: dict[str, float], cpus: int = 2, **extra: str) -> None:
        env = {**self.env, "RAY_ADDRESS": "", **extra}
        proc = subprocess.Popen(
            [RAY, "start", "--head", f"--port={self.port}", f"--num-cpus={cpus}", "--num-gpus=0",
             f"--resources={json.dumps(resources)}", "--include-dashboard=false", "--disable-usage-stats",
             f"--temp-dir={self.base / 'r'}"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
        )  # fmt: skip
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out
        self.pgid = proc.pid  # its session: the head's processes and the workers they start

    def stop(self) -> None:
        if self.pgid:
            try:
                os.killpg(self.pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.pgid = 0


@pytest.fixture
def head() -> Iterator[Head]:
    base = Path(tempfile.mkdtemp(prefix="pkr", dir="/tmp"))  # short: Ray's socket paths have a length limit
    (base / "tmp").mkdir()
    h = Head(free_port(), base)
    try:
        yield h
    finally:
        h.stop()
        shutil.rmtree(base, ignore_errors=True)


def cli(env: dict[str, str], *args: str, timeout: float = 240) -> tuple[subprocess.CompletedProcess[str], float]:
    t0 = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "perfkit.cli", *args], capture_output=True, text=True, timeout=timeout, env=env
    )
    return out, time.monotonic() - t0


def project(tmp: Path) -> Project:
    kernel = [""] * 5 + ["BROKEN"] * 4
    plan = [("src", "")] * 3 + [("ptr", 2)] + [("src", "")] * 6 + [("ptr", 7, "bump")] + [("src", "")] * 3
    return build(tmp, kernel, plan)


def start(p: Project, env: dict[str, str], devices: list[str], *extra: str, run: str | None = None) -> None:
    args = ["bisect-start", p.path, p.c["add"], "--run", run or p.run_cmd(), "--backend", "ray"]
    for d in devices:
        args += ["--devices", d]
    out, _ = cli(env, *args, *extra)
    assert out.returncode == 0, out.stderr


def assert_clear_failure(out: subprocess.CompletedProcess[str], seconds: float, code: int, *words: str) -> str:
    text = out.stderr + out.stdout
    assert out.returncode == code, text
    assert seconds < slack(60), seconds
    assert "please report" not in text and "Traceback" not in text, text
    for w in words:
        assert w in text, (w, text)
    return text


def paused(p: Project, env: dict[str, str]) -> None:
    """The state is kept and the bisect can be resumed."""
    out, _ = cli(env, "bisect-status", p.path, "--json")
    st = json.loads(out.stdout)
    assert st["active"] and not st["done"] and "paused" in st["message"], st["message"]


def test_ray_address_at_a_stopped_head_fails_within_seconds(tmp_path):
    p = project(tmp_path)
    env = {**os.environ, "RAY_ADDRESS": f"127.0.0.1:{free_port()}"}
    start(p, env, ["a", "b"])
    out, seconds = cli(env, "bisect-run", p.path)
    assert_clear_failure(out, seconds, 1, "RAY_ADDRESS=127.0.0.1", "nothing answers", "ray start --head")
    assert seconds < slack(20)
    paused(p, env)
    cli(env, "bisect-reset", p.path)


@pytest.mark.extended  # names the `ray start` line for missing resources; runs with PERFKIT_TESTS=all
def test_missing_resources_are_named_with_the_ray_start_line(tmp_path, head):
    p = project(tmp_path)
    head.start({"NPU": 1})
    for resource, devices, words in (
        ("NPU", ["a", "b"], ["has 1 NPU", "needs 2", """--resources='{"NPU": 2}'"""]),
        ("GPU", ["0", "1"], ["has 0 GPU", "needs 2", "--num-gpus=2"]),
    ):
        start(p, head.env, devices, "--ray-resource", resource)
        out, seconds = cli(head.env, "bisect-run", p.path)
        assert_clear_failure(out, seconds, 2, "ray_resource", *words)
        paused(p, head.env)
        cli(head.env, "bisect-reset", p.path)
    assert not list((head.base / "tmp").glob("perfkit-ray/*"))


@pytest.mark.extended  # the default run bisects on Ray with NPU as the resource
def test_cpu_as_the_resource_and_the_documented_environment_on_the_actors(tmp_path, head):
    """ray_resource CPU is Ray's num_cpus; the actors' commands see the driver's environment and perfkit's."""
    p = project(tmp_path)
    head.start({}, cpus=2)
    seen = p.env / "seen"
    fields = "$FROM_RUN_SH|$PERFKIT_DEVICE|{device}|$PERFKIT_STEP|$PERFKIT_COMMIT|${VIRTUAL_ENV:+venv}"
    run = f'echo "{fields}" >> {seen}; ' + p.run_cmd()
    env = {**head.env, "FROM_RUN_SH": "exported"}
    start(p, env, ["a", "b"], "--ray-resource", "CPU", "--install", p.installs()[0], run=run)
    out, _ = cli(env, "bisect-run", p.path, "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["culprit"]["commit"] == p.c["bump"] and res["submodule_culprit"]["commit"] == p.r[5]
    rows = [line.split("|") for line in p.lines("seen")]
    assert rows and all(r[0] == "exported" and r[1] == r[2] != "" and r[3].isdigit() and r[5] == "venv" for r in rows)
    assert {r[1] for r in rows} == {"a", "b"}  # CPU has no accelerator ids: the names listed
    assert res["environment"] == "user"  # the actors' own environments held every install
    cli(env, "bisect-reset", p.path)
    assert not list((head.base / "tmp").glob("perfkit-ray/*"))


@pytest.mark.extended  # the longest test of the suite (2 min); the default run names a stopped head
def test_cluster_stopped_mid_run_pauses_and_resumes(tmp_path, head):
    p = project(tmp_path)
    before = snapshot(p.sup.path)
    head.start({"NPU": 2})
    flag = p.env / "running"
    run = f"touch {flag}; sleep 1; {p.run_cmd()}"
    start(p, head.env, ["a", "b"], run=run)
    proc = subprocess.Popen(
        [sys.executable, "-m", "perfkit.cli", "bisect-run", p.path],
        env=head.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + slack(120)
    while not flag.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.2)
    time.sleep(3)  # a round or two recorded, the next one running
    head.stop()
    t0 = time.monotonic()
    out, err = proc.communicate(timeout=120)
    seconds = time.monotonic() - t0
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    assert_clear_failure(done, seconds, 1, "cluster was lost", "paused", "bisect-run")
    assert not list((head.base / "tmp").glob("perfkit-ray/*"))  # no actor folder left behind
    paused(p, head.env)
    kept = json.loads(cli(head.env, "bisect-status", p.path, "--json")[0].stdout)["steps"]
    # the cluster again, and the bisect goes on from what it kept
    head.start({"NPU": 2})
    out2, _ = cli(head.env, "bisect-run", p.path, "--json")
    assert out2.returncode == 0, out2.stderr
    res = json.loads(out2.stdout)
    assert res["culprit"]["commit"] == p.c["bump"] and res["submodule_culprit"]["commit"] == p.r[5]
    assert [s["n"] for s in res["steps"][: len(kept)]] == [s["n"] for s in kept]
    assert snapshot(p.sup.path) == before
    cli(head.env, "bisect-reset", p.path)
    assert not list((head.base / "tmp").glob("perfkit-ray/*"))
    assert not statefile.state_dir(p.sup.path).exists()


@pytest.mark.extended  # starts a cluster of its own; the default run bisects on a local cluster
def test_a_local_cluster_without_the_resource_is_said_at_once(tmp_path):
    """RAY_ADDRESS=local: perfkit starts a cluster of its own, which declares no NPU: one clear error, not a hang."""
    p = project(tmp_path)
    base = Path(tempfile.mkdtemp(prefix="pkr", dir="/tmp"))
    env = {**os.environ, "RAY_ADDRESS": "local", "TMPDIR": str(base)}
    try:
        start(p, env, ["a", "b"])
        out, seconds = cli(env, "bisect-run", p.path)
        assert_clear_failure(out, seconds, 2, "has 0 NPU", "needs 2", "ray start --head")
        paused(p, env)
        cli(env, "bisect-reset", p.path)
        assert not list(base.glob("perfkit-ray/*"))
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_token_authentication_refused_is_explained():
    """The error Ray raises when the head wants a token the driver lacks becomes what to set, not 'please report'."""
    from perfkit.bisect.workers.ray_preflight import _explained

    ray = pytest.importorskip("ray")
    exc = ray.exceptions.AuthenticationError("Authentication failed: the token does not match")
    text = str(_explained(exc, "10.0.0.5:6379", "NPU", 2))
    assert "token authentication" in text and "RAY_AUTH_MODE=token" in text and "RAY_AUTH_TOKEN" in text
    assert "please report" not in text
    other = str(_explained(ConnectionError("GCS unavailable"), "10.0.0.5:6379", "NPU", 2))
    assert "could not connect to RAY_ADDRESS=10.0.0.5:6379" in other and "ray start --head" in other


@pytest.mark.extended  # the default run explains a refused token without a cluster
def test_a_token_file_from_another_cluster_is_named_not_a_lost_cluster(tmp_path, head):
    """The cluster runs without tokens; HOME holds ~/.ray/auth_token from another cluster. perfkit turns token
    authentication on from that file (as `ray start` would), the actors die before their first task, and
    the message names the token file and the fix, never "the cluster was lost"."""
    head.start({"NPU": 2}, RAY_AUTH_MODE="disabled")
    home = tmp_path / "home"
    (home / ".ray").mkdir(parents=True)
    (home / ".ray" / "auth_token").write_text("f" * 32)
    env = {k: v for k, v in head.env.items() if not k.startswith("RAY_AUTH")} | {"HOME": str(home)}
    p = project(tmp_path)
    start(p, env, ["a", "b"])
    out, seconds = cli(env, "bisect-run", p.path)
    text = assert_clear_failure(
        out, seconds, 1, "does not accept this process's token", str(home / ".ray" / "auth_token"),
        "RAY_AUTH_MODE=disabled", "RAY_AUTH_TOKEN_PATH",
    )  # fmt: skip
    assert "was lost" not in text and "Start the cluster again" not in text
    paused(p, env)
    cli(env, "bisect-reset", p.path)


def test_a_refused_connection_with_a_token_picked_up_here_names_the_token(monkeypatch, tmp_path):
    """The head uses another token: Ray's connection fails without a word about authentication."""
    from perfkit.bisect.workers import ray_preflight

    monkeypatch.setattr(ray_preflight, "_TOKEN_SOURCE", [f"the token file {tmp_path}/.ray/auth_token"])
    text = str(ray_preflight._explained(ConnectionError("Failed to connect"), "10.0.0.5:6379", "NPU", 2))
    assert "does not accept this process's token" in text and f"{tmp_path}/.ray/auth_token" in text
    lost = str(ray_preflight.lost(RuntimeError("The actor died unexpectedly"), 3, first_task=False))
    assert "was lost" in lost  # once tasks finished, a dying actor is a lost node, token or not
