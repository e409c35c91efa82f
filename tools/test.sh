#!/usr/bin/env bash
# Every check: formatting and lint, the TypeScript build (strict), the Python oracle venv (built once, reused
# while tools/oracle/requirements.txt is unchanged), then all vitest suites. The vitest global
# set-up starts moto_server for the S3 suites and drives delta-rs through the oracle venv. The build comes
# first because some suites use its output: tools/test/publish.test.ts packs the built packages (publint,
# attw, a consumer project) and the benchmark smoke tests run tools/bench/ against dist/. The suites run on
# the native Parquet engine (@deltalite/parquet-native) when setup built it; the encoder's own suites, the
# upsert's parity and passthrough suites and the key value-hash suites then run once more on parquet-wasm,
# the portable fallback (where the probe reads every key column in JavaScript), and the addon's own Rust unit
# tests (its allocator) run with cargo.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1
pnpm exec biome check .
pnpm exec tsc -b
bash tools/oracle/ensure-venv.sh
pnpm exec vitest run "$@"
if [ "$#" -eq 0 ] && node -e 'process.exit(require("./packages/parquet-native/engine.cjs").available ? 0 : 1)'; then
  (cd packages/parquet-native && cargo test --release --locked --lib --quiet)
  DELTALITE_PARQUET_ENGINE=wasm pnpm exec vitest run packages/parquet-stream \
    packages/merge-engine/test/upsert-parity.test.ts packages/merge-engine/test/upsert-passthrough.test.ts \
    packages/merge-engine/test/value-hashes-property.test.ts packages/merge-engine/test/key-roundtrip-parquet.test.ts
fi
