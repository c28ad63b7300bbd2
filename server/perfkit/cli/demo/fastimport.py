"""Write a git history in one `git fast-import` stream: hundreds of commits in well under a second.

The one writer for the demo, the tests and the benches. Lengths in the stream are byte counts
(fast-import reads bytes), so messages and files may hold any text.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Commit:
    message: str
    files: dict[str, str | bytes] = field(default_factory=dict)  # path -> content
    gitlinks: dict[str, str] = field(default_factory=dict)  # path -> submodule commit sha
    deletes: list[str] = field(default_factory=list)
    modes: dict[str, str] = field(default_factory=dict)  # path -> mode of a file in files (default 100644)
    author: str = "perfkit demo <demo@example.com>"
    committer: str | None = None  # default: the author
    branch: str = "main"
    parents: list[int] | None = None  # indices in the commit list; default: the branch's previous commit


def _data(payload: bytes) -> bytes:
    return b"data %d\n%s\n" % (len(payload), payload)


def stream(commits: list[Commit], start_time: int, step: int) -> bytes:
    """The fast-import stream; commit i gets mark :i+1 and the time start_time + (i+1) * step."""
    out: list[bytes] = []
    tips: dict[str, int] = {}
    for i, c in enumerate(commits):
        when = start_time + (i + 1) * step
        committer = c.committer or c.author
        out.append(f"commit refs/heads/{c.branch}\nmark :{i + 1}\n".encode())
        out.append(f"author {c.author} {when} +0000\ncommitter {committer} {when} +0000\n".encode())
        out.append(_data(c.message.encode()))
        parents = c.parents if c.parents is not None else ([tips[c.branch]] if c.branch in tips else [])
        for n, p in enumerate(parents):
            if not 0 <= p < i:
                raise ValueError(f"commit {i}: parent {p} is not an earlier commit")
            out.append(f"{'from' if n == 0 else 'merge'} :{p + 1}\n".encode())
        out += [f"D {path}\n".encode() for path in c.deletes]
        out += [f"M 160000 {sha} {path}\n".encode() for path, sha in c.gitlinks.items()]
        for path, content in c.files.items():
            data = content.encode() if isinstance(content, str) else content
            out.append(f"M {c.modes.get(path, '100644')} inline {path}\n".encode() + _data(data))
        out.append(b"\n")
        tips[c.branch] = i
    return b"".join(out)


def write_history(
    repo: Path,
    commits: list[Commit],
    start_time: int = 1_767_225_600,
    step: int = 3600,
    env: dict[str, str] | None = None,
) -> list[str]:
    """Create repo and write the commits (main must not exist yet), check out main; returns their shas in order."""
    repo.mkdir(parents=True, exist_ok=True)
    if not (repo / ".git").exists():
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env, capture_output=True)
    marks = repo / ".git" / "fast-import-marks"
    subprocess.run(
        ["git", "-C", str(repo), "fast-import", "--quiet", f"--export-marks={marks}"],
        input=stream(commits, start_time, step),
        check=True,
        env=env,
    )
    shas = dict(line.split() for line in marks.read_text().splitlines())
    marks.unlink()
    subprocess.run(["git", "-C", str(repo), "reset", "-q", "--hard", "main"], check=True, env=env)
    return [shas[f":{i}"] for i in range(1, len(commits) + 1)]
