"""Bisect settings a project keeps next to its code, so nobody retypes the run command.

Looked up in the user's checkout (the files as they are now, not at any commit): `perfkit.toml`
(table `[bisect]` or `[tool.perfkit.bisect]`) first, then `[tool.perfkit.bisect]` in
`pyproject.toml`. Explicit arguments win over the file, the file wins over defaults.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from perfkit.bisect.models import BisectSettings
from perfkit.errors import InputError

_LISTS = {"install", "install_submodule", "devices"}
_STRS = {
    "run", "run_cwd", "submodule", "pass_pattern", "fail_pattern", "metric_pattern",
    "worker_env", "python", "backend", "ray_resource", "ray_repo",
}  # fmt: skip
_NUMS = {
    "timeout_s", "install_timeout_s", "log_cap_mb", "confidence", "flaky_fail", "flaky_pass", "max_skips",
    "cache_limit_mb", "build_ahead",
}  # fmt: skip
_BOOLS = {"verify_ends", "noise", "cache_builds"}
KEYS = _LISTS | _STRS | _NUMS | _BOOLS


def _table(path: Path, *keys: str, notes: list[str]) -> object:
    """The table at keys in a TOML file. A pyproject.toml perfkit cannot parse belongs to the project
    and may hold nothing for perfkit: it is skipped with a note. A broken perfkit.toml is an error."""
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        if path.name == "pyproject.toml":
            notes.append(f"{path.name} could not be read as TOML ({exc}); no settings taken from it")
            return None
        raise InputError("repo", f"{path.name} is not valid TOML ({exc})", "fix the file") from None
    node: Any = data
    for k in keys:
        node = node.get(k) if isinstance(node, dict) else None
    found: object = node
    return found


def from_files(repo: Path, notes: list[str]) -> tuple[dict[str, Any], str | None]:
    """The settings table of the repo and the file it came from (empty when there is none)."""
    candidates = [
        ("perfkit.toml", ("bisect",)),
        ("perfkit.toml", ("tool", "perfkit", "bisect")),
        ("pyproject.toml", ("tool", "perfkit", "bisect")),
    ]
    for name, route in candidates:
        path = repo / name
        if not path.is_file():
            continue
        table = _table(path, *route, notes=notes)
        if table is None:
            continue
        where = f"{name} [{'.'.join(route)}]"
        if not isinstance(table, dict):
            raise InputError("repo", f"{where} is not a table", "write it as a TOML table of settings")
        unknown = sorted(set(table) - KEYS)
        if unknown:
            raise InputError(
                "repo", f"{where} has unknown setting(s) {', '.join(unknown)}", f"use only: {', '.join(sorted(KEYS))}"
            )
        return _typed(table, where), where
    return {}, None


def _typed(table: dict[str, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        if key in _LISTS:
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise InputError("repo", f"{where} {key} must be a string or a list of strings", "fix the file")
        elif key in _STRS and not isinstance(value, str):
            raise InputError("repo", f"{where} {key} must be a string", "fix the file")
        elif key in _NUMS and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise InputError("repo", f"{where} {key} must be a number", "fix the file")
        elif key in _BOOLS and not isinstance(value, bool):
            raise InputError("repo", f"{where} {key} must be true or false", "fix the file")
        out[key] = value
    return out


def _refuse_nul(values: dict[str, Any]) -> None:
    """A NUL byte cannot reach a shell or a path: refuse it at start rather than fail at every step."""
    for key in sorted(_LISTS | _STRS):
        value = values.get(key)
        texts = value if isinstance(value, list) else [value]
        if any(isinstance(t, str) and "\0" in t for t in texts):
            raise InputError(key, "contains a NUL byte, which no command line or path can hold", "remove it")


def merge(repo: Path, explicit: dict[str, Any], notes: list[str] | None = None) -> BisectSettings:
    """Arguments (those not None) over the settings file over defaults, validated."""
    from_file, where = from_files(repo, notes if notes is not None else [])
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key in sorted(KEYS):
        if explicit.get(key) is not None:
            values[key], sources[key] = explicit[key], "argument"
        elif key in from_file:
            values[key], sources[key] = from_file[key], where or "file"
    _refuse_nul(values)
    run = values.get("run")
    if not isinstance(run, str) or not run.strip():
        raise InputError(
            "run",
            "no run command given and none in perfkit.toml or pyproject.toml [tool.perfkit.bisect]",
            "pass the command that runs the precision check",
        )
    for key in ("pass_pattern", "fail_pattern", "metric_pattern"):
        if values.get(key) is not None:
            try:
                re.compile(values[key])
            except re.error as exc:
                raise InputError(
                    key, f"is not a valid regular expression ({exc})", "pass a Python regular expression"
                ) from None
    for key in ("fail_pattern", "pass_pattern"):
        if isinstance(values.get(key), str) and not values[key]:
            raise InputError(key, "is empty", "pass a pattern that only a verdict line matches")
    for key in ("timeout_s", "install_timeout_s", "log_cap_mb", "cache_limit_mb"):
        if key in values and not (values[key] > 0 and values[key] < 10**7):
            raise InputError(key, f"must be a positive number, got {values[key]}", "pass seconds (or MiB) above 0")
    _check_noise(values)
    for key in ("install", "install_submodule"):
        if key in values:
            values[key] = [c for c in values[key] if c.strip()]
    from perfkit.bisect.workers.devices import check_settings

    check_settings(values)
    for key in KEYS:
        sources.setdefault(key, "default")
    return BisectSettings(**values, sources=sources)


def _check_noise(values: dict[str, Any]) -> None:
    """The noise settings: a confidence below 1, flake rates below one half, a whole skip budget."""
    c = values.get("confidence")
    if c is not None and not 0.5 <= c < 1:
        raise InputError("confidence", f"must be at least 0.5 and below 1, got {c}", "pass for example 0.99")
    told = c is not None or values.get("flaky_fail") is not None or values.get("flaky_pass") is not None
    if told and values.get("noise") is None:
        values["noise"] = True  # a confidence or a flake rate is only used by the noise-aware search
    for key in ("flaky_fail", "flaky_pass"):
        r = values.get(key)
        if r is not None and not 0 <= r < 0.5:
            raise InputError(key, f"must be at least 0 and below 0.5, got {r}", "pass a rate such as 0.05 (5%)")
    m = values.get("max_skips")
    if m is not None:
        if m != int(m) or m < 0:
            raise InputError("max_skips", f"must be a whole number of skips, 0 or more, got {m}", "pass for example 20")
        values["max_skips"] = int(m)
