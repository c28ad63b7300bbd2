"""The five bisect tools (start, step, run, status, reset): their parameters, descriptions and specs.

bisect_start's settings are BisectOptions' fields (options.py): its signature is made from that model,
so the MCP input schema and the CLI show each setting's type and bounds as the settings file is held to.

None of the bisect tools is read-only towards the repository's git directory (they add a worktree
and keep state there) except bisect_status, and none can destroy the user's work: the checkout,
index, stash and submodule are never written. They run the user's install and run commands. The
work is in session.py, imported on the first call so that listing tools stays cheap.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from perfkit.bisect import cli_text
from perfkit.bisect.models import BisectStatus, ResetResult, StartResult, StepResult
from perfkit.bisect.options import BisectOptions
from perfkit.tools.model_signature import signature
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
    run: str | None = None,  # BisectOptions.run: the signature below takes its declaration from there
    bad: Annotated[str, Field(description="A commit where the check fails; default HEAD.")] = "HEAD",
    **options: Any,
) -> StartResult:
    """Start a two-level precision bisect between good and bad without touching the user's checkout.

    Records the range (first-parent commits of good..bad) and the settings in the repository's git
    directory; tests nothing yet. Settings not given are read from perfkit.toml ([bisect]) or
    pyproject.toml ([tool.perfkit.bisect]) in the checkout; arguments win. `install`, `install_submodule`
    and `run` are user-supplied shell commands, and the only commands perfkit runs through a shell.
    Refuses while another bisect of this repository is unfinished."""
    from perfkit.bisect.engine import session

    return session.start(repo, good, bad, {"run": run, **options})


# bisect_start's settings are BisectOptions' fields (options.py), declared once there
setattr(bisect_start, "__signature__", signature(bisect_start, BisectOptions))  # noqa: B010


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
