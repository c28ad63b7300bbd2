#!/usr/bin/env bash
# The test command: pytest, then the clients nobody here wrote (MCP Inspector, Claude Code).
set -euo pipefail
cd "$(dirname "$0")/.."
# three test processes on two cores: most tests wait on git and child processes, not on the CPU.
# PERFKIT_TEST_WORKERS=0 runs them in one process.
# the client tools first: test_launcher drives Claude Code and the MCP Inspector from .tools/
bash tests/clients/install.sh
status=0
python -m pytest -n "${PERFKIT_TEST_WORKERS:-3}" "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "tests/run.sh: pytest collected no tests; that is a failure" >&2
  exit 1
fi
[ "$status" -eq 0 ] || exit "$status"
bash tests/clients/check.sh
