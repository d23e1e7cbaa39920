#!/usr/bin/env bash
# npm run test:engine: builds the package and the engine (cached), then runs test/e2e/engine with
# PULUMI_ENGINE_BIN and PULUMI_AZUREAD_PLUGIN as npm run engine printed them.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent build
lines=$(bash scripts/engine.sh | tail -n 2)
bin=$(sed -n 's/^PULUMI_ENGINE_BIN=//p' <<<"$lines")
plugin=$(sed -n 's/^PULUMI_AZUREAD_PLUGIN=//p' <<<"$lines")
[ -n "$bin" ] || { echo "test:engine: npm run engine printed no PULUMI_ENGINE_BIN" >&2; exit 1; }
export PULUMI_ENGINE_BIN="$bin" PULUMI_AZUREAD_PLUGIN="$plugin"
# test/e2e/engine is left out of `npm test` by jest.config.js; this run names it and keeps the rest of the ignores.
exec npx jest --testPathIgnorePatterns='/node_modules/|/dist/' --maxWorkers=1 test/e2e/engine
