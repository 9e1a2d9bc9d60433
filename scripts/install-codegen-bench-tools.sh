#!/usr/bin/env bash
# Installs json-schema-to-typescript into .tools/jstt (gitignored) so `npm run bench -- codegen` can compare the
# hand-written converter with it on the same 1,000 tools. Not a project dependency. Idempotent; CI can run it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.tools/jstt
version=16.0.0
current=$(node -e "try{process.stdout.write(require('./$dir/node_modules/json-schema-to-typescript/package.json').version)}catch{}")
if [ "$current" = "$version" ]; then
  echo "codegen bench tools: json-schema-to-typescript $version already in $dir"
  exit 0
fi
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"name":"mcpx-codegen-bench-tools","private":true}' > "$dir/package.json"
(cd "$dir" && npm install --no-audit --no-fund --loglevel=error -E "json-schema-to-typescript@$version")
echo "codegen bench tools: json-schema-to-typescript $version in $dir"
