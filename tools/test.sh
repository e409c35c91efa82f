#!/usr/bin/env bash
# Every check: formatting and lint, the TypeScript build (strict), then all vitest suites. The vitest global
# set-up starts moto_server for the S3 suites and drives delta-rs through the oracle venv.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
pnpm exec biome check .
pnpm exec tsc -b
pnpm exec vitest run "$@"
