#!/usr/bin/env bash
# Installs the third-party MCP server the tests run against
# (@modelcontextprotocol/server-everything, pinned) into a folder outside the
# repository (default /tmp/ragbench-test-servers, or $RAGBENCH_TEST_SERVERS),
# so the project itself never has a package.json. Needs the npm registry once;
# the tests then run offline with node.
set -euo pipefail
DIR="${RAGBENCH_TEST_SERVERS:-/tmp/ragbench-test-servers}"
VERSION=2026.8.31
ENTRY="$DIR/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [ -f "$ENTRY" ] && grep -q "\"version\": \"$VERSION\"" "$DIR/node_modules/@modelcontextprotocol/server-everything/package.json"; then
  exit 0
fi
mkdir -p "$DIR"
npm install --no-audit --no-fund --prefix "$DIR" "@modelcontextprotocol/server-everything@$VERSION"
