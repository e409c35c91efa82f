// One measured run of deltalite's upsert for `pnpm bench upsert` (upsert-bench.mjs starts it as its own child
// process): reads the batch Parquet into an Arrow Table with parquet-stream's reader, then calls the BUILT
// package's `DeltaLiteTable.open(dir).upsert(batch, options)` and prints one JSON line: the upsert call's wall
// time, this process's OS peak RSS (process.resourceUsage().maxRSS, read as the call returns), its RSS just
// before the call, the wasm writer's memory and V8's heap / external figures after it, and the returned
// UpsertStats. The steps every measured run of ours shares are ../lib/ours-child.mjs.
//
//   node upsert-ours.mjs <table-dir> <batch.parquet> '<json UpsertOptions>'
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  batchRunArgs,
  callFigures,
  memoryAfterCallMB,
  prepareBatchRun,
  timedCall,
} from "../lib/ours-child.mjs";
import { repo } from "../lib/paths.mjs";

// parquet-wasm's linear memory only grows, so its size after the call is a high-water mark: the encoder
// worker's instance (parquet-stream's encoderWasmMemoryBytes) plus this thread's, if it loaded one.
const parquetWasm = pathToFileURL(
  createRequire(resolve(repo, "packages/parquet-stream/package.json")).resolve("parquet-wasm"),
).href;
const { encoderWasmMemoryBytes } = await import(
  pathToFileURL(resolve(repo, "packages/parquet-stream/dist/index.js")).href
);

const args = batchRunArgs("usage: node upsert-ours.mjs <table-dir> <batch.parquet> '<json UpsertOptions>'");
const { processStarted, table, source } = await prepareBatchRun(args);
const call = await timedCall(() => table.upsert(source, args.options));
// The peak RSS is read now, before parquet-wasm is imported for the figure below: on the native engine the call
// never loads it, and loading it raised this process's peak by 8–17 MB in a recent 1M run (BENCHMARKS.md,
// session 35). The original's child reads its peak straight after its call too.
const figures = callFigures(call, processStarted);
const stats = call.value;
const { wasmMemory } = await import(parquetWasm);
console.log(
  JSON.stringify({
    ...figures,
    afterCallMB: {
      wasmMemory: (wasmMemory().buffer.byteLength + (await encoderWasmMemoryBytes())) / 1024 / 1024,
      ...memoryAfterCallMB(),
    },
    version: stats.version,
    stats,
  }),
);
