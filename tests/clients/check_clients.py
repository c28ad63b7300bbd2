"""Checks perfkit with third-party clients; exits non-zero with a reason on the first failure.

- MCP Inspector CLI: tools/list (every tool has an outputSchema) and tools/call (a real result
  and a bad-input error).
- Claude Code: `plugin validate` on the plugin and on the marketplace, and `--plugin-dir . mcp
  list`, which must report the plugin's server as Connected (this starts it through .mcp.json and the
  launcher, with whatever this machine has: uv, or the perfkit installed here; tests/test_launcher.py
  covers each of the launcher's branches).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".tools" / "node_modules" / ".bin"
sys.path.insert(0, str(ROOT / "tests"))

from helpers.gitbuild import Repo  # noqa: E402

passed = 0


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


def inspector(env: dict[str, str], work: Path, *args: str) -> subprocess.CompletedProcess:
    serve = [sys.executable, "-m", "perfkit.cli", "serve"]
    return run([str(BIN / "mcp-inspector"), "--cli", *serve, *args], work, env)


def main() -> None:
    from perfkit.registry import all_tools

    work = Path(tempfile.mkdtemp(prefix="perfkit-clients-"))
    env = dict(
        os.environ,
        HOME=str(work / "home"),
        CI="true",
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        MCP_TIMEOUT="600000",  # a first start through uv may build its environment
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

        claude = str(BIN / "claude")
        for target in (".claude-plugin/plugin.json", "."):
            v = run([claude, "plugin", "validate", target], ROOT, env)
            check(
                v.returncode == 0 and "Validation passed" in v.stdout,
                f"claude plugin validate {target}",
                v.stdout + v.stderr,
            )
        listed = run([claude, "--plugin-dir", str(ROOT), "mcp", "list"], work, env)
        line = next((ln for ln in listed.stdout.splitlines() if ln.startswith("plugin:perfkit:perfkit")), "")
        check(
            "Connected" in line, "claude --plugin-dir . mcp list shows perfkit Connected", listed.stdout + listed.stderr
        )
        first_start(claude, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, 0 failed")


def first_start(claude: str, work: Path) -> None:
    """A fresh HOME and only python3, git and node (no uv, no perfkit): Connected on the very first call.

    Claude Code waits its default 30 s; the launcher answers from its stand-in while it builds the
    environment. Then the build is waited for, so that nothing runs on after the check, and a second
    call is served by perfkit itself.
    """
    tools = work / "first-bin"
    tools.mkdir()
    base = str(Path(getattr(sys, "_base_executable", sys.executable)).resolve())
    links = {"python3": base} | {
        n: shutil.which(n) for n in ("git", "node", "sh", "cat", "cksum", "mkdir", "rm", "sleep", "env")
    }
    for name, target in links.items():
        if target:
            (tools / name).symlink_to(target)
    home = work / "first-home"
    home.mkdir()
    keep = {k: v for k, v in os.environ.items() if k.upper().endswith("_PROXY") or k.startswith(("PIP_", "SSL_"))}
    env = keep | {
        "HOME": str(home),
        "PATH": str(tools),
        "CI": "true",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "PIP_CACHE_DIR": os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip")),
    }
    listed = run([claude, "--plugin-dir", str(ROOT), "mcp", "list"], work, env, timeout=120)
    line = next((ln for ln in listed.stdout.splitlines() if ln.startswith("plugin:perfkit:perfkit")), "")
    check("Connected" in line, "first start, only python3: Connected on the first call", listed.stdout + listed.stderr)
    data = home / ".local" / "share" / "perfkit"
    deadline = time.monotonic() + 900
    while (data / "venv.lock").exists() and time.monotonic() < deadline:
        time.sleep(2)
    log = (data / "venv.install.log").read_text(errors="replace") if (data / "venv.install.log").exists() else ""
    check((data / "venv" / ".perfkit-stamp").is_file(), "first start: the environment was built", log)
    again = run([claude, "--plugin-dir", str(ROOT), "mcp", "list"], work, env, timeout=120)
    check("Connected" in again.stdout, "second start: perfkit itself Connected", again.stdout + again.stderr)


if __name__ == "__main__":
    main()
