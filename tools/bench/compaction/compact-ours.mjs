// One measured run of deltalite's compact for `pnpm bench compact` (compact-bench.mjs starts it as its own
// child process): opens the table with the BUILT packages (@deltalite/delta-log's Snapshot over a
// LocalFileStore), calls @deltalite/compaction's `compact(snapshot, options)` and prints one JSON line: the
// call's wall time, this process's OS peak RSS (process.resourceUsage().maxRSS), its RSS just before the
// call, the committed version and the returned CompactResult.
//
//   node compact-ours.mjs <table-dir> '<json CompactOptions>'
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

const snapshot = await Snapshot.open(new LocalFileStore(resolve(tableDir)));
const rssBeforeCallMB = process.memoryUsage.rss() / 1024 / 1024;
const started = performance.now();
const stats = await compact(snapshot, JSON.parse(optionsJson));
const callMs = performance.now() - started;
const { maintenanceError, ...result } = stats;
console.log(
  JSON.stringify({
    callMs,
    setupMs: started - processStarted,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    rssBeforeCallMB,
    version: stats.version,
    metrics: { ...result, ...(maintenanceError ? { maintenanceError: String(maintenanceError) } : {}) },
  }),
);
