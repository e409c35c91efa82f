// One measured run of deltalite's historyUpsert for `pnpm bench history-upsert` (history-bench.mjs starts it
// as its own child process): reads the batch Parquet into an Arrow Table with parquet-stream's reader, then
// calls the BUILT package's `DeltaLiteTable.open(dir).historyUpsert(batch, options)` and prints one JSON line:
// the call's wall time, this process's OS peak RSS (process.resourceUsage().maxRSS), its RSS just before the
// call, V8's heap / external figures after it, and the returned HistoryUpsertStats. The steps every
// measured run of ours shares are ../lib/ours-child.mjs.
//
//   node history-ours.mjs <table-dir> <batch.parquet> '<json HistoryUpsertOptions>'
import {
  batchRunArgs,
  callFigures,
  memoryAfterCallMB,
  prepareBatchRun,
  timedCall,
} from "../lib/ours-child.mjs";

const args = batchRunArgs(
  "usage: node history-ours.mjs <table-dir> <batch.parquet> '<json HistoryUpsertOptions>'",
);
const { processStarted, table, source } = await prepareBatchRun(args);
const call = await timedCall(() => table.historyUpsert(source, args.options));
const stats = call.value;
const { maintenanceError, ...counts } = stats;
console.log(
  JSON.stringify({
    ...callFigures(call, processStarted),
    afterCallMB: memoryAfterCallMB(),
    version: stats.version,
    stats: { ...counts, ...(maintenanceError ? { maintenanceError: String(maintenanceError) } : {}) },
  }),
);
