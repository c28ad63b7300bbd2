"""Test one point: put the checkout at it, install what changed since the last install, run the check.

The tester answers good, bad or skip for one (superproject, submodule) pair and returns how it got
there (ran or not, exit code, which installs ran). It decides nothing about the search. What was
installed last is kept in a `Build` record that belongs to the checkout, so a worker with its own
checkout and environment keeps its own.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from perfkit.bisect.command import error_line, provenance, runner, shutdown
from perfkit.bisect.command import lookup as command_lookup
from perfkit.bisect.command import verdict as verdicts
from perfkit.bisect.command.worktree import Checkout, Unavailable
from perfkit.bisect.models import BisectSettings, TestedPackage
from perfkit.bisect.state.point import Point
from perfkit.bisect.state.store import Build
from perfkit.errors import ToolFailure
from perfkit.repo import gitrepo

Side = Literal["superproject", "submodule"]
Tick = Callable[[str], Callable[[float], None]]  # activity -> heartbeat(elapsed seconds)

_GIT_REDIRECTS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_COMMON_DIR",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)


@dataclass
class PointResult:
    verdict: verdicts.Classified
    ran: bool = False  # whether the run command started
    exit_code: int | None = None
    installed: list[Side] = field(default_factory=list)
    prepared: bool = False  # its installs ran ahead, while the previous round ran
    commands: int = 0  # install commands this test ran
    ahead_commands: int = 0  # install commands run ahead for it, when prepared
    rebuilt: list[str] = field(default_factory=list)  # perfkit's worktree was not its own: what it saw and did
    tested: list[TestedPackage] = field(default_factory=list)  # what the run imports from the checkout


def command_env(
    bisect_id: str, checkout: Path, sub_dir: Path | None, point: Point | None = None, step: int | None = None
) -> dict[str, str]:
    """The environment of the user's commands: ours, minus git redirects, plus what says where they run."""
    env = {k: v for k, v in os.environ.items() if k not in _GIT_REDIRECTS}
    env.update(
        PERFKIT_CHECKOUT=str(checkout),
        PERFKIT_SUBMODULE=str(sub_dir) if sub_dir else "",
        PERFKIT_BISECT_ID=bisect_id,
    )
    if point is not None:
        env.update(PERFKIT_COMMIT=point.superproject, PERFKIT_SUBMODULE_COMMIT=point.submodule or "")
    if step is not None:
        env["PERFKIT_STEP"] = str(step)
    return env


def saved_commands(settings: BisectSettings, point: Point, installed: list[Side]) -> int:
    """Install commands a test did not need to run, its build being there already."""
    saved = 0
    if settings.install and "superproject" not in installed:
        saved += len(settings.install)
    if settings.install_submodule and point.submodule and "submodule" not in installed:
        saved += len(settings.install_submodule)
    return saved


def run_folder(settings: BisectSettings, checkout: Path) -> Path:
    """Where the run command runs: an absolute run_cwd as given, otherwise inside the checkout."""
    if settings.run_cwd and os.path.isabs(settings.run_cwd):
        return Path(settings.run_cwd)
    return checkout / (settings.run_cwd or "")


class PointTester:
    def __init__(
        self,
        repo: Path,
        bisect_id: str,
        settings: BisectSettings,
        checkout: Checkout,
        build: Build,
        on_start: Callable[[int], None],
        before_install: Callable[[], None],
    ):
        self.repo = repo
        self.bisect_id = bisect_id
        self.settings = settings
        self.checkout = checkout
        self.build = build
        self.on_start = on_start
        self.before_install = before_install  # the environment is about to point at the checkout
        self.extra_env: dict[str, str] = {}  # a device worker's own variables (PERFKIT_DEVICE, its environment)
        self.check_stop: Callable[[], None] = shutdown.check  # raises to stop the command running
        self.before_run: Callable[[Point], None] = lambda _p: None  # a device slot checks affinity here
        self.install_commands = 0  # install commands started by this tester, ever (tests and builds ahead)
        self.rebuilt: list[str] = []  # worktree rebuilds not yet reported with a test (a build ahead found some)

    def test(self, point: Point, step: int, log: runner.Log, tick: Tick) -> PointResult:
        start = self.install_commands
        result = PointResult(verdicts.Classified("skip", "not run", None))
        try:
            return self._test(point, step, log, tick, result)
        finally:
            result.commands = self.install_commands - start
            result.rebuilt, self.rebuilt = self.rebuilt, []

    def _test(self, point: Point, step: int, log: runner.Log, tick: Tick, result: PointResult) -> PointResult:
        failed = self._ready(point, step, log, tick, result)
        if failed is not None:
            result.verdict = failed
            return result
        wt = self.checkout.path
        env = command_env(self.bisect_id, wt, self.checkout.sub_dir if point.submodule else None, point, step)
        env |= self.extra_env
        s = self.settings
        cwd = run_folder(s, wt)
        if not os.path.isabs(s.run_cwd or "") and not cwd.resolve().is_relative_to(wt.resolve()):
            log.note(f"[perfkit: run_cwd {s.run_cwd} leads out of the checkout through a link]\n")
            result.verdict = verdicts.Classified("skip", f"run_cwd {s.run_cwd} leads out of the checkout", None)
            return result
        self.before_run(point)
        result.tested = self.what_is_tested(point, env, log)
        scan = verdicts.scanner(s)
        result.ran = True
        res = runner.run(s.run, cwd, env, s.timeout_s, log, scan, tick("running"), self.on_start, self.check_stop)
        result.exit_code = res.exit_code
        result.verdict = command_lookup.named(verdicts.classify(res, scan), res, s.run, env, cwd)
        return result

    def what_is_tested(self, point: Point, env: dict[str, str], log: runner.Log) -> list[TestedPackage]:
        """Every package the installs put in from the checkout, where the run will import it from and the
        commit there; raises provenance.ShadowedImport (no verdict) when one imports from elsewhere."""
        s = self.settings
        if not s.install and not (s.install_submodule and point.submodule):
            return []
        python = provenance.interpreter(env, s.python)
        if python is None:
            return []
        wt, sub_dir = self.checkout.path, self.checkout.sub_dir if point.submodule else None
        roots = [r for r in (sub_dir, wt) if r is not None]
        if not provenance.worth_probing(provenance.import_path(python, env), roots):
            return []  # nothing on the import path was installed from the checkout
        heads = [(r, self._head(r)) for r in roots]
        built = [(r, c) for r, c in ((sub_dir, self.build.submodule), (wt, self.build.superproject)) if r is not None]
        try:
            found = provenance.tested(provenance.probe(python, env, roots), heads, built)
        except provenance.ShadowedImport as exc:
            log.note(f"[perfkit: {exc}]\n")
            raise
        for t in found:
            at = (t.commit or "an unknown commit")[:12]
            log.note(f"[perfkit: tested {t.package} {t.version} ({t.module}) from {t.path} at {at}]\n")
        return found

    @staticmethod
    def _head(folder: Path) -> str | None:
        try:
            return gitrepo.git(folder, "rev-parse", "HEAD").strip()
        except ToolFailure:
            return None

    def prepare(self, point: Point, log: runner.Log) -> bool:
        """Check out and install point without running it (a build made ahead); whether it is ready."""
        result = PointResult(verdicts.Classified("skip", "not run", None))
        return self._ready(point, None, log, lambda _activity: lambda _s: None, result) is None

    def _ready(
        self, point: Point, step: int | None, log: runner.Log, tick: Tick, result: PointResult
    ) -> verdicts.Classified | None:
        """Put the checkout at point and install what changed; the skip verdict when that failed."""
        try:
            self.checkout.ensure(point.superproject)
            self.checkout.sync(point.superproject, point.submodule)
        except Unavailable as exc:
            log.note(f"[perfkit: {exc}]\n")
            return verdicts.Classified("skip", str(exc), None)
        finally:
            # a checkout made afresh (first step, or a crash left a broken one) holds no build
            if "superproject" in self.checkout.created:
                self.build.superproject = None
            if "submodule" in self.checkout.created:
                self.build.submodule = None
            self.checkout.created.clear()
            for seen in self.checkout.rebuilt:
                log.note(f"[perfkit: {seen}]\n")
            self.rebuilt += self.checkout.rebuilt
            self.checkout.rebuilt.clear()
        wt, sub_dir = self.checkout.path, self.checkout.sub_dir if point.submodule else None
        env = command_env(self.bisect_id, wt, sub_dir, point, step) | self.extra_env
        return self._installs(point, wt, sub_dir, env, log, tick, result.installed)

    def _installs(
        self,
        point: Point,
        wt: Path,
        sub_dir: Path | None,
        env: dict[str, str],
        log: runner.Log,
        tick: Tick,
        installed: list[Side],
    ) -> verdicts.Classified | None:
        """Run the installs this point needs; the skip verdict of the first that failed, else None."""
        s, b = self.settings, self.build
        if self._needs_super(point):
            failed = self._install("superproject", s.install, wt, env, log, tick, installed)
            if failed is not None:
                return failed
            b.superproject, b.superproject_sub = point.superproject, point.submodule
        if sub_dir is not None and self._needs_sub(point):
            failed = self._install("submodule", s.install_submodule, sub_dir, env, log, tick, installed)
            if failed is not None:
                return failed
            b.submodule = point.submodule
        return None

    def built_for(self, point: Point) -> bool:
        """Whether this checkout's environment holds point's build, by the same rule that skips installs."""
        return not self._needs_super(point) and not self._needs_sub(point)

    def _needs_super(self, point: Point) -> bool:
        b = self.build
        return bool(self.settings.install) and (
            b.superproject is None
            or self._super_changed(b.superproject, point.superproject, b.superproject_sub, point.submodule)
        )

    def _needs_sub(self, point: Point) -> bool:
        b = self.build
        return (
            bool(self.settings.install_submodule)
            and bool(point.submodule)
            and (b.submodule is None or self._sub_changed(b.submodule, point.submodule or ""))
        )

    def _install(
        self,
        side: Side,
        commands: list[str],
        cwd: Path,
        env: dict[str, str],
        log: runner.Log,
        tick: Tick,
        installed: list[Side],
    ) -> verdicts.Classified | None:
        # a crash mid-install needs no marker: the resume plans this same point and reinstalls it
        if side == "superproject":
            self.build.superproject = None
        else:
            self.build.submodule = None
        self.before_install()
        installed.append(side)
        timeout = self.settings.install_timeout_s
        for cmd in commands:
            self.check_stop()  # a build ahead no longer wanted starts nothing more
            self.install_commands += 1
            res = runner.run(
                cmd, cwd, env, timeout, log, None, tick(f"installing {side}"), self.on_start, self.check_stop
            )
            if not res.ok:
                said = error_line.last_line(str(log.path))
                return command_lookup.named(verdicts.install_failed(side, res, cmd, said), res, cmd, env, cwd)
        return None

    def _super_changed(self, a: str, b: str, sub_a: str | None, sub_b: str | None) -> bool:
        sub_path = self.settings.submodule
        if a != b:
            spec = ["--", ".", f":(exclude){sub_path}"] if sub_path else []
            if not gitrepo.git_ok(self.repo, "diff", "--quiet", "--no-ext-diff", "--no-textconv", a, b, *spec):
                return True
        # without submodule install commands, the superproject's install is what builds the submodule
        return not self.settings.install_submodule and sub_a != sub_b

    def _sub_changed(self, a: str, b: str) -> bool:
        if a == b:
            return False
        src = self.checkout.sub_source
        if src is None:
            return True
        try:
            ta, tb = gitrepo.git(src, "rev-parse", f"{a}^{{tree}}", f"{b}^{{tree}}").split()
        except (ToolFailure, ValueError):
            return True
        return ta != tb
