// One measured run of deltalite's upsert for `pnpm bench upsert` (upsert-bench.mjs starts it as its own child
// process): reads the batch Parquet into an Arrow Table with parquet-stream's reader, then calls the BUILT
// package's `DeltaLiteTable.open(dir).upsert(batch, options)` and prints one JSON line: the upsert call's wall
// time, this process's OS peak RSS (process.resourceUsage().maxRSS), its RSS just before the call, the wasm writer's
// memory and V8's heap / external figures after it, and the returned UpsertStats.
//
//   node upsert-ours.mjs <table-dir> <batch.parquet> '<json UpsertOptions>'
import { stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { LocalFileStore } from "@deltalite/object-store";
import { openParquetReader } from "@deltalite/parquet-stream";
import { Table } from "apache-arrow";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");
const deltaliteDist = pathToFileURL(resolve(repo, "packages/deltalite/dist/index.js")).href;
// parquet-wasm as the writer loads it (resolved from parquet-stream, so the same module instance): its linear
// memory only grows, so its size after the call is the writer's high-water mark.
const parquetWasm = pathToFileURL(
  createRequire(resolve(repo, "packages/parquet-stream/package.json")).resolve("parquet-wasm"),
).href;

const [tableDir, batchFile, optionsJson] = process.argv.slice(2);
if (!tableDir || !batchFile || !optionsJson) {
  console.error("usage: node upsert-ours.mjs <table-dir> <batch.parquet> '<json UpsertOptions>'");
  process.exit(2);
}
const processStarted = performance.now();
const { DeltaLiteTable } = await import(deltaliteDist);

const batchStore = new LocalFileStore(dirname(resolve(batchFile)));
const { size } = await stat(batchFile);
const reader = await openParquetReader(batchStore, basename(batchFile), { size });
const batches = [];
for await (const batch of reader.readRowGroups()) batches.push(batch);
const source = new Table(batches);

const table = await DeltaLiteTable.open(resolve(tableDir));
const rssBeforeCallMB = process.memoryUsage.rss() / 1024 / 1024;
const started = performance.now();
const stats = await table.upsert(source, JSON.parse(optionsJson));
const callMs = performance.now() - started;
const { wasmMemory } = await import(parquetWasm);
const { heapTotal, external, arrayBuffers } = process.memoryUsage();
console.log(
  JSON.stringify({
    callMs,
    setupMs: started - processStarted,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    rssBeforeCallMB,
    afterCallMB: {
      wasmMemory: wasmMemory().buffer.byteLength / 1024 / 1024,
      heapTotal: heapTotal / 1024 / 1024,
      external: external / 1024 / 1024,
      arrayBuffers: arrayBuffers / 1024 / 1024,
    },
    version: stats.version,
    stats,
  }),
);
