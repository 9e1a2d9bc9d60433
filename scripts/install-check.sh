#!/usr/bin/env bash
# mcpx installed for real, the usual ways: the packed tarball through `npm install -g` into a temporary
# prefix and `npm install` into a fresh project, then `mcpx --version` and `npx mcpx call` on the bundled
# example server. Minutes on a cold cache (test/e2e/install.test.ts checks the same layouts in seconds).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/mcpx-install-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$root"
[ -f dist/cli.js ] || npm run build
tarball="$work/$(npm pack --pack-destination "$work" --silent --ignore-scripts | tail -1)"
flags=(--prefer-offline --no-audit --no-fund --loglevel=error)

npm install -g --prefix "$work/prefix" "${flags[@]}" "$tarball"
export MCPX_DAEMON=inline MCPX_STATE_DIR="$work/state"
"$work/prefix/bin/mcpx" --version

mkdir "$work/app" && cd "$work/app"
echo '{"name":"app","version":"1.0.0","type":"module"}' > package.json
npm install "${flags[@]}" "$tarball"
echo '{"mcpServers":{"fixture":{"command":"node","args":["node_modules/mcpx/examples/servers/dual-era.mjs","--stdio"]}}}' > mcpx.json
npx --no -- mcpx --version
npx --no -- mcpx call fixture.no_ask text=installed | grep -q installed
echo "install check: ok (global and project)"
