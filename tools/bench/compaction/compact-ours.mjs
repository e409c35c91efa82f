// One measured run of deltalite's compact for `pnpm bench compact` (compact-bench.mjs starts it as its own
// child process): opens the table with the BUILT packages (@deltalite/delta-log's Snapshot over a
// LocalFileStore), calls @deltalite/compaction's `compact(snapshot, options)` and prints one JSON line: the
// call's wall time, this process's OS peak RSS (process.resourceUsage().maxRSS), its RSS just before the
// call, the committed version and the returned CompactResult; and, sampled every 50 ms during the call, the
// peaks of what process.memoryUsage() splits RSS into (V8 heap, ArrayBuffers, parquet-wasm's WebAssembly
// memory, which only grows), each above its pre-call value.
//
//   node compact-ours.mjs <table-dir> '<json CompactOptions>'
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");
const dist = (name) => pathToFileURL(resolve(repo, `packages/${name}/dist/index.js`)).href;

const [tableDir, optionsJson = "{}"] = process.argv.slice(2);
if (!tableDir) {
  console.error("usage: node compact-ours.mjs <table-dir> '<json CompactOptions>'");
  process.exit(2);
}
const processStarted = performance.now();
const { compact } = await import(dist("compaction"));
const { Snapshot } = await import(dist("delta-log"));
const { LocalFileStore } = await import(dist("object-store"));

// The parquet-wasm instance parquet-stream uses (its node build), for the size of its linear memory.
const fromParquetStream = createRequire(resolve(repo, "packages/parquet-stream/package.json"));
const wasmEntry = fromParquetStream
  .resolve("parquet-wasm")
  .replace(/esm\/parquet_wasm\.js$/, "node/parquet_wasm.js");
const { wasmMemory } = await import(pathToFileURL(wasmEntry).href);
const MB = 1024 * 1024;
function memory() {
  const m = process.memoryUsage();
  return {
    heapMB: m.heapTotal / MB,
    arrayBuffersMB: m.arrayBuffers / MB,
    wasmMB: wasmMemory().buffer.byteLength / MB,
  };
}

const snapshot = await Snapshot.open(new LocalFileStore(resolve(tableDir)));
const rssBeforeCallMB = process.memoryUsage.rss() / MB;
const before = memory();
const peaks = { ...before };
const sampler = setInterval(() => {
  for (const [name, value] of Object.entries(memory())) peaks[name] = Math.max(peaks[name], value);
}, 50);
const started = performance.now();
const stats = await compact(snapshot, JSON.parse(optionsJson));
const callMs = performance.now() - started;
clearInterval(sampler);
const aboveBefore = Object.fromEntries(Object.entries(peaks).map(([k, v]) => [k, v - before[k]]));
const { maintenanceError, ...result } = stats;
console.log(
  JSON.stringify({
    callMs,
    setupMs: started - processStarted,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    rssBeforeCallMB,
    peaksAboveBefore: aboveBefore,
    version: stats.version,
    metrics: { ...result, ...(maintenanceError ? { maintenanceError: String(maintenanceError) } : {}) },
  }),
);
