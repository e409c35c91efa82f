// One measured run of deltalite's upsert for `pnpm bench upsert` (upsert-bench.mjs starts it as its own child
// process): reads the batch Parquet into an Arrow Table with parquet-stream's reader, then calls the BUILT
// package's `DeltaLiteTable.open(dir).upsert(batch, options)` and prints one JSON line: the upsert call's wall
// time, this process's OS peak RSS (process.resourceUsage().maxRSS), its RSS just before the call and the returned UpsertStats.
//
//   node upsert-ours.mjs <table-dir> <batch.parquet> '<json UpsertOptions>'
import { stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { LocalFileStore } from "@deltalite/object-store";
import { openParquetReader } from "@deltalite/parquet-stream";
import { Table } from "apache-arrow";

const here = dirname(fileURLToPath(import.meta.url));
const deltaliteDist = pathToFileURL(resolve(here, "../../deltalite/dist/index.js")).href;

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
console.log(
  JSON.stringify({
    callMs,
    setupMs: started - processStarted,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    rssBeforeCallMB,
    version: stats.version,
    stats,
  }),
);
