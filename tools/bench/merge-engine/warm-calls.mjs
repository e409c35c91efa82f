// `pnpm bench upsert-calls`: a process's first upsert against its later ones, ours beside the original
// deltalite 0.1.15 (not a test). `pnpm bench upsert` times one call per process, which for us includes the
// first-use costs a long-running sync pays once (V8's JIT on the main thread, the encoder workers'
// WebAssembly tiering: merge-engine BENCHMARKS.md, session 9). Here each child process upserts the same
// batch into --calls fresh copies of the pristine table, one after another, and reports each call's time;
// --processes children per engine, alternating ours / the original. Printed: per engine and call number the
// median and range of the call time, the ratio ours / original per call number, and whether every call of
// both engines updated, inserted, removed and added the same counts (each call starts from the same bytes,
// so they must; `pnpm bench upsert` is the command that compares whole result tables with delta-rs MERGE).
//
//   pnpm exec tsc -b && pnpm bench upsert [--shape recent] --sizes 1000000   (makes the table and batch)
//   pnpm bench upsert-calls [--table <pristine dir>] [--batch <batch.parquet>] [--processes 3] [--calls 2]
//     [--dir /tmp/deltalite-bench/calls] [--<upsert-option> value …]
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { runJsonChild } from "../lib/child-json.mjs";
import { parseBenchFlags } from "../lib/flags.mjs";
import { freshCopy } from "../lib/tables.mjs";
import { prepareOriginal } from "../original/contender.mjs";

const here = import.meta.dirname;
const TABLES = "/tmp/deltalite-bench/upsert-r1000000-p8-f30-s42";
const usage =
  "pnpm bench upsert-calls [--table <pristine dir>] [--batch <batch.parquet>] [--processes 3] [--calls 2] [--dir D] [--<upsert-option> value …]";
const { flags, knobs } = parseBenchFlags(process.argv.slice(2), {
  defaults: {
    table: join(TABLES, "pristine"),
    batch: join(TABLES, "batch-recent-b0.01.parquet"),
    processes: "3",
    calls: "2",
    dir: "/tmp/deltalite-bench/calls",
  },
  usage,
});
const processes = Number(flags.processes);
const calls = Number(flags.calls);

const original = prepareOriginal();
const engines = {
  ours: {
    command: process.execPath,
    args: (dirs) => [
      join(here, "upsert-ours-calls.mjs"),
      flags.batch,
      JSON.stringify({ primaryKeys: ["id"], partitionKey: "day", ...knobs }),
      ...dirs,
    ],
    env: process.env,
    counts: (s) => [s.rowsUpdated, s.rowsInserted, s.filesRemoved, s.filesAdded],
    callStats: (r) => r.stats,
  },
};
if (!original.skipped) {
  engines["original 0.1.15"] = {
    command: original.command,
    args: (dirs) => [join(here, "../original/upsert-original.py"), "calls", flags.batch, ...dirs],
    env: original.env,
    counts: (m) => [m.rows_updated, m.rows_inserted, m.files_removed, m.files_added],
    callStats: (r) => r.metrics,
  };
}

/** One child of `name`: `calls` fresh copies upserted in one process; per call its ms and counts. */
async function runProcess(name, engine) {
  const dirs = [];
  for (let call = 0; call < calls; call++)
    dirs.push(await freshCopy(flags.table, flags.dir, `${name}-${call}`));
  const result = await runJsonChild(engine.command, engine.args(dirs), { env: engine.env });
  return result.callsMs.map((ms, call) => ({ ms, counts: engine.counts(engine.callStats(result)[call]) }));
}

await rm(flags.dir, { recursive: true, force: true });
await mkdir(flags.dir, { recursive: true });
const runs = Object.fromEntries(Object.keys(engines).map((name) => [name, []]));
for (let p = 0; p < processes; p++) {
  const order = Object.keys(engines);
  if (p % 2 === 1) order.reverse();
  for (const name of order) {
    console.error(`process ${p + 1}/${processes}: ${name} …`);
    runs[name].push(await runProcess(name, engines[name]));
  }
}
await rm(flags.dir, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `table ${flags.table}\nbatch ${flags.batch}\n${processes} processes per engine, ${calls} calls each`,
);
console.log("engine            call  median s  range s");
const medians = {};
for (const [name, list] of Object.entries(runs)) {
  medians[name] = [];
  for (let call = 0; call < calls; call++) {
    const secs = list.map((run) => run[call].ms / 1000);
    medians[name].push(median(secs));
    const range = `${Math.min(...secs).toFixed(2)}–${Math.max(...secs).toFixed(2)}`;
    console.log(
      `${name.padEnd(17)} ${String(call + 1).padStart(4)}  ${median(secs).toFixed(2).padStart(8)}  ${range}`,
    );
  }
}
if (runs["original 0.1.15"]) {
  const ratios = medians.ours.map(
    (m, call) => `call ${call + 1} ${(m / medians["original 0.1.15"][call]).toFixed(2)}`,
  );
  console.log(`ours / original call time: ${ratios.join(", ")}`);
} else console.log(`original 0.1.15: not run (${original.skipped})`);
const all = Object.values(runs).flatMap((list) =>
  list.flatMap((run) => run.map((call) => JSON.stringify(call.counts))),
);
const same = new Set(all).size === 1;
console.log(
  `same counts (rows updated, inserted, files removed, added) in every call: ${same ? "yes" : "no"} ${all[0]}`,
);
if (!same) process.exit(1);
