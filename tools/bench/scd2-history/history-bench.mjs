// `pnpm bench history-upsert`: memory and speed of deltalite's historyUpsert beside the two-step delta-rs
// recipe (a MERGE closing the open rows, then an append of the new versions) on the same SCD2 history table
// (not a test). For each size it generates (once, cached under --dir, default /tmp/deltalite-bench) a history
// table of that many rows and a batch of --batch-rows rows (history_bench.py `table` / `batch`: the same batch
// size for every table). Each contender then runs on its own copy of the pristine table, each step in its own
// child process:
//   deltalite historyUpsert   history-ours.mjs: the built `DeltaLiteTable.historyUpsert` (options from any
//                             other `--kebab-name value` flag, camelCased); one commit
//   delta-rs recipe           history_bench.py close (MERGE) then history_bench.py append; two commits
// Then delta-rs reads both results and compares them partition by partition (sorted by id, seq), or the bench
// exits 1 and keeps the tables under <dir>/work-history.
//
//   pnpm exec tsc -b && pnpm bench history-upsert [--sizes 1000000,4000000] [--batch-rows 20000] [--repeat N]
//     [--dir D] [--seed 7] [--json out.json] [--<history-upsert-option> value …]
//   e.g. pnpm bench history-upsert --sizes 40000 --batch-rows 2000     (a quick run while developing)
//
// With --repeat N each contender runs N times per size (the order alternates: ours first, then the recipe
// first, …) and the figures printed are medians, each run's figures listed after them.
// Printed per size and contender: call s (the calls alone; the recipe's as merge + append), peak RSS MB (the
// child's OS maxrss; the recipe's is the larger of its two processes), RSS pre-call MB, and ours' counters.
// Then ours/delta-rs (peak RSS, call time) and, from the first size to each larger one, each contender's
// peak RSS growth while the table grows (ours must grow ≤ 10%).
import { mkdir } from "node:fs/promises";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { finishRun, runMain, writeJsonReport } from "../lib/bench-main.mjs";
import { runJsonChild } from "../lib/child-json.mjs";
import { parseBenchFlags } from "../lib/flags.mjs";
import { MB, oraclePython as python, repo } from "../lib/paths.mjs";
import { cached, exists, freshCopy } from "../lib/tables.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const pythonScript = join(here, "history_bench.py");
const OURS = "deltalite historyUpsert";
const DELTA_RS = "delta-rs MERGE + append";
const DEFAULTS = {
  sizes: "1000000,4000000",
  repeat: "1",
  "batch-rows": "20000",
  dir: "/tmp/deltalite-bench",
  seed: "7",
  json: "",
};
const HISTORY_OPTIONS = {
  keyColumns: ["id"],
  orderColumn: "seq",
  validFromColumn: "valid_from",
  validToColumn: "valid_to",
  partitionColumn: "part",
  currentPartition: "current",
};

const USAGE =
  "pnpm bench history-upsert [--sizes 1000000,4000000] [--batch-rows 20000] [--repeat N] [--dir D] [--seed 7]\n" +
  "  [--json out.json] [--<history-upsert-option> value …]";

const parseFlags = (argv) => parseBenchFlags(argv, { defaults: DEFAULTS, usage: USAGE });

/** The cached pristine table and batch of one size (generated when missing; a half-made one is never kept). */
async function ensureTable(flags, rows) {
  const key = `history-r${rows}-b${flags["batch-rows"]}-s${flags.seed}`;
  const folder = join(flags.dir, key);
  const pristine = join(folder, "pristine");
  const batch = join(folder, "batch.parquet");
  await mkdir(folder, { recursive: true });
  const meta = await cached(join(folder, "table.json"), pristine, `${pristine}.partial`, async (partial) => {
    console.error(`generating ${key} (once; cached in ${flags.dir}) …`);
    const seed = Number(flags.seed);
    const made = await runJsonChild(python, [
      pythonScript,
      "table",
      JSON.stringify({ out: partial, rows, seed }),
    ]);
    const config = { out: batch, rows, batch_rows: Number(flags["batch-rows"]), seed };
    made.batch = await runJsonChild(python, [pythonScript, "batch", JSON.stringify(config)]);
    console.error(
      `generated ${key}: ${made.files} files (${made.currentFiles} current), ${made.tableSeconds.toFixed(0)} s`,
    );
    return made;
  });
  return { rows, pristine, batch, meta };
}

async function runOurs(table, workDir, knobs) {
  const tableDir = await freshCopy(table.pristine, workDir, OURS);
  const load1 = loadavg()[0];
  const options = JSON.stringify({ ...HISTORY_OPTIONS, ...knobs });
  const r = await runJsonChild(process.execPath, [
    join(here, "history-ours.mjs"),
    tableDir,
    table.batch,
    options,
  ]);
  if (!r.stats.committed || r.version !== table.meta.version + 1) {
    throw new Error(`${OURS} left version ${r.version}, expected one commit on ${table.meta.version}`);
  }
  return { contender: OURS, tableDir, load1, callMs: r.callMs, steps: [r], ...pick(r) };
}

async function runRecipe(table, workDir) {
  const tableDir = await freshCopy(table.pristine, workDir, DELTA_RS);
  const load1 = loadavg()[0];
  const steps = [];
  for (const step of ["close", "append"]) {
    steps.push(await runJsonChild(python, [pythonScript, step, tableDir, table.batch]));
  }
  const worst = steps.reduce((a, b) => (b.peakRssMB > a.peakRssMB ? b : a));
  const callMs = steps.reduce((sum, s) => sum + s.callMs, 0);
  return { contender: DELTA_RS, tableDir, load1, callMs, steps, ...pick(worst) };
}

const pick = (r) => ({ peakRssMB: r.peakRssMB, rssBeforeCallMB: r.rssBeforeCallMB });

async function measureSize(table, workDir, knobs, repeat) {
  const runs = { [OURS]: [], [DELTA_RS]: [] };
  let check;
  for (let i = 0; i < repeat; i++) {
    const order = i % 2 === 0 ? [OURS, DELTA_RS] : [DELTA_RS, OURS];
    const done = {};
    for (const contender of order) {
      console.error(`${table.rows} rows, run ${i + 1}/${repeat}: ${contender} …`);
      done[contender] =
        contender === OURS ? await runOurs(table, workDir, knobs) : await runRecipe(table, workDir);
      runs[contender].push(done[contender]);
    }
    check = await runJsonChild(python, [
      pythonScript,
      "verify",
      done[OURS].tableDir,
      done[DELTA_RS].tableDir,
    ]);
    if (!check.identical) break;
  }
  const results = [medianRun(runs[OURS]), medianRun(runs[DELTA_RS])];
  return { rows: table.rows, meta: table.meta, results, identical: check.identical, check };
}

/** The runs' median figures (each figure its own median), with the median-RSS run's steps and every run. */
function medianRun(runs) {
  const median = (pick) => {
    const xs = runs.map(pick).sort((a, b) => a - b);
    const mid = Math.floor(xs.length / 2);
    return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
  };
  const byRss = [...runs].sort((a, b) => a.peakRssMB - b.peakRssMB);
  return {
    ...byRss[Math.floor((byRss.length - 1) / 2)],
    callMs: median((r) => r.callMs),
    peakRssMB: median((r) => r.peakRssMB),
    rssBeforeCallMB: median((r) => r.rssBeforeCallMB),
    runs: runs.map((r) => ({ peakRssMB: r.peakRssMB, callMs: r.callMs, load1: r.load1 })),
  };
}

const pad = (cells, widths) => cells.map((c, i) => String(c).padStart(widths[i])).join("  ");

function printSize(s) {
  const m = s.meta;
  console.log(
    `\n${s.rows} rows (${m.keys} keys, ${m.files} files, ${(m.tableBytes / MB).toFixed(0)} MB; current partition ${m.currentFiles} files, ${(m.currentBytes / MB).toFixed(0)} MB); batch ${m.batch.rows} rows (${m.batch.updates} new versions, ${m.batch.inserts} new keys)`,
  );
  const widths = [24, 16, 11, 15, 5];
  console.log(pad(["contender", "call s", "peak RSS MB", "RSS pre-call MB", "load"], widths));
  for (const r of s.results) {
    const calls =
      r.runs.length > 1
        ? (r.callMs / 1000).toFixed(1)
        : r.steps.map((x) => (x.callMs / 1000).toFixed(1)).join(" + ");
    const cells = [
      r.contender,
      calls,
      r.peakRssMB.toFixed(0),
      r.rssBeforeCallMB.toFixed(0),
      r.load1.toFixed(1),
    ];
    console.log(pad(cells, widths));
  }
  if (s.results[0].runs.length > 1) {
    console.log(`medians of ${s.results[0].runs.length} runs; each run's peak RSS MB / call s (1-min load):`);
    for (const r of s.results) {
      const each = r.runs.map(
        (x) => `${x.peakRssMB.toFixed(0)} / ${(x.callMs / 1000).toFixed(1)} (${x.load1.toFixed(1)})`,
      );
      console.log(`  ${r.contender}: ${each.join(", ")}`);
    }
  }
  const st = s.results[0].steps[0].stats;
  console.log(
    `ours: versionsOpened ${st.versionsOpened}, versionsClosed ${st.versionsClosed}, files probed ${st.filesProbed}, removed ${st.filesRemoved}, added ${st.filesAdded}, rows copied ${st.rowsCopied}; probe ${(st.probeMs / 1000).toFixed(1)} s, rewrite ${(st.rewriteMs / 1000).toFixed(1)} s`,
  );
  console.log(`results identical (delta-rs reads both, per partition): ${s.identical ? "yes" : "no"}`);
  if (!s.identical) console.log(JSON.stringify(s.check.partitions));
}

function printSummary(summary) {
  for (const s of summary) printSize(s);
  console.log("");
  for (const s of summary) {
    const [ours, recipe] = s.results;
    console.log(
      `${s.rows} rows: ours/delta-rs peak RSS ${(ours.peakRssMB / recipe.peakRssMB).toFixed(2)}, call time ${(ours.callMs / recipe.callMs).toFixed(2)}`,
    );
  }
  const first = summary[0];
  for (const s of summary.slice(1)) {
    const factor = s.rows / first.rows;
    for (const r of s.results) {
      const before = first.results.find((x) => x.contender === r.contender);
      const growth = r.peakRssMB / before.peakRssMB;
      console.log(
        `${r.contender}: peak RSS ${s.rows}/${first.rows} rows (table ×${factor.toFixed(2)}) = ${growth.toFixed(2)}` +
          (r.contender === OURS ? ` (grows ≤ 10%: ${growth <= 1.1 ? "yes" : "no"})` : ""),
      );
    }
  }
}

async function main() {
  const { flags, knobs } = parseFlags(process.argv.slice(2));
  const sizes = flags.sizes.split(",").map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isSafeInteger(n) || n < 4)) throw new Error(`bad --sizes ${flags.sizes}`);
  const dist = join(repo, "packages/deltalite/dist/index.js");
  if (!(await exists(dist))) throw new Error(`${dist} is missing: build first (pnpm exec tsc -b)`);
  flags.dir = resolve(flags.dir);
  const startLine = `machine: ${cpus().length} vCPU, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB RAM; node ${process.version}; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}${Object.keys(knobs).length ? `; historyUpsert options ${JSON.stringify(knobs)}` : ""}`;
  console.error(startLine);
  const workDir = join(flags.dir, "work-history");
  await mkdir(workDir, { recursive: true });
  const summary = [];
  const repeat = Number(flags.repeat);
  if (!Number.isSafeInteger(repeat) || repeat < 1) throw new Error(`bad --repeat ${flags.repeat}`);
  for (const rows of sizes) {
    summary.push(await measureSize(await ensureTable(flags, rows), workDir, knobs, repeat));
  }
  console.log(`\n${startLine}`);
  printSummary(summary);
  if (flags.json) await writeJsonReport(flags.json, knobs, summary);
  await finishRun(summary, workDir);
}

runMain(main);
