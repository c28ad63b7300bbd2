import os
import re

title = os.environ.get("PR_TITLE", "").strip()

allowed_modules = ["trainer", "rollout", "perf"]
allowed_modules += ["data", "ckpt", "misc"]
allowed_types = ["feat", "fix", "refactor", "chore", "test"]

m = re.match(r"^(?:\[BREAKING\])?\[([a-z_, ]+)\]\s+(\w+):\s+.+$", title)
if not m:
    raise SystemExit("Invalid PR title")
if any(x.strip() not in allowed_modules for x in m.group(1).split(",")):
    raise SystemExit("Invalid module")
if m.group(2) not in allowed_types:
    raise SystemExit("Invalid type")
