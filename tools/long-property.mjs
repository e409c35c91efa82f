#!/usr/bin/env node
// The long modes of the differential property suites that `pnpm test` runs at 200 sequences:
//   pnpm upsert-property  [--sequences 2000] [--seed N]   our upsert against delta-rs MERGE
//   pnpm history-property [--sequences 2000] [--seed N]   our historyUpsert against the SCD2 reference model
// (both are `node tools/long-property.mjs <suite> …`). The suite reads its run count and seed from the
// environment variables named below.
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";

const SUITES = {
  upsert: {
    file: "packages/merge-engine/test/upsert-property.test.ts",
    runs: "DELTALITE_UPSERT_PROPERTY_RUNS",
    seed: "DELTALITE_UPSERT_PROPERTY_SEED",
  },
  history: {
    file: "packages/scd2-history/test/history-differential.test.ts",
    runs: "DELTALITE_SCD2_SEQUENCES",
    seed: "DELTALITE_SCD2_SEED",
  },
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { sequences: { type: "string", default: "2000" }, seed: { type: "string" } },
});
const suite = SUITES[positionals[0]];
if (!suite || positionals.length !== 1 || !/^\d+$/.test(values.sequences)) {
  console.error(
    `usage: node tools/long-property.mjs <${Object.keys(SUITES).join("|")}> [--sequences N] [--seed N]`,
  );
  process.exit(2);
}
const env = { ...process.env, [suite.runs]: values.sequences };
if (values.seed) env[suite.seed] = values.seed;
const run = spawnSync("pnpm", ["exec", "vitest", "run", suite.file], { stdio: "inherit", env });
process.exit(run.status ?? 1);
