"""The line a skip storm quotes: the last one every run printed, perfkit's own notes left out."""

from __future__ import annotations

from perfkit.bisect.command import error_line


def test_the_shared_last_line_is_found_and_perfkit_notes_are_skipped(tmp_path):
    logs = []
    for i in range(3):
        log = tmp_path / f"step-{i}.log"
        log.write_text(
            f"$ python run.py -d {i}\n  (cwd /x)\nTraceback (most recent call last):\n"
            "ImportError: cannot import name 'fused_gemm'\n[perfkit: exit 1 after 0.3s]\n\n"
        )
        logs.append(str(log))
    assert error_line.shared(logs) == "ImportError: cannot import name 'fused_gemm'"


def test_different_last_lines_or_missing_logs_quote_nothing(tmp_path):
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    a.write_text("error: one\n")
    b.write_text("error: two\n")
    assert error_line.shared([str(a), str(b)]) is None
    assert error_line.shared([str(a), str(tmp_path / "gone.log")]) is None
    assert error_line.last_line(None) is None
    long = tmp_path / "long.log"
    long.write_text("x" * 5000 + "\n")
    assert len(error_line.last_line(str(long)) or "") == error_line.MAX_CHARS
