// Where one upsert's CPU and memory go, for profiling a lever before and after (not a benchmark: run it on a
// fresh copy of a `pnpm bench upsert` table, as upsert-ours.mjs is run). Prints one JSON line: the call's wall
// time, the OS peak RSS, the RSS before the call, and the highest RSS, V8 heap, external and ArrayBuffer
// memory this thread saw (sampled every `SAMPLE_MS`, default 25, with the ms into the call each was seen);
// then, on Linux, the CPU each thread of the process spent during the call (/proc/self/task, in thread-id
// order: the main thread, V8's platform workers, the libuv pool, then the encoder workers), and the call's
// start and end on CLOCK_MONOTONIC in seconds (`monotonicSeconds`: the clock `perf record -k CLOCK_MONOTONIC`
// stamps its samples with, so a profile of the whole process can be cut to the call), and the native addon's
// heap high-water mark over the whole process (`nativeHeapPeakMB`: every thread's parquet-rs allocations,
// counted by the addon's allocator; null when the addon is not loaded). UPSERT_STATS=1 adds the call's
// UpsertStats (`stats`).
//
//   node upsert-threads.mjs <table-dir> <batch.parquet> '<json UpsertOptions>'
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { batchRunArgs, prepareBatchRun, timedCall } from "../lib/ours-child.mjs";
import { MB, repo } from "../lib/paths.mjs";

/** The addon's heap high-water mark in MB (the addon is loaded once per process), or null without it. */
function nativeHeapPeakMB() {
  const engine = createRequire(import.meta.url)(resolve(repo, "packages/parquet-native/engine.cjs"));
  return engine.available ? Math.round(engine.wasmMemory().buffer.byteLength / MB) : null;
}

/** CPU ms per thread id of this process so far (empty where /proc is not there). */
function threadCpuMs() {
  const byThread = new Map();
  let tids = [];
  try {
    tids = readdirSync("/proc/self/task");
  } catch {
    return byThread;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      // Fields after the command name: utime and stime (clock ticks, 100 a second) are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      byThread.set(Number(tid), (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return byThread;
}

/** Samples process.memoryUsage() every `everyMs` until stopped; keeps each figure's highest and when. */
function memorySampler(everyMs) {
  const high = { rss: [0, 0], heapUsed: [0, 0], external: [0, 0], arrayBuffers: [0, 0] };
  const started = performance.now();
  const timer = setInterval(() => {
    const usage = process.memoryUsage();
    const at = Math.round(performance.now() - started);
    for (const name of Object.keys(high)) {
      if (usage[name] > high[name][0]) high[name] = [usage[name], at];
    }
  }, everyMs);
  return () => {
    clearInterval(timer);
    return Object.fromEntries(
      Object.entries(high).map(([name, [bytes, at]]) => [name, { MB: Math.round(bytes / MB), atMs: at }]),
    );
  };
}

const args = batchRunArgs(
  "usage: node upsert-threads.mjs <table-dir> <batch.parquet> '<json UpsertOptions>'",
);
const { table, source } = await prepareBatchRun(args);
const before = threadCpuMs();
const stop = memorySampler(Number(process.env.SAMPLE_MS ?? 25));
const callStartNs = process.hrtime.bigint(); // CLOCK_MONOTONIC, as `perf record -k CLOCK_MONOTONIC` stamps
const call = await timedCall(() => table.upsert(source, args.options));
const callEndNs = process.hrtime.bigint();
const highest = stop();
const after = threadCpuMs();
const threadsMs = [...after].sort((a, b) => a[0] - b[0]).map(([tid, ms]) => ms - (before.get(tid) ?? 0));
console.log(
  JSON.stringify({
    callMs: Math.round(call.callMs),
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    rssBeforeCallMB: Math.round(call.rssBeforeCallMB),
    highest,
    threadsCpuMs: threadsMs,
    cpuMs: threadsMs.reduce((sum, ms) => sum + ms, 0),
    monotonicSeconds: [Number(callStartNs) / 1e9, Number(callEndNs) / 1e9],
    nativeHeapPeakMB: nativeHeapPeakMB(),
    ...(process.env.UPSERT_STATS === "1" ? { stats: call.value } : {}),
  }),
);
