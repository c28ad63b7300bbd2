"""Build the small target repository the publish-pr examples are rendered against.

It stands in for the repo a PR is opened on: a PR template whose headings partly map onto the
description's own parts, a checklist with a box the draft must not tick, a CONTRIBUTING guide
with a title rule, and issue forms (bug, performance, question-less). Usage:

    python examples/publish/target_repo.py OUT_DIR
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

FILES = {
    ".github/PULL_REQUEST_TEMPLATE.md": """\
<!-- Thank you for the contribution. Fill in the sections below; delete none. -->

## What does this PR do?

<!-- Describe the change and link the issue it addresses. -->

## Test Result

<!-- Paste benchmark numbers or logs. -->

## Tests

<!-- Which tests did you add or run? -->

## User impact

<!-- Who is affected by this change, and how? -->

## Checklist

- [ ] I have read the contributing guide.
- [ ] I have added tests that cover my change.
- [ ] The documentation is updated.
- [ ] I confirm this PR was written without the help of AI tools.
""",
    "CONTRIBUTING.md": """\
# Contributing

Open an issue before a large change.

Pull request titles start with a tag in brackets, for example `[perf]`, `[fix]` or `[docs]`.

Sign off every commit (`git commit -s`) to certify the Developer Certificate of Origin.
""",
    ".github/ISSUE_TEMPLATE/bug_report.yml": """\
name: Bug report
description: Something crashes or gives a wrong result
title: "[Bug]: "
labels: ["bug"]
body:
  - type: textarea
    attributes:
      label: Describe the bug
    validations:
      required: true
  - type: textarea
    attributes:
      label: Steps to reproduce
    validations:
      required: true
""",
    ".github/ISSUE_TEMPLATE/performance.yml": """\
name: Performance issue
description: Something is slower, or uses more memory, than it could
title: "[Performance]: "
labels: ["performance"]
body:
  - type: markdown
    attributes:
      value: |
        Thanks for measuring. Numbers and traces help most.
  - type: textarea
    id: observed
    attributes:
      label: Describe the performance issue
      description: What did you run, and what did you see?
    validations:
      required: true
  - type: textarea
    id: logs
    attributes:
      label: What did the logs or the documentation say?
  - type: textarea
    id: env
    attributes:
      label: Environment
      placeholder: GPU model and count, CUDA, PyTorch
  - type: textarea
    id: more
    attributes:
      label: Additional context
""",
    ".github/ISSUE_TEMPLATE/config.yml": "blank_issues_enabled: false\n",
    "funasr/models/paraformer/model.py": "# placeholder source file of the target repo\n",
}


def build(path: Path) -> Path:
    """Create the repository at path (which must not exist yet) and commit its files."""
    path.mkdir(parents=True)
    for rel, text in FILES.items():
        p = path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {
            "GIT_AUTHOR_NAME": "Example",
            "GIT_AUTHOR_EMAIL": "example@example.com",
            "GIT_COMMITTER_NAME": "Example",
            "GIT_COMMITTER_EMAIL": "example@example.com",
            "GIT_AUTHOR_DATE": "1700000000 +0000",
            "GIT_COMMITTER_DATE": "1700000000 +0000",
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": str(path.parent),
        }
    )
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "Example target repository"]):
        subprocess.run(["git", "-C", str(path), *args], check=True, env=env, capture_output=True)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: target_repo.py OUT_DIR")
    print(build(Path(sys.argv[1])))
