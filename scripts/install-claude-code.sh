#!/usr/bin/env bash
# Installs the real Claude Code (npm's @anthropic-ai/claude-code with its native linux-x64 binary, ~370 MB) into
# .tools/claude-code (gitignored) for `npm run test:claude-code`. Not a dependency. Idempotent; CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.tools/claude-code
version=2.1.328

installed() { node -e "try{process.stdout.write(require('./$dir/node_modules/@anthropic-ai/claude-code/package.json').version)}catch{}"; }

if [ "$(installed)" = "$version" ]; then
  echo "claude-code: $version already in $dir"
  exit 0
fi
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"name":"mcpx-claude-code","private":true}' > "$dir/package.json"
echo "claude-code: installing @anthropic-ai/claude-code@$version into $dir"
(cd "$dir" && npm install --no-audit --no-fund --loglevel=error -E "@anthropic-ai/claude-code@$version")
echo "claude-code: $dir/node_modules/.bin/claude"
