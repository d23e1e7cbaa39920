#!/usr/bin/env bash
# npm run test:engine: builds the package and the engine (cached), then runs test/e2e/engine with
# PULUMI_ENGINE_BIN, PULUMI_ENGINE_SOURCE and PULUMI_SDK_GENERATOR as npm run engine printed them.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent build
engine=$(bash scripts/engine.sh)
eval "$engine"
[ -n "${PULUMI_ENGINE_BIN:-}" ] || { echo "test:engine: npm run engine printed no PULUMI_ENGINE_BIN" >&2; exit 1; }
export PULUMI_ENGINE_BIN PULUMI_ENGINE_SOURCE PULUMI_SDK_GENERATOR
# test/e2e/engine is left out of `npm test` by jest.config.js; this run names it and keeps the rest of the ignores.
exec npx jest --testPathIgnorePatterns='/node_modules/|/dist/' --maxWorkers=1 test/e2e/engine
