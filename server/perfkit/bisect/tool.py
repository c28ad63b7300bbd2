"""The five bisect tools (start, step, run, status, reset): their parameters, descriptions and specs.

None of the bisect tools is read-only towards the repository's git directory (they add a worktree
and keep state there) except bisect_status, and none can destroy the user's work: the checkout,
index, stash and submodule are never written. They run the user's install and run commands. The
work is in session.py, imported on the first call so that listing tools stays cheap.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from perfkit.bisect import cli_text
from perfkit.bisect.models import BisectStatus, ResetResult, StartResult, StepResult
from perfkit.tools.spec import Progress, ToolSpec, no_progress

RepoArg = Annotated[
    str,
    Field(
        description="Path of the superproject checkout being bisected (the user's own "
        "checkout; perfkit never changes it)."
    ),
]


def bisect_start(
    repo: RepoArg,
    good: Annotated[str, Field(description="A commit where the check passes (sha, tag or branch).")],
    run: Annotated[
        str | None,
        Field(
            description="Shell command that runs the precision check and prints a PASS or FAIL line. Default: "
            "`run` from the settings file."
        ),
    ] = None,
    bad: Annotated[str, Field(description="A commit where the check fails; default HEAD.")] = "HEAD",
    run_cwd: Annotated[
        str | None,
        Field(
            description="Working directory of the run command: absolute, or relative to the checkout under test. "
            "Default: the checkout under test."
        ),
    ] = None,
    submodule: Annotated[
        str | None,
        Field(
            description="Path of the submodule bisected at level 2. Default: the repository's only submodule; "
            "'' for none."
        ),
    ] = None,
    install: Annotated[
        list[str] | None,
        Field(
            description="Shell commands run in the superproject checkout under test whenever its files changed "
            "(for example `pip install --no-build-isolation -e .`)."
        ),
    ] = None,
    install_submodule: Annotated[
        list[str] | None, Field(description="Shell commands run in the submodule checkout whenever its commit changed.")
    ] = None,
    pass_pattern: Annotated[
        str | None, Field(description="Regular expression of a passing verdict line; default \\bPASS\\b.")
    ] = None,
    fail_pattern: Annotated[
        str | None,
        Field(
            description="Regular expression of a failing verdict line; default \\bFAIL\\b. Only this makes a point bad."
        ),
    ] = None,
    metric_pattern: Annotated[
        str | None,
        Field(
            description="Regular expression whose first group is a number to record per point, for example "
            "max_abs_err=(\\S+)."
        ),
    ] = None,
    timeout_s: Annotated[float | None, Field(description="Seconds before a run is stopped (default 1800).")] = None,
    install_timeout_s: Annotated[
        float | None, Field(description="Seconds before an install command is stopped (default 3600).")
    ] = None,
    verify_ends: Annotated[
        bool | None,
        Field(
            description="Test good and bad first and stop if good does not pass or bad does not fail (default true)."
        ),
    ] = None,
    devices: Annotated[
        list[str] | None,
        Field(
            description="Free accelerators to test on at once, one name per entry (for example 0, 1, 2 and 3): "
            "one point per device per round, each in its own worktree and environment, {device} replaced in the "
            "commands and PERFKIT_DEVICE set. Ask the user which devices are free. Default: one point at a time."
        ),
    ] = None,
    worker_env: Annotated[
        str | None,
        Field(description="With devices: 'venv' (default) gives each device its own virtual environment; 'none'."),
    ] = None,
    python: Annotated[
        str | None, Field(description="Interpreter the device environments are made from; default python3 on PATH.")
    ] = None,
    cache_builds: Annotated[
        bool | None,
        Field(
            description="Keep what each install produced and reuse it when the search returns there (default false)."
        ),
    ] = None,
    cache_limit_mb: Annotated[float | None, Field(description="Size limit of the build cache (default 4096).")] = None,
    build_ahead: Annotated[
        int | None,
        Field(
            description="With devices: extra worker slots (each its own worktree and environment) that check out and "
            "install the points the next round is likely to test while the devices run, so rounds wait less for "
            "installs. devices x (devices + 1) slots cover every answer of a round. Needs CPU and disk for that many "
            "builds at once, worker_env 'venv' and install commands without {device}. Default 0."
        ),
    ] = None,
    backend: Annotated[
        str | None, Field(description="'local' (default) or 'ray': devices are Ray resources on a cluster.")
    ] = None,
    ray_resource: Annotated[
        str | None, Field(description="Ray resource name of one accelerator (default NPU).")
    ] = None,
    ray_repo: Annotated[
        str | None, Field(description="Path or URL the Ray workers clone the repository from; default the repo path.")
    ] = None,
    noise: Annotated[
        bool | None,
        Field(
            description="The check may give a wrong verdict now and then (atomics, reduction order, a busy device): "
            "weigh every verdict, re-run where the evidence is weakest, confirm the culprit and its parent, and name "
            "a culprit only at `confidence`. Default false: halving, the culprit and its parent run twice, and "
            "the noise-aware search as soon as two verdicts disagree."
        ),
    ] = None,
    confidence: Annotated[
        float | None,
        Field(
            description="Probability a named culprit must reach, 0.5 to below 1; setting it switches noise on (0.99)."
        ),
    ] = None,
    flaky_fail: Annotated[
        float | None,
        Field(description="How often a passing point reads FAIL, if known (e.g. 0.05); switches noise on."),
    ] = None,
    flaky_pass: Annotated[
        float | None,
        Field(description="How often a failing point reads PASS, if known; switches noise on."),
    ] = None,
    max_skips: Annotated[
        int | None,
        Field(
            description="Skips per search after which only commits outside known skip blocks are tried, then it "
            "stops with the candidate set and the skip reasons (default twice log2 of its length, at least 4)."
        ),
    ] = None,
) -> StartResult:
    """Start a two-level precision bisect between good and bad without touching the user's checkout.

    Records the range (first-parent commits of good..bad) and the settings in the repository's git
    directory; tests nothing yet. Settings not given are read from perfkit.toml ([bisect]) or
    pyproject.toml ([tool.perfkit.bisect]) in the checkout; arguments win. `install`, `install_submodule`
    and `run` are user-supplied shell commands, and the only commands perfkit runs through a shell.
    Refuses while another bisect of this repository is unfinished."""
    from perfkit.bisect.engine import session

    explicit = dict(
        run=run,
        run_cwd=run_cwd,
        submodule=submodule,
        install=install,
        install_submodule=install_submodule,
        pass_pattern=pass_pattern,
        fail_pattern=fail_pattern,
        metric_pattern=metric_pattern,
        timeout_s=timeout_s,
        install_timeout_s=install_timeout_s,
        verify_ends=verify_ends,
        devices=devices,
        worker_env=worker_env,
        python=python,
        cache_builds=cache_builds,
        cache_limit_mb=cache_limit_mb,
        build_ahead=build_ahead,
        backend=backend,
        ray_resource=ray_resource,
        ray_repo=ray_repo,
        noise=noise,
        confidence=confidence,
        flaky_fail=flaky_fail,
        flaky_pass=flaky_pass,
        max_skips=max_skips,
    )
    return session.start(repo, good, bad, explicit)


def bisect_step(repo: RepoArg, *, progress: Progress = no_progress) -> StepResult:
    """Test one point of the bisect: check it out in the private worktree, install what changed since
    the last install, run the check, classify it good, bad or skip, and record it on disk.

    Returns `Step N of about M: <short sha> <subject> -> good/bad/skip (reason)` with the step's details
    and the bisect's status. When this step finishes the bisect, the install commands re-run against
    the user's checkout and the worktree is removed. Runs the user's install and run shell commands;
    reports progress while they run."""
    from perfkit.bisect.engine import session

    return session.step(repo, progress)


def bisect_run(repo: RepoArg, *, progress: Progress = no_progress) -> BisectStatus:
    """Run the bisect to the end: level 1 over the superproject, then by itself level 2 inside the
    submodule (pointer-only bump), a find-fix search (rollback) or a split test (commit that moves the
    pointer and changes source).

    With devices (set at bisect_start), each round tests one point per device at once, locally or on Ray
    (backend, ray_resource), and build_ahead slots install the next round's likely points meanwhile.
    Resumes a bisect stopped or killed earlier. Reports progress per step and while installs and runs
    are going. At the end removes the worktrees and, where the installs went into the user's environment,
    re-runs them against the user's checkout; returns the culprit(s), every step, the install commands run
    and a script that reproduces the failure by hand. Runs the user's install and run shell commands."""
    from perfkit.bisect.engine import session

    return session.run(repo, progress)


def bisect_status(repo: RepoArg) -> BisectStatus:
    """Report the bisect of this repository: phase, steps with verdicts, metrics and log paths, and when
    done the culprit(s) and a reproduce script. Also says whether another process is working on it or
    died mid-way (resume with bisect_step or bisect_run, clean up with bisect_reset). Reads only."""
    from perfkit.bisect.engine import session

    return session.status(repo)


def bisect_reset(repo: RepoArg) -> ResetResult:
    """End the bisect of this repository and remove every trace of it: stops commands a crashed run
    left behind, re-runs the install commands (the user's shell commands) against the user's checkout
    if the environment still points at the worktree, removes the worktree, logs, state and lock.
    Never touches the user's checkout, index, stash or submodule. Safe to repeat."""
    from perfkit.bisect.engine import session

    return session.reset(repo)


SPECS = [
    ToolSpec(
        bisect_start,
        read_only=False,
        idempotent=False,
        title="Start a precision bisect",
        deadline_s=None,
        cli=cli_text.START,
    ),
    ToolSpec(
        bisect_step,
        read_only=False,
        idempotent=False,
        title="Test one bisect point",
        deadline_s=None,
        cli=cli_text.STEP,
    ),
    ToolSpec(
        bisect_run,
        read_only=False,
        idempotent=False,
        title="Run a bisect to the end",
        deadline_s=None,
        cli=cli_text.RUN,
    ),
    ToolSpec(bisect_status, read_only=True, title="Show the bisect's status", cli=cli_text.STATUS),
    ToolSpec(
        bisect_reset, read_only=False, idempotent=True, title="Reset the bisect", deadline_s=None, cli=cli_text.RESET
    ),
]
