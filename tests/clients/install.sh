#!/usr/bin/env bash
# Install the third-party clients used by check.sh into .tools/ (npm registry only, pinned).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .tools
if [ ! -x .tools/node_modules/.bin/claude ] || [ ! -x .tools/node_modules/.bin/mcp-inspector ]; then
  npm install --prefix .tools --no-audit --no-fund --loglevel=error \
    @anthropic-ai/claude-code@2.1.332 @modelcontextprotocol/inspector@0.15.0
fi
.tools/node_modules/.bin/claude --version
