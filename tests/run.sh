#!/usr/bin/env bash
# The test command: pytest, then the clients nobody here wrote (MCP Inspector, Claude Code).
# The client checks run even when a pytest test fails; the exit status is the first failure's.
set -euo pipefail
cd "$(dirname "$0")/.."
# three test processes on two cores: most tests wait on git and child processes, not on the CPU.
# PERFKIT_TEST_WORKERS=0 runs them in one process. `--dist loadgroup` keeps each chunk of the
# bad-input table in one process, which computes the chunk once.
# the client tools first: test_launcher drives Claude Code and the MCP Inspector from .tools/
bash tests/clients/install.sh
status=0
# the default run leaves out the extended tests: further points of matrices, seeds and Ray cluster cases whose
# guarantee a default test already checks. PERFKIT_TESTS=all runs them too (README, "Tests").
select=(-m "not extended")
# Python's bytecode caches go to .pycache/ (git ignores it), not beside the sources: the plugin folder
# links server/, so caches there would be copied into every install made from this clone
export PYTHONPYCACHEPREFIX="${PYTHONPYCACHEPREFIX:-$PWD/.pycache}"
# and they are written: with PYTHONDONTWRITEBYTECODE set by the caller, every Python process the tests start
# (MCP servers, CLI runs, workers) compiled mcp, pydantic and pandas from source again, about 4 s of CPU each
unset PYTHONDONTWRITEBYTECODE
[ "${PERFKIT_TESTS:-}" = all ] && select=()
python -m pytest -n "${PERFKIT_TEST_WORKERS:-3}" --dist loadgroup "${select[@]}" "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo "tests/run.sh: pytest collected no tests; that is a failure" >&2
  status=1
fi
[ "$status" -eq 0 ] || echo "tests/run.sh: pytest failed (exit $status); the client checks run anyway" >&2
clients=0
bash tests/clients/check.sh || clients=$?
[ "$clients" -eq 0 ] || echo "tests/run.sh: the client checks failed (exit $clients)" >&2
[ "$status" -ne 0 ] && exit "$status"
exit "$clients"
