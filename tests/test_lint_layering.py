"""lint sits below publish: it never imports it, so neither can form a cycle with the other."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "server" / "perfkit"
LOWER = ["lint", "markdown", "repo/contribution_files.py", "repo/template_text.py", "benchmark/options.py"]


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out


def _files() -> list[Path]:
    files: list[Path] = []
    for rel in LOWER:
        p = PKG / rel
        files += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return files


def test_lint_and_the_shared_readers_never_import_publish():
    offenders = {
        str(p.relative_to(PKG)): sorted(m for m in _imports(p) if m.startswith("perfkit.publish")) for p in _files()
    }
    assert len(offenders) >= 10  # every lint module, and the three shared ones, were read
    assert {k: v for k, v in offenders.items() if v} == {}


def test_publish_reads_templates_through_the_shared_module():
    render = _imports(PKG / "publish" / "repo_template.py")
    assert "perfkit.repo.template_text" in render and "perfkit.repo.contribution_files" in render
    assert not any(m.startswith("perfkit.lint") for m in render)
