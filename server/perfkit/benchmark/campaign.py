"""Stage 1 of read_benchmark: open the campaign folder and locate every file it will read.

Nothing is read here; every path is checked to stay inside the folder (paths.py), so the stages
after this one take their files from CampaignFiles and never look the folder up again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from perfkit.benchmark import paths
from perfkit.benchmark.metric_spec import METRICS_FILE
from perfkit.errors import InputError
from perfkit.guards import limits

BENCHMARK = "benchmark.csv"
CANDIDATES = "records/candidates.jsonl"
LATEST_REPORT = "latest-report.md"
RESULTS = "results"
WHERE = "pass the campaign folder, the one that holds benchmark.csv"


@dataclass
class Located:
    """A file under results/, its path checked to stay inside the campaign folder."""

    rel: str
    path: Path


@dataclass
class CampaignFiles:
    """Where each file of a campaign is, checked to stay inside it; None when absent."""

    root: Path
    benchmark: Path | None
    results: list[Located] = field(default_factory=list)  # every .json and .jsonl under results/, in run order
    has_results: bool = False
    metrics: Path | None = None
    candidates: Path | None = None
    latest_report: Path | None = None
    notes: list[str] = field(default_factory=list)  # what was left aside while locating, and why

    @property
    def candidates_name(self) -> str | None:
        return CANDIDATES if self.candidates is not None else None

    @property
    def latest_report_name(self) -> str | None:
        return LATEST_REPORT if self.latest_report is not None else None


def open_campaign(campaign_dir: str) -> CampaignFiles:
    """The campaign folder, resolved, with every file read_benchmark reads located inside it."""
    if not campaign_dir.strip():
        raise InputError("campaign_dir", "is empty", WHERE)
    limits.check_argument(campaign_dir, "campaign_dir", limits.MAX_PATH_CHARS)
    path = Path(campaign_dir).expanduser()
    if not path.exists():
        raise InputError("campaign_dir", f"'{campaign_dir}' does not exist", WHERE)
    if not path.is_dir():
        raise InputError("campaign_dir", f"'{campaign_dir}' is a file, not a folder", WHERE)
    root = paths.resolve(path, "campaign_dir")
    results = paths.existing(root, RESULTS, RESULTS)
    files = CampaignFiles(
        root=root,
        benchmark=paths.existing(root, BENCHMARK, BENCHMARK),
        has_results=results is not None,
        metrics=paths.existing(root, METRICS_FILE, METRICS_FILE),
        candidates=paths.existing(root, CANDIDATES, CANDIDATES),
        latest_report=paths.existing(root, LATEST_REPORT, LATEST_REPORT),
    )
    if files.benchmark is None and results is None:
        raise InputError(
            "campaign_dir",
            f"'{campaign_dir}' has no {BENCHMARK}",
            "pass the campaign folder, or write benchmark.csv or results/<arm>/*.json (see docs/campaign-format.md)",
        )
    if results is not None and files.benchmark is None:
        files.results = _results(root, results, files.notes)
    return files


def _natural(rel: str) -> list[int | str]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", rel)]


def _results(root: Path, base: Path, notes: list[str]) -> list[Located]:
    """Every .json and .jsonl under results/ in natural order (run2 before run10), inside the folder."""
    found = []
    for p in base.rglob("*"):
        if p.suffix not in (".json", ".jsonl"):
            continue
        rel = paths.relative(root, p)
        checked = paths.inside(root, rel, RESULTS)
        if not checked.is_file():
            notes.append(f"{rel}: left aside, it is not a regular file")
            continue
        found.append(Located(rel, checked))
    return sorted(found, key=lambda f: _natural(f.rel))
