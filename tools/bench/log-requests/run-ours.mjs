// One run of OUR upsert for `pnpm bench log-requests` (log-requests-bench.mjs starts it as a child process
// whose environment holds the request switches under test): reads every batch from local disk first, then,
// through the counting proxy, opens the table with the BUILT package and runs the batches as consecutive
// upserts on that one handle. Before and after the open and each call it sends a marker request to the
// proxy (markers.mjs), so the parent can attribute every recorded request to a phase. Prints one JSON line:
// wall time of the open and of each call, each call's version and its start on the monotonic clock.
//
//   node run-ours.mjs '<json {uri, storageOptions, batches, primaryKeys, partitionKey, proxy}>'
import { stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { LocalFileStore } from "@deltalite/object-store";
import { openParquetReader } from "@deltalite/parquet-stream";
import { Table } from "apache-arrow";
import { sendMarker } from "./markers.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const { DeltaLiteTable } = await import(
  pathToFileURL(resolve(repo, "packages/deltalite/dist/index.js")).href
);

const config = JSON.parse(process.argv[2] ?? "null");
if (!config) {
  console.error("usage: node run-ours.mjs '<json config>'");
  process.exit(2);
}

async function readBatch(file) {
  const reader = await openParquetReader(new LocalFileStore(dirname(file)), basename(file), {
    size: (await stat(file)).size,
  });
  const batches = [];
  for await (const batch of reader.readRowGroups()) batches.push(batch);
  return new Table(batches);
}

async function timed(phase, run) {
  await sendMarker(config.proxy, `start-${phase}`);
  const clockUs = process.hrtime.bigint() / 1000n;
  const started = performance.now();
  const result = await run();
  const wallMs = performance.now() - started;
  await sendMarker(config.proxy, `end-${phase}`);
  // The monotonic clock at the start, in µs: a CPU profile's timestamps (`--cpu-prof`) use the same clock.
  return { result, wallMs, clockUs: Number(clockUs) };
}

const sources = [];
for (const file of config.batches) sources.push(await readBatch(file));
const open = await timed("open", () =>
  DeltaLiteTable.open(config.uri, { storageOptions: config.storageOptions }),
);
const calls = [];
for (const [index, source] of sources.entries()) {
  const options = { primaryKeys: config.primaryKeys };
  if (config.partitionKey) options.partitionKey = config.partitionKey;
  const { result, wallMs, clockUs } = await timed(index + 1, () => open.result.upsert(source, options));
  calls.push({ wallMs, clockUs, version: result.version });
}
console.log(JSON.stringify({ openMs: open.wallMs, calls }));
