#!/usr/bin/env bash
# Drive perfkit with clients nobody here wrote: the MCP Inspector CLI and Claude Code itself, including
# the plugin's very first start in a fresh HOME with only python3, git and node (Connected on the first call).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x .tools/node_modules/.bin/claude ] || bash tests/clients/install.sh
python tests/clients/check_clients.py
