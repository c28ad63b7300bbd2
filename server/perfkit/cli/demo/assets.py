"""Where the shipped examples live: inside the wheel (perfkit/_examples) or at a source checkout's root."""

from __future__ import annotations

from pathlib import Path


def examples_dir() -> Path:
    package = Path(__file__).resolve().parents[2]  # perfkit/cli/demo/assets.py
    for candidate in (package / "_examples", package.parents[1] / "examples"):
        if (candidate / "campaign" / "benchmark.csv").is_file():
            return candidate
    raise FileNotFoundError("perfkit's examples folder is missing from this installation")
