#!/usr/bin/env bash
# Drive perfkit with clients nobody here wrote: the MCP Inspector CLI and Claude Code itself.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x .tools/node_modules/.bin/claude ] || bash tests/clients/install.sh
python tests/clients/check_clients.py
