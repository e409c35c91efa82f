#!/usr/bin/env bash
# One-shot set-up on a fresh clone: pinned pnpm (never corepack), workspace install and build. Needs only
# Node and npm; where cargo runs, the build also compiles the native Parquet engine (packages/parquet-native). The Python oracle venv the tests use (delta-rs, pyarrow, moto, Spark) is built by the test
# command (tools/test.sh), not here. Safe to run again; every step reuses what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
if [ "$(pnpm --version 2>/dev/null || true)" != "10.34.8" ]; then
  echo "[setup] installing pnpm 10.34.8" >&2
  npm install --global --silent pnpm@10.34.8
fi
pnpm install --frozen-lockfile --reporter=silent
pnpm run --silent build >/dev/null
echo "[setup] ready" >&2
