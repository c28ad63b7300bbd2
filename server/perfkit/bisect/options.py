"""The settings a user gives a bisect, declared once: type, bounds and description of each.

bisect_start's parameters after repo and good are these fields (its signature is made from this
model by perfkit.tools.model_signature), so the MCP input schema and the CLI options show the bounds
the model holds. The settings file ([bisect] in perfkit.toml, [tool.perfkit.bisect] in pyproject.toml)
is read through the same model, and BisectSettings (models.py), the settings a bisect runs with, is
this model with every default filled in. What a schema cannot say (a run command given somewhere, a
pattern that compiles, device names that work together) is checked in settings.merge.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, ValidationError

from perfkit.base_model import Model

MAX_DEVICES = 64
MAX_AHEAD = 256
_BIG = 10**7  # seconds or MiB no bisect needs: a typo, or an attempt to make a step unbounded

# The kinds of value, shared with BisectSettings so that a bound is written once.
Seconds = Annotated[float, Field(gt=0, lt=_BIG, allow_inf_nan=False)]
MiB = Annotated[float, Field(gt=0, lt=_BIG, allow_inf_nan=False)]
Confidence = Annotated[float, Field(ge=0.5, lt=1, allow_inf_nan=False)]
FlakeRate = Annotated[float, Field(ge=0, lt=0.5, allow_inf_nan=False)]
Skips = Annotated[int, Field(ge=0)]
AheadSlots = Annotated[int, Field(ge=0, le=MAX_AHEAD)]
Commands = list[str]
Devices = Annotated[list[str], Field(max_length=MAX_DEVICES)]
MAX_CHECKOUT_PATHS = 1000
CheckoutPaths = Annotated[list[str], Field(min_length=1, max_length=MAX_CHECKOUT_PATHS)]
WorkerEnv = Literal["venv", "none"]
Backend = Literal["local", "ray"]


class BisectOptions(Model):
    """bisect_start's settings, as arguments or in a settings file; None: not given."""

    model_config = ConfigDict(extra="forbid")

    run: str | None = Field(
        None,
        description="Shell command that runs the precision check and prints a PASS or FAIL line. Default: "
        "`run` from the settings file.",
    )
    run_cwd: str | None = Field(
        None,
        description="Working directory of the run command: absolute, or relative to the checkout under test. "
        "Default: the checkout under test.",
    )
    submodule: str | None = Field(
        None,
        description="Path of the submodule bisected at level 2. Default: the repository's only submodule; '' for none.",
    )
    checkout_paths: CheckoutPaths | None = Field(
        None,
        description="Folders of the superproject the install and run commands read, relative to its top: "
        "perfkit's worktree then holds only these, the top-level files and the submodule (git's cone-mode sparse "
        "checkout), so a large tree is not written out for a check that reads a part of it. Default: your "
        "checkout's own sparse-checkout folders if it has them, else the whole tree.",
    )
    install: Commands | None = Field(
        None,
        description="Shell commands run in the superproject checkout under test whenever its files changed "
        "(for example `pip install --no-build-isolation -e .`).",
    )
    install_submodule: Commands | None = Field(
        None, description="Shell commands run in the submodule checkout whenever its commit changed."
    )
    pass_pattern: str | None = Field(
        None, description="Regular expression of a passing verdict line; default \\bPASS\\b."
    )
    fail_pattern: str | None = Field(
        None,
        description="Regular expression of a failing verdict line; default \\bFAIL\\b. Only this makes a point bad.",
    )
    metric_pattern: str | None = Field(
        None,
        description="Regular expression whose first group is a number to record per point, for example "
        "max_abs_err=(\\S+).",
    )
    timeout_s: Seconds | None = Field(None, description="Seconds before a run is stopped (default 1800).")
    install_timeout_s: Seconds | None = Field(
        None, description="Seconds before an install command is stopped (default 3600)."
    )
    verify_ends: bool | None = Field(
        None,
        description="Test good and bad first and stop if good does not pass or bad does not fail (default true).",
    )
    log_cap_mb: MiB | None = Field(
        None,
        description="MiB of output kept in each step's log file (default 16); beyond it the log keeps the last "
        "64 KiB of each command, while the verdict patterns still see all of the output.",
    )
    devices: Devices | None = Field(
        None,
        description="Free accelerators to test on at once, one name per entry (for example 0, 1, 2 and 3): "
        "one point per device per round, each in its own worktree and environment, {device} replaced in the "
        "commands and PERFKIT_DEVICE set. Ask the user which devices are free. Default: one point at a time.",
    )
    worker_env: WorkerEnv | None = Field(
        None,
        description="With devices: 'venv' (default) gives each device its own virtual environment; 'none'.",
    )
    python: str | None = Field(
        None, description="Interpreter the device environments are made from; default python3 on PATH."
    )
    cache_builds: bool | None = Field(
        None,
        description="Keep what each install produced and reuse it when the search returns there (default false).",
    )
    cache_limit_mb: MiB | None = Field(None, description="Size limit of the build cache in MiB (default 4096).")
    build_ahead: AheadSlots | None = Field(
        None,
        description="With devices: extra worker slots (each its own worktree and environment) that check out and "
        "install the points the next round is likely to test while the devices run, so rounds wait less for "
        "installs. devices x (devices + 1) slots cover every answer of a round. Needs CPU and disk for that many "
        "builds at once, worker_env 'venv' and install commands without {device}. Default 0.",
    )
    backend: Backend | None = Field(
        None, description="'local' (default) or 'ray': devices are Ray resources on a cluster."
    )
    ray_resource: str | None = Field(None, description="Ray resource name of one accelerator (default NPU).")
    ray_repo: str | None = Field(
        None, description="Path or URL the Ray workers clone the repository from; default the repo path."
    )
    noise: bool | None = Field(
        None,
        description="The check may give a wrong verdict now and then (atomics, reduction order, a busy device): "
        "weigh every verdict, re-run where the evidence is weakest, confirm the culprit and its parent, and name "
        "a culprit only at `confidence`. Default false: halving, the culprit and its parent run twice, and "
        "the noise-aware search as soon as two verdicts disagree.",
    )
    confidence: Confidence | None = Field(
        None,
        description="Probability a named culprit must reach, 0.5 to below 1; setting it switches noise on (0.99).",
    )
    flaky_fail: FlakeRate | None = Field(
        None,
        description="How often a passing point reads FAIL, if known (e.g. 0.05), 0 to below 0.5; switches noise on.",
    )
    flaky_pass: FlakeRate | None = Field(
        None, description="How often a failing point reads PASS, if known, 0 to below 0.5; switches noise on."
    )
    max_skips: Skips | None = Field(
        None,
        description="Skips per search after which only commits outside known skip blocks are tried, then it "
        "stops with the candidate set and the skip reasons (default twice log2 of its length, at least 4).",
    )

    @classmethod
    def given(cls, values: Mapping[str, Any]) -> dict[str, Any]:
        """The settings given as arguments (those not None), checked by the model; a value it refuses is an
        InputError naming it. The adapters have checked them against the same model already; this holds a
        call from Python (the demo, a test) to the same bounds."""
        from perfkit.errors import from_validation

        try:
            options = cls.model_validate({k: v for k, v in values.items() if v is not None})
        except ValidationError as exc:
            raise from_validation(exc, "", "see docs/bisect.md for the settings and their bounds") from None
        return options.model_dump(exclude_unset=True)

    @classmethod
    def from_table(cls, table: Mapping[str, Any], where: str) -> dict[str, Any]:
        """The settings of a settings file's table (where: the file and table, for the error), checked by
        the model as TOML gives them: a number for a number, true or false for a switch, no text converted.
        A list of commands or devices may be one string."""
        from perfkit.errors import InputError, from_validation

        lists = {name for name, info in cls.model_fields.items() if _is_list(info.annotation)}
        values = {k: [v] if k in lists and isinstance(v, str) else v for k, v in table.items()}
        try:
            options = cls.model_validate(values, strict=True)
        except ValidationError as exc:
            err = from_validation(exc, where, "fix the file", sep=" ")
            raise InputError("repo", f"{err.field}: {err.problem}", err.fix) from None
        return options.model_dump(exclude_unset=True)


def _is_list(annotation: Any) -> bool:
    """Whether a field's type is a list (Annotated and `| None` looked through)."""
    if typing.get_origin(annotation) is Annotated:
        return _is_list(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return any(_is_list(a) for a in typing.get_args(annotation))
    return typing.get_origin(annotation) is list
