"""Checks perfkit with third-party clients; exits non-zero with a reason on the first failure.

- MCP Inspector CLI: tools/list (every tool has an outputSchema) and tools/call (a real result
  and a bad-input error).
- Claude Code: `plugin validate` on the manifest, the clone (plugin and marketplace) and the packaged plugin/.
- Every way the plugin's launcher starts perfkit, each in a fresh HOME with only the programs that way
  needs, and with Claude Code's own wait for a server (about 30 s): `claude --plugin-dir . mcp list`
  (the clone) or `--plugin-dir plugin` reports perfkit Connected on the first call, while the
  environment builds from the package index behind the stand-in (uv, and python3 alone) or at once
  (an installed perfkit); the plugin installed from a local marketplace connects too. The builds'
  logs show progress, the stand-in quotes them with the build's true age, and uv's environment holds
  no dev dependencies.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".tools" / "node_modules" / ".bin"
sys.path.insert(0, str(ROOT / "tests"))

from helpers.clients import PLUGIN, base_python, bin_dir, claude, machine, tools  # noqa: E402
from helpers.gitbuild import Repo  # noqa: E402

passed = 0
PATIENT = {"MCP_TIMEOUT": "600000"}  # Claude Code's wait for a server, in ms


def check(cond: bool, what: str, detail: str = "") -> None:
    global passed
    if not cond:
        print(f"FAIL {what}\n{detail[-3000:]}", file=sys.stderr)
        sys.exit(1)
    passed += 1
    print(f"ok   {what}")


def run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


def inspector_cli(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """The Inspector CLI gives a server 60 s per request, which a start on a machine kept busy by other
    work can take: a request that timed out is asked again (twice at most); any other answer stands."""
    for _ in range(3):
        proc = run([str(BIN / "mcp-inspector"), "--cli", *cmd], cwd, env)
        if "Request timed out" not in proc.stdout + proc.stderr:
            break
    return proc


def inspector(env: dict[str, str], work: Path, *args: str) -> subprocess.CompletedProcess:
    return inspector_cli([sys.executable, "-m", "perfkit.cli", "serve", *args], work, env)


def main() -> None:
    from perfkit.registry import all_tools

    work = Path(tempfile.mkdtemp(prefix="perfkit-clients-"))
    env = dict(
        os.environ,
        HOME=str(work / "home"),
        CI="true",
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    (work / "home").mkdir()
    try:
        listed = inspector(env, work, "--method", "tools/list")
        check(listed.returncode == 0, "inspector tools/list", listed.stderr)
        tools = json.loads(listed.stdout)["tools"]
        names = sorted(t["name"] for t in tools)
        check(names == sorted(s.name for s in all_tools()), f"inspector lists all {len(names)} tools", str(names))
        for t in tools:
            check(t.get("outputSchema", {}).get("type") == "object", f"{t['name']} has an outputSchema")

        runtime = Repo(work / "runtime-origin")
        r0 = runtime.commit("r0", {"k.cpp": "0"})
        r1 = runtime.commit("r1", {"k.cpp": "1"})
        sup = Repo(work / "super")
        sup.commit("init", {"a.py": "1"})
        sup.add_submodule(runtime, "runtime")
        sup.set_submodule("runtime", r0)
        sup.commit("add runtime")
        sup.set_submodule("runtime", r1)
        bump = sup.commit("bump runtime (#7)")
        called = inspector(
            env,
            work,
            "--method",
            "tools/call",
            "--tool-name",
            "evaluate_culprit",
            "--tool-arg",
            f"repo={sup.path}",
            "--tool-arg",
            f"commit={bump}",
        )
        check(called.returncode == 0, "inspector tools/call evaluate_culprit", called.stderr)
        result = json.loads(called.stdout)
        check(
            result.get("structuredContent", {}).get("kind") == "submodule_bump",
            "inspector sees structuredContent.kind == submodule_bump",
            called.stdout,
        )
        bad = inspector(
            env,
            work,
            "--method",
            "tools/call",
            "--tool-name",
            "evaluate_culprit",
            "--tool-arg",
            f"repo={work / 'missing'}",
            "--tool-arg",
            "commit=HEAD",
        )
        text = bad.stdout + bad.stderr
        check(
            "does not exist" in text and ("isError" in text or bad.returncode != 0),
            "inspector sees a bad-input error naming the field",
            text,
        )

        for target in (".claude-plugin/plugin.json", ".", "plugin"):
            v = run([str(BIN / "claude"), "plugin", "validate", target], ROOT, env)
            check(
                v.returncode == 0 and "Validation passed" in v.stdout,
                f"claude plugin validate {target}",
                v.stdout + v.stderr,
            )
        start_paths(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, 0 failed")


def first_call(env: dict[str, str], cwd: Path, what: str, plugin_dir: Path = PLUGIN) -> None:
    """`claude --plugin-dir <dir> mcp list` with Claude Code's own wait (about 30 s, unless env sets
    MCP_TIMEOUT): Connected. The folder is the packaged plugin/, or the clone itself (`--plugin-dir .`)."""
    started = time.monotonic()
    listed = claude(env, cwd, "--plugin-dir", str(plugin_dir), "mcp", "list", timeout=900)
    line = next((ln for ln in listed.stdout.splitlines() if ln.startswith("plugin:perfkit:perfkit")), "")
    took = time.monotonic() - started
    check("Connected" in line, f"{what}: Connected on the first call ({took:.0f} s)", listed.stdout + listed.stderr)


def installing_text(env: dict[str, str], cwd: Path) -> str:
    """What the stand-in's one tool says, asked through the launcher as Claude Code starts it."""
    launcher = str(PLUGIN / "bin" / "perfkit-mcp")
    called = inspector_cli([launcher, "--method", "tools/call", "--tool-name", "perfkit_installing"], cwd, env)
    return called.stdout + called.stderr


def says_how_long(text: str, lock: Path) -> None:
    """While the build runs, the stand-in's time is the build's (from the lock), within a few seconds."""
    m = re.search(r"started (?:(\d+) min )?(\d+) s ago", text)
    if not m or not lock.exists():
        return  # the build finished first: the real server answered
    said = int(m.group(1) or 0) * 60 + int(m.group(2))
    actual = time.time() - (lock / "pid").stat().st_mtime
    what = f"the stand-in says the build started {said} s ago (it did {actual:.0f} s ago)"
    check(abs(actual - said) < 30, what, text)
    check("Last line of the install log: [" in text, "the stand-in quotes the install log's last line", text)


def built(data: Path, env_name: str, what: str) -> str:
    """Wait for the build a first start began (so nothing runs on after the checks); its log."""
    lock = data / f"{env_name}.lock"
    deadline = time.monotonic() + 1800
    while lock.exists() and time.monotonic() < deadline:
        time.sleep(2)
    log_path = data / f"{env_name}.install.log"
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    check((data / env_name / ".perfkit-stamp").is_file(), f"{what}: the environment was built", log)
    stamped = [ln for ln in log.splitlines() if re.match(r"\[ *\d+ s\] ", ln)]
    check(
        len(stamped) >= 5 and re.search(r"^perfkit: ready after \d+ s$", log, re.M) is not None,
        f"{what}: the install log shows each step with its second ({len(stamped)} lines) and the total",
        log,
    )
    return log


def served(env: dict[str, str], cwd: Path, what: str) -> None:
    from perfkit.registry import all_tools

    launcher = str(PLUGIN / "bin" / "perfkit-mcp")
    listed = inspector_cli([launcher, "--method", "tools/list"], cwd, env)
    names = sorted(t["name"] for t in json.loads(listed.stdout)["tools"]) if listed.returncode == 0 else []
    check(names == sorted(s.name for s in all_tools()), f"{what}: perfkit itself serves every tool", listed.stderr)


def start_paths(work: Path) -> None:
    """Each way the launcher starts perfkit, each in a fresh HOME, with Claude Code's default wait."""
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    check(Path(uv).exists(), "uv is installed (`pip install uv`, as the README's test set-up does)")
    python = {"python3": base_python()}

    # 1. uv (python3 too, for the stand-in): the locked versions, no dev group
    env = machine(work / "uv-home", [bin_dir(work / "uv-bin", {"uv": uv} | python), tools(work / "uv-tools")])
    data = work / "uv-home" / ".local" / "share" / "perfkit"
    first_call(env, work, "uv, claude --plugin-dir . (the clone)", ROOT)
    says_how_long(installing_text(env, work), data / "uv-venv.lock")
    built(data, "uv-venv", "uv")
    site = next((data / "uv-venv" / "lib").glob("python3*/site-packages"))
    have = {p.name.lower().split("-")[0] for p in site.iterdir()}
    dev = {"pytest", "_pytest", "mypy", "ruff", "hypothesis", "xdist", "pytest_xdist", "pytest_timeout"}
    check(not have & dev, "uv: the environment holds no dev dependencies", str(sorted(have & dev)))
    check("perfkit" in have and "pandas" in have, "uv: the environment holds perfkit and its runtime dependencies")
    # once built, perfkit itself answers: its own start (imports) is what Claude Code waits for, which a
    # machine kept busy by other work can stretch past 30 s; that is not the build's wait, so a longer one
    first_call(env | PATIENT, work, "uv, built: perfkit itself")
    served(env, work, "uv")

    # 2. the plugin installed from a local marketplace (a clone), served by the environment uv built
    home = work / "market-home"
    menv = machine(home, [bin_dir(work / "market-bin", {"uv": uv} | python), tools(work / "market-tools")])
    menv["PERFKIT_HOME"] = str(data)
    for args in (("marketplace", "add", str(ROOT)), ("install", "perfkit@perfkit")):
        done = claude(menv, work, "plugin", *args)
        check(done.returncode == 0, f"claude plugin {' '.join(args[:2])}", done.stdout + done.stderr)
    listed = claude(menv, work, "mcp", "list", timeout=180)
    line = next((ln for ln in listed.stdout.splitlines() if ln.startswith("plugin:perfkit:perfkit")), "")
    check("Connected" in line, "installed from the marketplace: Connected", listed.stdout + listed.stderr)

    # 3. an installed perfkit on PATH
    perfkit = shutil.which("perfkit") or str(Path(sys.executable).parent / "perfkit")
    penv = machine(work / "pk-home", [bin_dir(work / "pk-bin", {"perfkit": perfkit}), tools(work / "pk-tools")])
    first_call(penv, work, "installed perfkit")

    # 4. only python3: its own environment, built once though a CLI start races Claude Code for it
    oenv = machine(work / "own-home", [bin_dir(work / "own-bin", python), tools(work / "own-tools")])
    data = work / "own-home" / ".local" / "share" / "perfkit"
    other = subprocess.Popen(
        [str(PLUGIN / "bin" / "perfkit-mcp"), "read-benchmark", str(ROOT / "examples" / "campaign"), "--json"],
        env=oenv | {"CLAUDE_PLUGIN_DATA": str(work / "another-data-folder")},  # the same environment still
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    first_call(oenv, work, "own environment (only python3)")
    says_how_long(installing_text(oenv, work), data / "venv.lock")
    out, err = other.communicate(timeout=1800)
    check(other.returncode == 0 and bool(json.loads(out or "{}").get("candidate")), "a CLI start waits for it", err)
    log = built(data, "venv", "own environment")
    check(log.count("perfkit: creating") == 1, "own environment: one build for two starts", log)
    again = subprocess.run(
        [str(PLUGIN / "bin" / "perfkit-mcp"), "--version"], env=oenv, capture_output=True, text=True, timeout=60
    )
    check("(built)" in again.stdout, "own environment: --version says it is built", again.stdout + again.stderr)
    first_call(oenv | PATIENT, work, "own environment, built: perfkit itself")
    served(oenv, work, "own environment")


if __name__ == "__main__":
    main()
