#!/usr/bin/env bash
# Every check: formatting and lint, the TypeScript build (strict), the Python oracle venv (built once, reused
# while tools/oracle/requirements.txt is unchanged), then all vitest suites. The vitest global
# set-up starts moto_server for the S3 suites and drives delta-rs through the oracle venv. The build comes
# first because some suites use its output: tools/test/publish.test.ts packs the built packages (publint,
# attw, a consumer project) and the benchmark smoke tests run tools/bench/ against dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
pnpm exec biome check .
pnpm exec tsc -b
bash tools/oracle/ensure-venv.sh
pnpm exec vitest run "$@"
