// One measured run of deltalite's historyUpsert for `pnpm bench history-upsert` (history-bench.mjs starts it
// as its own child process): reads the batch Parquet into an Arrow Table with parquet-stream's reader, then
// calls the BUILT package's `DeltaLiteTable.open(dir).historyUpsert(batch, options)` and prints one JSON line:
// the call's wall time, this process's OS peak RSS (process.resourceUsage().maxRSS), its RSS just before the
// call, V8's heap / external figures after it, and the returned HistoryUpsertStats. The steps every
// measured run of ours shares are ../lib/ours-child.mjs.
//
//   node history-ours.mjs <table-dir> <batch.parquet> '<json HistoryUpsertOptions>'
import { resolve } from "node:path";
import { importBuiltDeltalite, peakRssMB, readParquetTable, timedCall } from "../lib/ours-child.mjs";

const [tableDir, batchFile, optionsJson] = process.argv.slice(2);
if (!tableDir || !batchFile || !optionsJson) {
  console.error("usage: node history-ours.mjs <table-dir> <batch.parquet> '<json HistoryUpsertOptions>'");
  process.exit(2);
}
const processStarted = performance.now();
const { DeltaLiteTable } = await importBuiltDeltalite();
const source = await readParquetTable(batchFile);
const table = await DeltaLiteTable.open(resolve(tableDir));
const call = await timedCall(() => table.historyUpsert(source, JSON.parse(optionsJson)));
const stats = call.value;
const { heapTotal, external, arrayBuffers } = process.memoryUsage();
const { maintenanceError, ...counts } = stats;
console.log(
  JSON.stringify({
    callMs: call.callMs,
    setupMs: call.startedAt - processStarted,
    peakRssMB: peakRssMB(),
    rssBeforeCallMB: call.rssBeforeCallMB,
    afterCallMB: {
      heapTotal: heapTotal / 1024 / 1024,
      external: external / 1024 / 1024,
      arrayBuffers: arrayBuffers / 1024 / 1024,
    },
    version: stats.version,
    stats: { ...counts, ...(maintenanceError ? { maintenanceError: String(maintenanceError) } : {}) },
  }),
);
