// The `pnpm bench <name> [args…]` dispatcher: owns the map from benchmark name to script. Each benchmark is a
// standalone Node script run in its own process with the remaining arguments; `pnpm bench` alone lists them.
// To add one, add an entry below (script path relative to this folder or absolute, plus a one-line summary).
import { spawn, spawnSync } from "node:child_process";
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** name → { script, summary, usage } */
export const BENCHMARKS = {
  parquet: {
    script: "parquet-stream/parquet-bench.mjs",
    summary:
      "streaming Parquet write + read, local disk and moto S3: peak RSS, rows/s, MB/s beside pyarrow and delta-rs",
    usage: "pnpm bench parquet [--sizes 1000000,10000000] [--targets local,s3]",
  },
  upsert: {
    script: "merge-engine/upsert-bench.mjs",
    summary:
      "upsert of a batch into partitioned wide-row tables beside the original deltalite 0.1.15 and delta-rs MERGE, plus a raw-copy floor: wall time, peak RSS, files/bytes rewritten, identical results",
    usage:
      "pnpm bench upsert [--sizes 1000000,4000000] [--repeat N] [--shape uniform|recent] [--cdf] [--batch-fraction 0.01 | --batch-rows N] [--dir D] [--<upsert-option> value …]",
  },
  "upsert-calls": {
    script: "merge-engine/warm-calls.mjs",
    summary:
      "a process's first upsert against its later ones (first-use costs: JIT, WebAssembly tiering), ours beside the original deltalite 0.1.15, on a `pnpm bench upsert` table",
    usage:
      "pnpm bench upsert-calls [--table <pristine dir>] [--batch <batch.parquet>] [--processes 3] [--calls 2] [--dir D] [--<upsert-option> value …]",
  },
  compact: {
    script: "compaction/compact-bench.mjs",
    summary:
      "compaction of a partition of small files beside delta-rs optimize.compact and the original deltalite 0.1.15 compact: wall time, peak RSS, its growth when the partition doubles, identical results",
    usage:
      "pnpm bench compact [--sizes 1GB,2GB] [--file-mb 8] [--dir D] [--seed 7] [--json out.json] [--<compact-option> value …]",
  },
  "log-requests": {
    script: "log-requests/log-requests-bench.mjs",
    summary:
      "S3 requests per upsert (GET / HEAD / LIST / PUT, _delta_log/ vs data) on the upstream scenarios through a counting proxy with added latency: ours with the request switches on and off beside the original deltalite 0.1.15, with the issue's goal checks",
    usage:
      "pnpm bench log-requests [--scenarios median,insert-heavy,tail23,no-checkpoint,hourly] [--calls 3] [--latency-ms 20] [--repeat 1] [--engines ours,ours-off,original] [--trace] [--json out.json]",
  },
  "history-upsert": {
    script: "scd2-history/history-bench.mjs",
    summary:
      "historyUpsert of a fixed batch into an SCD2 history table growing 1x -> 4x beside the delta-rs recipe (MERGE closing the open rows + append): wall time, peak RSS and its growth, identical results",
    usage:
      "pnpm bench history-upsert [--sizes 250000,1000000] [--batch-rows 20000] [--dir D] [--seed 7] [--json out.json] [--<history-upsert-option> value …]",
  },
};

const [name, ...args] = process.argv.slice(2);
const bench = name === undefined ? undefined : BENCHMARKS[name];
if (!bench) {
  if (name !== undefined && name !== "--help" && name !== "-h") {
    console.error(`unknown benchmark ${JSON.stringify(name)}\n`);
  }
  console.log("Available benchmarks (pnpm bench <name> [options]):\n");
  for (const [key, b] of Object.entries(BENCHMARKS)) {
    console.log(`  ${key.padEnd(10)} ${b.summary}\n  ${"".padEnd(10)} ${b.usage}\n`);
  }
  process.exit(name === undefined || name === "--help" || name === "-h" ? 0 : 1);
}
// Every benchmark runs beside delta-rs / pyarrow: build the oracle venv first (a no-op once it exists).
const venv = spawnSync("bash", [resolve(here, "../oracle/ensure-venv.sh")], { stdio: "inherit" });
if (venv.status !== 0) process.exit(venv.status ?? 1);
const script = isAbsolute(bench.script) ? bench.script : resolve(here, bench.script);
const child = spawn(process.execPath, [script, ...args], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
