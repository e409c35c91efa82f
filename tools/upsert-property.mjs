#!/usr/bin/env node
// The long mode of the upsert property test: `pnpm upsert-property --sequences 2000 [--seed N]` runs that many
// random batch sequences through our upsert and delta-rs MERGE (the test's default, 200, runs in `pnpm test`).
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { sequences: { type: "string", default: "2000" }, seed: { type: "string" } },
});
const env = { ...process.env, DELTALITE_UPSERT_PROPERTY_RUNS: values.sequences };
if (values.seed) env.DELTALITE_UPSERT_PROPERTY_SEED = values.seed;
const run = spawnSync(
  "pnpm",
  ["exec", "vitest", "run", "packages/merge-engine/test/upsert-property.test.ts"],
  { stdio: "inherit", env },
);
process.exit(run.status ?? 1);
