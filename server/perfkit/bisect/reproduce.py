"""The script that reproduces the culprit's failing point by hand, without touching the user's setup.

It checks the point out in a throwaway worktree (and a throwaway clone of the submodule), makes a
throwaway virtual environment of the user's interpreter (`python` setting, else `python3`) with the
user's packages visible behind it, exactly as a device worker's environment is made (envs.py), and
runs the install and run commands inside it. Whatever happens, a trap removes all of it on exit, so
the user's environment never holds a build of a temporary folder that is gone a second later.

`{device}` is replaced as the bisect replaced it: by the device the failing point ran on (and
PERFKIT_DEVICE is set to it). PERFKIT_REPRODUCE_IN_MY_ENV=1 opts into the user's own environment
instead; the script then prints the exact commands that put it back at the user's checkout.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from perfkit.bisect.command import provenance
from perfkit.bisect.command.envs import SITES
from perfkit.bisect.state.store import State
from perfkit.bisect.workers.devices import with_device

_JSON_ARGS = "import json, sys; print(json.dumps(sys.argv[1:]))"
_PTH = (
    "import os, pathlib, sysconfig; p = pathlib.Path(sysconfig.get_paths()['purelib']); "
    "lines = [f'import site; site.addsitedir({s!r})' for s in os.environ['SITES'].splitlines() if os.path.isdir(s)]; "
    "(p / 'zzz-perfkit-user-env.pth').write_text(chr(10).join(lines) + chr(10))"
)


def device_of(st: State) -> str | None:
    """The device the failing point ran on (its last run), else the first device; None without devices."""
    if not st.settings.devices or st.reproduce_point is None:
        return None
    sup, sub = st.reproduce_point
    ran = [s.device for s in st.steps if s.superproject == sup and s.submodule == sub and s.device]
    return ran[-1] if ran else st.settings.devices[0]


def script(st: State, repo: Path) -> str | None:
    """A bash script that rebuilds the culprit's failing point in throwaway folders and runs the check."""
    if not st.reproduce_point or st.outcome in ("good_end_not_good", "bad_end_not_bad", "candidates"):
        return None
    sup, sub = st.reproduce_point
    s = st.settings
    q = shlex.quote
    dev = device_of(st)
    py = q(s.python) if s.python else '"$(command -v python3 || command -v python)"'
    sub_dir = '"$D"/' + q(s.submodule) if s.submodule else None
    cleanup = 'cd /; rm -rf "$D"; git -C "$R" worktree prune; rm -rf "$T"'
    undo_then_cleanup = 'cat "$T/undo"; ' + cleanup
    restore_then_cleanup = 'bash "$T/undo.sh"; ' + cleanup
    none = q("")
    lines = [
        "set -e",
        f"R={q(str(repo))}",
        'T="$(mktemp -d)"',
        f'D="$T"/{q(repo.name)}',
        # removed on any exit (failure included), so nothing keeps pointing at a folder that is gone
        f"trap {q(cleanup)} EXIT",
        f'git -C "$R" -c core.hooksPath=/dev/null worktree add -q --detach "$D" {sup}',
    ]
    if sub and s.submodule and st.submodule_source:
        lines += [
            f"git clone -q --shared --no-checkout {q(st.submodule_source)} {sub_dir}",
            f"git -C {sub_dir} -c core.hooksPath=/dev/null checkout -q --detach {sub}",
        ]
    installs = bool(s.install or (sub and s.install_submodule))
    undo = " ".join(q(u) for u in _undo(st, repo, dev))
    if installs and s.devices and s.worker_env == "none":
        lines += [
            "# the installs write where the device's commands look, outside any environment:",
            "# on exit they run again against your checkout, as the bisect's own restore does",
            f"printf '%s\\n' {undo} > \"$T/undo.sh\"",
            f"trap {q(restore_then_cleanup)} EXIT",
        ]
    elif installs:
        lines += [
            'if [ "${PERFKIT_REPRODUCE_IN_MY_ENV:-}" != 1 ]; then',
            "  # a throwaway environment with your packages behind it: yours stays as it is",
            f"  PY={py}",
            '  "$PY" -m venv --without-pip "$T/env"',
            f'  SITES="$("$PY" -c {q(SITES)})" "$T/env/bin/python" -c {q(_PTH)}',
            '  printf \'#!/bin/sh\\nexec "%s" -m pip "$@"\\n\' "$T/env/bin/python" > "$T/env/bin/pip"',
            '  chmod +x "$T/env/bin/pip"; ln -s pip "$T/env/bin/pip3"',
            '  export VIRTUAL_ENV="$T/env" PATH="$T/env/bin:$PATH"',
            "else",
            "  printf '%s\\n' 'your environment holds builds of a folder now removed; to undo, run:' "
            + " ".join(q("  " + u) for u in _undo(st, repo, dev))
            + ' > "$T/undo"',
            f"  trap {q(undo_then_cleanup)} EXIT",
            "fi",
        ]
    env = f'PERFKIT_CHECKOUT="$D" PERFKIT_SUBMODULE={sub_dir or none} PERFKIT_COMMIT={sup}'
    env += f" PERFKIT_SUBMODULE_COMMIT={sub or none}" + (f" PERFKIT_DEVICE={q(dev)}" if dev is not None else "")
    for cmd in s.install:
        lines.append(f'(cd "$D" && {env} bash -c {q(with_device(cmd, dev))})')
    if sub_dir and sub:
        for cmd in s.install_submodule:
            lines.append(f"(cd {sub_dir} && {env} bash -c {q(with_device(cmd, dev))})")
    if installs:  # as every step did: what the run will import, and a refusal when a copy shadows the build
        roots = [x for x in (sub_dir if sub and sub_dir else None, '"$D"') if x]
        heads = json.dumps([c for c, x in ((sub, sub_dir if sub else None), (sup, "$D")) if x])
        lines += [
            'PY_RUN="$(command -v python3 || command -v python)"',
            f'ROOTS="$("$PY_RUN" -c {q(_JSON_ARGS)} {" ".join(roots)})"',
            f'(cd / && "$PY_RUN" -c {q(provenance.PROBE)} "$ROOTS" {q(heads)})',
        ]
    if s.run_cwd and os.path.isabs(s.run_cwd):
        cwd = q(s.run_cwd)
    else:
        cwd = '"$D"' + ("/" + q(s.run_cwd) if s.run_cwd else "")
    lines.append(f"cd {cwd} && {env} bash -c {q(with_device(s.run, dev))}")
    return "\n".join(lines)


def _undo(st: State, repo: Path, dev: str | None) -> list[str]:
    """The install commands re-run in the user's own checkout (what the restore runs), as lines to type."""
    s, q = st.settings, shlex.quote
    sub = repo / s.submodule if s.submodule else None
    env = f"PERFKIT_CHECKOUT={q(str(repo))} PERFKIT_SUBMODULE={q(str(sub or ''))}"
    env += f" PERFKIT_DEVICE={q(dev)}" if dev is not None else ""
    out = [f"cd {q(str(repo))} && {env} bash -c {q(with_device(c, dev))}" for c in s.install]
    if sub is not None:
        out += [f"cd {q(str(sub))} && {env} bash -c {q(with_device(c, dev))}" for c in s.install_submodule]
    return out
