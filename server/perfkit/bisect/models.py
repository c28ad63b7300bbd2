"""What the bisect tools return and what they keep on disk between calls."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from perfkit.base_model import Model
from perfkit.bisect.options import (
    AheadSlots,
    Backend,
    BisectOptions,
    Commands,
    Devices,
    FlakeRate,
    MiB,
    Seconds,
    WorkerEnv,
)
from perfkit.guards.list_caps import ListsCapped
from perfkit.guards.outside_text import RepoName, RepoSubject, quoted

Verdict = Literal["good", "bad", "skip"]
SearchName = Literal["level1", "level2", "find_fix"]  # the linear searches; level2 and find_fix walk the submodule
Phase = Literal["verify_good", "verify_bad", "level1", "split_pointer", "split_source", "level2", "find_fix", "done"]
Direction = Literal["forward", "backward", "sideways", "added", "removed", "unknown"]
Environment = Literal["user", "worktree", "unknown"]
Outcome = Literal[
    "found",  # one commit named (superproject, and submodule when level 2 ran)
    "candidates",  # skipped commits surround the culprit: a set, not one commit
    "source_part",  # mixed commit: its source changes fail without the new pointer
    "only_together",  # mixed commit: neither half fails alone
    "split_untested",  # mixed commit: a split point could not be tested
    "good_end_not_good",
    "bad_end_not_bad",
    "stopped",  # level 2 could not run (objects missing, sideways move, ...): level 1 answer stands
]


# ends that name no single culprit: perfkit bisect-run and bisect-status exit with this code
NO_SINGLE_CULPRIT = ("candidates", "good_end_not_good", "bad_end_not_bad")
EXIT_NO_SINGLE_CULPRIT = 3


class BisectSettings(BisectOptions):
    """The commands and rules of one bisect, after merging arguments, settings file and defaults.

    BisectOptions with its defaults filled in: a field whose value is always known here is declared again
    with the same kind of value (options.py) and its default; the others are BisectOptions' own."""

    model_config = ConfigDict(extra="ignore")  # a state file written by another version loads

    run: str = Field(description="shell command that runs the precision check")
    submodule: str | None = Field(default=None, description="path of the submodule bisected at level 2; null for none")
    install: Commands = Field(default_factory=list, description="shell commands run in the superproject checkout")
    install_submodule: Commands = Field(default_factory=list, description="shell commands run in the submodule")
    pass_pattern: str = r"\bPASS\b"
    fail_pattern: str = r"\bFAIL\b"
    timeout_s: Seconds = 1800.0
    install_timeout_s: Seconds = 3600.0
    verify_ends: bool = True
    log_cap_mb: MiB = 16.0
    devices: Devices = Field(
        default_factory=list,
        description="accelerators to test on at once, one point each per round ({device} and PERFKIT_DEVICE)",
    )
    worker_env: WorkerEnv = Field(
        default="venv", description="with several devices: venv gives each worker its own virtual environment"
    )
    cache_builds: bool = Field(default=False, description="keep what an install produced and reuse it on return")
    cache_limit_mb: MiB = Field(default=4096.0, description="size limit of the build cache in MiB")
    build_ahead: AheadSlots = Field(
        default=0,
        description="extra worker slots that install the next round's likely points while the devices run",
    )
    backend: Backend = Field(default="local", description="where the devices are: this machine or Ray")
    ray_resource: str = Field(default="NPU", description="Ray resource name of one accelerator")
    noise: bool = Field(
        default=False,
        description="the check may give a wrong verdict now and then: weigh every verdict, re-run where the "
        "evidence is weakest and name a culprit only once it holds `confidence`",
    )
    flaky_fail: FlakeRate | None = Field(
        default=None,
        description="how often a passing point reads FAIL (giving it switches noise on); default learnt from the "
        "runs, weighing every rate they allow",
    )
    flaky_pass: FlakeRate | None = Field(
        default=None,
        description="how often a failing point reads PASS (giving it switches noise on); default learnt from the "
        "runs, weighing every rate they allow",
    )
    sources: dict[str, str] = Field(
        default_factory=dict, description="where each setting came from: argument, a settings file, or default"
    )


class CommitRef(Model):
    commit: str
    short: str
    subject: RepoSubject
    author: RepoName
    date: str


class Culprit(CommitRef):
    kind: str = Field(description="submodule_bump, submodule_rollback, submodule_sideways, mixed or source")


class SubmoduleCulprit(CommitRef):
    path: str = Field(description="submodule path in the superproject")
    role: Literal["regression", "dropped_fix"] = Field(
        description="regression: the first submodule commit that fails; dropped_fix: the first commit whose "
        "presence makes the check pass again, which the culprit's rollback removed"
    )
    superproject: str = Field(description="superproject commit the submodule commits were tested with")


class TestedPackage(Model):
    """One package an install put in from the checkout under test, as the step's run imports it."""

    package: str = Field(description="distribution name")
    version: str
    module: str = Field(description="top-level import name")
    path: str = Field(description="where the import resolves: a folder of the checkout, or the copy installed")
    commit: str | None = Field(description="the commit that path holds (for a copy: the commit it was installed from)")
    editable: bool
    source: str = Field(description="the checkout folder it was installed from")


class StepRecord(Model):
    n: int
    phase: str
    superproject: str
    submodule: str | None
    short: str = Field(description="short sha of the commit this step varies (submodule commit at level 2)")
    subject: RepoSubject
    verdict: Verdict
    reason: str
    metric: float | None = None
    exit_code: int | None = None
    installed: list[str] = Field(default_factory=list, description="which installs ran: superproject, submodule")
    duration_s: float = 0.0
    log: str | None = None
    ran: bool = Field(
        default=False, description="whether the run command started (false when checkout or install failed)"
    )
    device: str | None = Field(default=None, description="the device the point ran on, with several devices")
    round: int | None = Field(default=None, description="the round of points tested at once, with several devices")
    remembered: bool = Field(default=False, description="verdict taken from the verdict memory, not run again")
    prepared: bool = Field(
        default=False, description="installed ahead, while the previous round ran (build_ahead): no install waited"
    )
    tested: list[TestedPackage] = Field(
        default_factory=list,
        description="every package the installs put in from the checkout: where the run imports it, the commit there",
    )
    checkout_changed: list[str] = Field(
        default_factory=list,
        description="what changed in the user's checkout while this step ran (HEAD, refs, stash, index, submodule "
        "HEAD); the bisect stopped on it",
    )
    worktree_rebuilt: list[str] = Field(
        default_factory=list,
        description="perfkit's worktree or its submodule clone no longer led to the git folder perfkit made for "
        "it before this step (a command rewrote .git or set core.worktree): what perfkit saw; it ran no git "
        "command there and made the worktree again",
    )


class PointEvidence(Model):
    """Every run of one tested point: what a noisy check said there."""

    phase: str
    point: str = Field(description="short label of the point")
    superproject: str
    submodule: str | None = None
    runs: int
    passes: int
    fails: int
    skips: int
    metrics: list[float] = Field(default_factory=list)


class SkipReason(Model):
    reason: str
    count: int
    points: list[str] = Field(description="short labels of the points that skipped with this reason")


class BisectStatus(ListsCapped):
    repo: str
    active: bool = Field(description="whether a bisect (running, paused or finished) is recorded for this repo")
    done: bool
    phase: str
    outcome: Outcome | None = None
    message: str
    good: str | None = None
    bad: str | None = None
    submodule: str | None = None
    level1_commits: int = 0
    level2_commits: int | None = None
    expected_steps: int = 0
    culprit: Culprit | None = None
    submodule_culprit: SubmoduleCulprit | None = None
    candidates: list[CommitRef] = Field(
        default_factory=list, description="when skips surround the culprit: every commit it may be"
    )
    sideways_base: str | None = Field(
        default=None, description="a pointer moved sideways: the merge base level 2 searched from"
    )
    dropped: list[CommitRef] = Field(
        default_factory=list,
        description="a pointer moved sideways: the submodule commits only the old side has (the move dropped them)",
    )
    dropped_count: int = Field(default=0, description="how many commits the sideways move dropped (dropped may be cut)")
    candidates_in: str | None = Field(
        default=None, description="'superproject' or the submodule path the candidates are in"
    )
    steps: list[StepRecord] = Field(default_factory=list)
    runs: int = Field(default=0, description="run commands executed")
    installs: int = Field(default=0, description="install commands run for the points tested, when they were tested")
    installs_saved: int = Field(
        default=0, description="install commands not run because the point's build was there already"
    )
    builds_ahead: int = Field(default=0, description="points whose build was started ahead (build_ahead)")
    installs_ahead: int = Field(default=0, description="install commands run by builds made ahead")
    installs_ahead_used: int = Field(default=0, description="of installs_ahead, those whose build a test then used")
    installs_restore: int = Field(default=0, description="install commands run to restore your checkout's environment")
    devices_now: dict[str, str] = Field(
        default_factory=dict, description="while a round runs: each device and the point it is testing"
    )
    reproduce: str | None = Field(
        default=None, description="bash script that reproduces the culprit's failure by hand, in a throwaway worktree"
    )
    environment: str = Field(
        default="user", description="where the installed environment points: user, worktree, unknown"
    )
    worktree: str | None = None
    state_dir: str | None = None
    running_pid: int | None = Field(default=None, description="pid of a perfkit process working on this bisect now")
    settings: BisectSettings | None = None
    notes: list[str] = Field(default_factory=list)
    confidence: dict[str, float] = Field(
        default_factory=dict,
        description="per search (level1, level2, find_fix) and split point (split_pointer, split_source): the "
        "probability its answer is right, under a flake-rate prior that allows flaky checks",
    )
    evidence: list[PointEvidence] = Field(
        default_factory=list, description="points run more than once, or every point when noise is on"
    )
    noise_seen: list[str] = Field(default_factory=list, description="points whose repeated runs disagreed")
    skip_reasons: list[SkipReason] = Field(default_factory=list, description="skips grouped by reason")

    def human(self) -> str:
        """What the skill asks the agent to report: the steps so far, the culprit(s), environment, worktree."""
        if not self.active:
            return self.message
        lines = [self.message]
        if self.culprit:
            c = self.culprit
            lines.append(f"  culprit    {c.short} {quoted(c.subject)} ({c.kind}; {c.author}, {c.date})")
        if self.submodule_culprit:
            s = self.submodule_culprit
            role = "dropped fix" if s.role == "dropped_fix" else "culprit"
            lines.append(f"  {s.path} {role}  {s.short} {quoted(s.subject)} ({s.author}, {s.date})")
        for cand in self.candidates:
            lines.append(f"  candidate  {cand.short} {quoted(cand.subject)}")
        if self.dropped_count:
            shown = ", ".join(d.short for d in self.dropped[:10])
            more = f" and {self.dropped_count - 10} more" if self.dropped_count > 10 else ""
            lines.append(f"  dropped    {self.dropped_count} commits only the old side has: {shown}{more}")
        if self.steps:
            lines.append("  steps:")
            for rec in self.steps:  # a skip's cause is in its log: say where
                log = f" (log {rec.log})" if rec.verdict == "skip" and rec.log else ""
                lines.append(f"    {rec.n:>3} {rec.short} {rec.verdict:<4} {rec.reason}{_where(rec)}{log}")
        if self.devices_now:
            lines.append("  devices now: " + "; ".join(f"{d} testing {p}" for d, p in sorted(self.devices_now.items())))
        lines.append(
            f"  runs {self.runs}, steps {len(self.steps)} of about {max(self.expected_steps, len(self.steps))}"
        )
        lines.append("  " + self.install_line())
        lines += self._evidence_lines()
        if self.builds_ahead:
            used = sum(1 for s in self.steps if s.prepared)
            lines.append(f"  builds ahead: {self.builds_ahead} points prepared, {used} of them tested on their build")
        lines.append(f"  environment {self.environment}; worktree {self.worktree or 'none'}")
        lines += [f"  note: {n}" for n in self.notes]
        if self.reproduce:
            lines.append("  reproduce by hand:")
            lines += [f"    {line}" for line in self.reproduce.splitlines()]
        return "\n".join(lines)

    def install_line(self) -> str:
        """Every install command run, where it went: used for a test, made ahead and wasted, or restoring."""
        wasted = self.installs_ahead - self.installs_ahead_used
        total = self.installs + self.installs_ahead + self.installs_restore
        used = self.installs + self.installs_ahead_used
        parts = [f"{used} for the points tested"]
        if self.installs_ahead:
            parts.append(f"{self.installs_ahead_used} of them made ahead")
            parts.append(f"{wasted} made ahead and not used")
        if self.installs_restore:
            parts.append(f"{self.installs_restore} restoring your environment")
        return (
            f"install commands run {total}: {', '.join(parts)}; {self.installs_saved} not needed (the build was there)"
        )

    def _evidence_lines(self, cap: int = 12) -> list[str]:
        """Points run more than once, with what each run said: the grounds of a stated confidence."""
        out: list[str] = []
        if self.confidence:
            said = ", ".join(f"{k} {v:.1%}" for k, v in self.confidence.items())
            out.append(f"  confidence {said}")
        repeated = [e for e in self.evidence if e.runs > 1]
        if repeated:
            out.append("  points run more than once:")
            for e in repeated[:cap]:
                metrics = f"; metrics {' '.join(f'{m:g}' for m in e.metrics[:8])}" if e.metrics else ""
                out.append(
                    f"    {e.point} ({e.phase}): {e.runs} runs, {e.passes} pass, {e.fails} fail, "
                    f"{e.skips} skip{metrics}"
                )
            if len(repeated) > cap:
                out.append(f"    ... and {len(repeated) - cap} more (in `evidence`)")
        if self.noise_seen:
            out.append(f"  runs disagreed at: {', '.join(self.noise_seen[:cap])}")
        return out

    def cli_exit_code(self) -> int:
        """3 when the bisect ended without naming a single culprit (documented in docs/bisect.md)."""
        return EXIT_NO_SINGLE_CULPRIT if self.done and self.outcome in NO_SINGLE_CULPRIT else 0


def _where(s: StepRecord) -> str:
    if s.device is None and s.round is None:
        return ""
    ahead = ", built ahead" if s.prepared else ""
    return f" [device {s.device}, round {s.round}{ahead}]"


class StartResult(ListsCapped):
    repo: str
    good: str
    bad: str
    submodule: str | None
    level1_commits: int = Field(description="first-parent commits in good..bad, the bad end included")
    expected_steps: int = Field(
        description="the upper end of the start estimate: the end checks, halving, the confirmation runs, and a "
        "level 2 inside the largest pointer move (the message gives the range)"
    )
    settings: BisectSettings
    state_dir: str
    message: str
    notes: list[str] = Field(default_factory=list)

    def human(self) -> str:
        return "\n".join([self.message, *[f"  note: {n}" for n in self.notes]])


class StepResult(ListsCapped):
    line: str = Field(description="Step N of about M: <short sha> <subject> -> good/bad/skip (reason)")
    step: StepRecord | None = Field(description="the point tested by this call; null when the bisect was already done")
    status: BisectStatus

    def human(self) -> str:
        line = self.line
        if self.step is not None and self.step.verdict == "skip" and self.step.log:
            line += f"\n  log: {self.step.log}"
        return line if not self.status.done else line + "\n" + self.status.human()


class ResetResult(ListsCapped):
    repo: str
    removed: list[str] = Field(description="what was removed: worktree, state, logs, lock")
    restored: bool | None = Field(
        description="whether the install commands re-ran against your checkout; null when nothing needed restoring"
    )
    message: str

    def human(self) -> str:
        return self.message
