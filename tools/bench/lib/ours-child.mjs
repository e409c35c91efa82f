// Owns what every measured run of OUR engine (a `*-ours.mjs` child of a benchmark) does the same way: take
// its `<table-dir> <batch.parquet> '<json options>'` arguments, load the BUILT `deltalite` package, read the
// batch Parquet file into one Arrow Table with parquet-stream's reader and open the table (before the call,
// so neither is timed), time the call with the RSS just before it, and report the call's figures (the process's OS peak RSS is
// process.resourceUsage().maxRSS) and V8's memory after it.
import { stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { LocalFileStore } from "@deltalite/object-store";
import { openParquetReader } from "@deltalite/parquet-stream";
import { Table } from "apache-arrow";

import { MB, repo } from "./paths.mjs";

/** The built `deltalite` package (packages/deltalite/dist; run `pnpm exec tsc -b` first). */
export function importBuiltDeltalite() {
  return import(pathToFileURL(resolve(repo, "packages/deltalite/dist/index.js")).href);
}

/** The whole of the Parquet file `file` as one Arrow Table (its row groups as the batches). */
export async function readParquetTable(file) {
  const store = new LocalFileStore(dirname(resolve(file)));
  const { size } = await stat(file);
  const reader = await openParquetReader(store, basename(file), { size });
  const batches = [];
  for await (const batch of reader.readRowGroups()) batches.push(batch);
  return new Table(batches);
}

/** The run's arguments `<table-dir> <batch.parquet> '<json options>'`; without all three, `usage` and exit 2. */
export function batchRunArgs(usage) {
  const [tableDir, batchFile, optionsJson] = process.argv.slice(2);
  if (!tableDir || !batchFile || !optionsJson) {
    console.error(usage);
    process.exit(2);
  }
  return { tableDir: resolve(tableDir), batchFile, options: JSON.parse(optionsJson) };
}

/** What a run does before its timed call: the built package loaded, the batch read, the table opened. */
export async function prepareBatchRun({ tableDir, batchFile }) {
  const processStarted = performance.now();
  const { DeltaLiteTable } = await importBuiltDeltalite();
  const source = await readParquetTable(batchFile);
  const table = await DeltaLiteTable.open(tableDir);
  return { processStarted, table, source };
}

/**
 * Runs `call` and returns its value, its wall time, its CPU time (user + system, every thread of the process:
 * process.cpuUsage), when it started and the RSS just before it.
 */
export async function timedCall(call) {
  const rssBeforeCallMB = process.memoryUsage.rss() / MB;
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  const value = await call();
  const callMs = performance.now() - startedAt;
  const cpu = process.cpuUsage(cpuBefore);
  return { value, callMs, callCpuMs: (cpu.user + cpu.system) / 1000, startedAt, rssBeforeCallMB };
}

/** The figures every run prints of its timed call: wall and CPU time, setup before it, OS peak RSS, RSS before it. */
export function callFigures(call, processStarted) {
  return {
    callMs: call.callMs,
    callCpuMs: call.callCpuMs,
    setupMs: call.startedAt - processStarted,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    rssBeforeCallMB: call.rssBeforeCallMB,
  };
}

/** V8's heap and the memory outside it, in MB, now (after the call). */
export function memoryAfterCallMB() {
  const { heapTotal, external, arrayBuffers } = process.memoryUsage();
  return { heapTotal: heapTotal / MB, external: external / MB, arrayBuffers: arrayBuffers / MB };
}
