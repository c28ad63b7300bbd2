"""The CLI's progress bar: in place on a terminal, one line per item or step anywhere else."""

from __future__ import annotations

import io
import re

from helpers.gitbuild import Repo
from helpers.procs import perfkit
from perfkit.cli.progressbar import ProgressBar


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def frames(out: Terminal) -> list[str]:
    return [f.strip() for f in out.getvalue().split("\r\x1b[2K") if f.strip()]


def test_bar_never_counts_backwards_on_a_terminal():
    out = Terminal()
    bar = ProgressBar(stream=out, width=20)
    for done, total in [(0, 10), (3, 10), (5, 10), (5, 30), (6, 30), (20, 40), (40, 40)]:
        bar(done, total, f"step {done}")
    bar.close()
    lines = frames(out)
    filled = [line.split("]")[0].count("#") for line in lines]
    assert filled == sorted(filled) and filled[-1] == 20
    assert lines[2].startswith("[##########..........] 5/10 ")  # exact while the total holds
    assert re.search(r"\] 5/about 30 ", lines[3]) and re.search(r"\] 6/about 30 ", lines[4])
    assert "/about 40" in lines[-1]
    assert out.getvalue().endswith("\n")


def test_a_log_gets_one_line_per_item_not_per_message():
    """A bisect step reports every few seconds while its run goes; a log keeps only the steps."""
    out = io.StringIO()
    bar = ProgressBar(stream=out, width=10)
    for step in range(1, 4):
        for second in range(5):  # what a long install and run send while they go
            bar(step - 1, 3, f"step {step}: running ({second} s)")
        bar(step, 3, f"step {step} done")
    bar.close()
    lines = out.getvalue().splitlines()
    assert [re.search(r"\] (\d+)/", ln).group(1) for ln in lines] == ["0", "1", "2", "3"]  # type: ignore[union-attr]
    assert lines[-1].endswith("step 3 done")
    assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()


def test_fractional_progress_writes_whenever_the_count_moves():
    out = io.StringIO()
    bar = ProgressBar(stream=out)
    for done in (0.5, 0.5, 1.0, 1.5):
        bar(done, 2, "x")
    assert len(out.getvalue().splitlines()) == 3


def test_classify_changes_on_a_pipe_writes_a_line_per_commit(tmp_path):
    repo = Repo(tmp_path / "target")
    repo.commit("base", {"a.py": "x = 0\n"})
    repo.git("branch", "main-base")
    for i in range(5):
        repo.commit(f"change {i}", {f"m{i}.py": f"y = {i}\n"})
    proc = perfkit("classify-changes", str(repo.path), "main-base", timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    # five commits, then the base-and-head check and the end: never one line per redraw
    assert 5 <= len(lines) <= 7, lines
    counts = [int(re.search(r"\] (\d+)/", ln).group(1)) for ln in lines]  # type: ignore[union-attr]
    assert counts == sorted(set(counts))
