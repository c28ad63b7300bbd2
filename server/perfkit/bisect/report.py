"""What the user reads about a bisect: step lines, the status, and a script that reproduces the culprit.

Nothing here changes the state; a status can be built by any process, also while another works.
"""

from __future__ import annotations

from pathlib import Path

from perfkit.bisect import reproduce
from perfkit.bisect.models import BisectStatus, StepRecord
from perfkit.bisect.search import evidence
from perfkit.bisect.state.named_files import named_paths
from perfkit.bisect.state.point import Point, ref, short
from perfkit.bisect.state.store import State


def label(point: Point, repo: Path, sub_repo: Path | None, sub_path: str | None) -> tuple[str, str]:
    """(short label, subject) of a point: the commit it varies, or both halves for a split test."""
    if point.phase in ("split_pointer", "split_source"):
        sup = short(point.superproject)
        what = (
            "pointer move alone: the culprit's parent with the new pointer"
            if point.phase == "split_pointer"
            else "source change alone: the culprit with the old pointer"
        )
        return f"{sup}+{sub_path}@{short(point.submodule)}", what
    if point.phase in ("level2", "find_fix") and point.submodule and sub_repo is not None:
        r = ref(sub_repo, point.submodule)
        return f"{sub_path}@{r.short}", r.subject
    r = ref(repo, point.superproject)
    return r.short, r.subject


def reuse_note(st: State, reused: list[int]) -> str:
    """Say that verdicts came from memory, what they are keyed on, and how to forget them."""
    files = named_paths(st.settings)
    named = f" and the content of {', '.join(files[:3])}" if files else ""
    which = ", ".join(str(n) for n in reused[:10]) + (", ..." if len(reused) > 10 else "")
    return (
        f"{len(reused)} verdict(s) were reused from perfkit's verdict memory, nothing ran for them (step(s) {which}); "
        f"they were kept for the same commands, patterns{named}. If something they do not show changed "
        "(a driver, a file a script reads), bisect_reset forgets every remembered verdict"
    )


def status_of(
    st: State, repo: Path, sdir: Path, running_pid: int | None, expected: int, stale: bool = False
) -> BisectStatus:
    runs = sum(1 for s in st.steps if s.ran)
    msg = st.message
    notes = list(st.notes)
    if st.phase != "done":
        if running_pid:
            msg = f"Bisect running in pid {running_pid}: {len(st.steps)} of about {expected} steps done ({st.phase})."
            if st.devices_now:
                r = max((s.round or 0 for s in st.steps), default=0) + 1
                msg += f" Round {r} running on {len(st.devices_now)} devices."
        elif stale:
            msg = (
                f"Bisect interrupted: the process working on it stopped without cleaning up. "
                f"{len(st.steps)} of about {expected} steps are recorded; bisect_step or bisect_run resumes "
                "from there, bisect_reset removes the worktree and state and restores your environment."
            )
        else:
            msg = (
                f"Bisect paused in phase {st.phase}: {len(st.steps)} of about {expected} steps done; "
                "bisect_step or bisect_run continues."
            )
    elif stale and not st.finalized:
        msg += (
            " The process that finished the bisect stopped before cleaning up: the worktree may still be there "
            "and your environment may still point at it; bisect_run finishes the clean-up, bisect_reset "
            "removes everything."
        )
    reused = [s.n for s in st.steps if s.remembered]
    if reused:
        notes.append(reuse_note(st, reused))
    if not st.settings.verify_ends and st.phase == "done" and st.outcome in ("found", "candidates"):
        notes.append("the ends were not verified (verify_ends=false): the culprit assumes good passes and bad fails")
    return BisectStatus(
        repo=str(repo),
        active=True,
        done=st.phase == "done",
        phase=st.phase,
        outcome=st.outcome,
        message=msg,
        good=st.good,
        bad=st.bad,
        submodule=st.settings.submodule,
        level1_commits=len(st.level1.items),
        level2_commits=len(st.level2.items) if st.level2 else None,
        expected_steps=expected,
        culprit=st.culprit,
        submodule_culprit=st.submodule_culprit,
        candidates=st.candidates,
        candidates_in=st.candidates_in,
        sideways_base=st.sideways_base,
        dropped=st.dropped,
        dropped_count=st.dropped_count,
        steps=st.steps,
        runs=runs,
        installs=st.installs,
        installs_saved=st.installs_saved,
        builds_ahead=st.builds_ahead,
        installs_ahead=st.installs_ahead,
        installs_ahead_used=st.installs_ahead_used,
        installs_restore=st.installs_restore,
        devices_now=dict(st.devices_now) if st.phase != "done" else {},
        reproduce=reproduce.script(st, repo) if st.phase == "done" else None,
        environment=st.environment,
        worktree=st.worktree,
        state_dir=str(sdir),
        running_pid=running_pid,
        settings=st.settings,
        notes=notes,
        confidence=st.confidence,
        evidence=evidence.points(st.steps, every=st.settings.noise),
        noise_seen=evidence.noise_seen(st.steps),
        skip_reasons=evidence.skip_reasons(st.steps),
    )


def step_line(rec: StepRecord, expected: int) -> str:
    return f"Step {rec.n} of about {max(expected, rec.n)}: {rec.short} {rec.subject} -> {rec.verdict} ({rec.reason})"
