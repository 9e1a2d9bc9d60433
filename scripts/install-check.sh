#!/usr/bin/env bash
# mcpx installed for real, the usual ways: `npm pack` (its prepack builds dist/), then the tarball through
# `npm install -g --prefix` and `npm install` into a fresh project, dependencies from the registry with npm's
# cache reused and nothing linked to this checkout; then `mcpx --version`, `npx mcpx call` on the bundled example
# server and a strict type-check of a consumer (test/install/install.test.ts). Minutes on a cold cache.
set -euo pipefail
cd "$(dirname "$0")/.."
exec npx vitest run --config vitest.install.config.ts
