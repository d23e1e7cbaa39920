#!/usr/bin/env bash
# npm run test:engine: builds the package and the engine (cached), then runs test/e2e/engine
# with the engine's directory as PULUMI_ENGINE_BIN.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent build
line=$(bash scripts/engine.sh | tail -n 1)
export PULUMI_ENGINE_BIN="${line#PULUMI_ENGINE_BIN=}"
# test/e2e/engine is left out of `npm test` by jest.config.js; this run names it and keeps the rest of the ignores.
exec npx jest --testPathIgnorePatterns='/node_modules/|/dist/' --maxWorkers=1 test/e2e/engine
