"""Bisect settings a project keeps next to its code, so nobody retypes the run command.

Looked up in the user's checkout (the files as they are now, not at any commit): `perfkit.toml`
(table `[bisect]` or `[tool.perfkit.bisect]`) first, then `[tool.perfkit.bisect]` in
`pyproject.toml`. Explicit arguments win over the file, the file wins over defaults.

The keys, their types and their bounds are BisectOptions' (options.py), for the file as for the
arguments; merge adds only the checks a single value cannot carry.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from perfkit.bisect.models import BisectSettings
from perfkit.bisect.options import BisectOptions
from perfkit.errors import InputError

KEYS = frozenset(BisectOptions.model_fields)  # what a settings file may set


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
        return BisectOptions.from_table(table, where), where
    return {}, None


def _refuse_nul(values: dict[str, Any]) -> None:
    """A NUL byte cannot reach a shell or a path: refuse it at start rather than fail at every step."""
    for key, value in sorted(values.items()):
        texts = value if isinstance(value, list) else [value]
        if any(isinstance(t, str) and "\0" in t for t in texts):
            raise InputError(key, "contains a NUL byte, which no command line or path can hold", "remove it")


def merge(repo: Path, explicit: dict[str, Any], notes: list[str] | None = None) -> BisectSettings:
    """Arguments (those not None) over the settings file over defaults, validated.

    BisectOptions holds each value to its type and bounds (the arguments here, the file in from_files);
    what follows checks what one value cannot say alone."""
    given = BisectOptions.given(explicit)
    from_file, where = from_files(repo, notes if notes is not None else [])
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key in sorted(KEYS):
        if key in given:
            values[key], sources[key] = given[key], "argument"
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
    """A confidence or a flake rate is only used by the noise-aware search: giving one switches it on."""
    told = any(values.get(key) is not None for key in ("confidence", "flaky_fail", "flaky_pass"))
    if told and values.get("noise") is None:
        values["noise"] = True
