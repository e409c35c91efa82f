// One measured run of deltalite's compact for `pnpm bench compact` (compact-bench.mjs starts it as its own
// child process): opens the table with the BUILT packages (@deltalite/delta-log's Snapshot over a
// LocalFileStore), calls @deltalite/compaction's `compact(snapshot, options)` and prints one JSON line: the
// call's wall time, this process's OS peak RSS (process.resourceUsage().maxRSS), its RSS just before the
// call, the committed version and the returned CompactResult; and, sampled every 50 ms during the call, the
// peaks of what process.memoryUsage() splits RSS into (V8 heap, ArrayBuffers, parquet-wasm's WebAssembly
// memory, which only grows), each above its pre-call value; and, after the call, the encoder worker's
// WebAssembly memory (encoderWasmMB: its high-water mark).
//
//   node compact-ours.mjs <table-dir> '<json CompactOptions>'
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { callFigures, timedCall } from "../lib/ours-child.mjs";
import { MB, repo } from "../lib/paths.mjs";

const dist = (name) => pathToFileURL(resolve(repo, `packages/${name}/dist/index.js`)).href;

const USAGE = "usage: node compact-ours.mjs <table-dir> '<json CompactOptions>'";
const [tableDir, optionsJson = "{}"] = process.argv.slice(2);
if (tableDir === "--help" || tableDir === "-h") {
  console.log(USAGE);
  process.exit(0);
}
if (!tableDir) {
  console.error(USAGE);
  process.exit(2);
}
const processStarted = performance.now();
const { compact } = await import(dist("compaction"));
const { Snapshot } = await import(dist("delta-log"));
const { LocalFileStore } = await import(dist("object-store"));
const { encoderWasmMemoryBytes } = await import(dist("parquet-stream"));

// The parquet-wasm instance parquet-stream uses (its node build), for the size of its linear memory.
const fromParquetStream = createRequire(resolve(repo, "packages/parquet-stream/package.json"));
const wasmEntry = fromParquetStream
  .resolve("parquet-wasm")
  .replace(/esm\/parquet_wasm\.js$/, "node/parquet_wasm.js");
const { wasmMemory } = await import(pathToFileURL(wasmEntry).href);
function memory() {
  const m = process.memoryUsage();
  return {
    heapMB: m.heapTotal / MB,
    arrayBuffersMB: m.arrayBuffers / MB,
    wasmMB: wasmMemory().buffer.byteLength / MB,
  };
}

const snapshot = await Snapshot.open(new LocalFileStore(resolve(tableDir)));
const before = memory();
const peaks = { ...before };
const sampler = setInterval(() => {
  for (const [name, value] of Object.entries(memory())) peaks[name] = Math.max(peaks[name], value);
}, 50);
const call = await timedCall(() => compact(snapshot, JSON.parse(optionsJson)));
clearInterval(sampler);
const stats = call.value;
// The encoder worker's WebAssembly memory (its high-water mark), asked after the call.
const encoderWasmMB = (await encoderWasmMemoryBytes()) / MB;
const aboveBefore = Object.fromEntries(Object.entries(peaks).map(([k, v]) => [k, v - before[k]]));
const { maintenanceError, ...result } = stats;
console.log(
  JSON.stringify({
    ...callFigures(call, processStarted),
    peaksAboveBefore: aboveBefore,
    encoderWasmMB,
    version: stats.version,
    metrics: { ...result, ...(maintenanceError ? { maintenanceError: String(maintenanceError) } : {}) },
  }),
);
