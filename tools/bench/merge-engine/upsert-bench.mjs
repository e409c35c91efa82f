// `pnpm bench upsert`: speed and memory of deltalite's upsert beside the original deltalite (PyPI `deltalite`
// 0.1.15) and delta-rs MERGE (not a test). For each size it generates (once, cached under --dir) a partitioned
// Delta table of wide rows with tens of files per partition, and (once per shape and batch size, beside that
// table) a batch of 80% updates + 20% inserts as one Parquet file (upsert-delta-rs.py). Each repeat copies the
// pristine table once per contender so all start from identical bytes and runs, each in its own child process,
// in an order that rotates across repeats (A B C, B C A, C A B, …):
//   deltalite upsert   ours: upsert-ours.mjs, the built `deltalite` package, options from the flags below
//   delta-rs MERGE     `t.day = s.day AND t.id = s.id`, update all matched, insert all not matched
//   original 0.1.15    the original deltalite, `upsert(batch, primary_keys=["id"], partition_key="day")`
//                      with its defaults (../original/upsert-original.py, in the venv that
//                      ../original/ensure-venv.sh builds once from a CPython >= 3.12; without one, a line
//                      says so and the other two run)
// Then a separate Node process makes the physical floor (raw-copy.mjs): a raw read + write copy of
// exactly the files our commit removed, read fully and written to a copy, not fsync'd. Finally delta-rs reads
// the result tables: ours and the original's must hold the same rows as MERGE's, or the bench exits 1 (the
// tables are then kept under <dir>/work for inspection).
//
//   pnpm exec tsc -b && pnpm bench upsert [--sizes 1000000,4000000] [--repeat N] [--dir D] [--cdf]
//     [--shape uniform|recent] [--batch-fraction 0.01 | --batch-rows N] [--partitions 8]
//     [--files-per-partition 30] [--seed 42] [--json out.json] [--<upsert-option> value …]
//   e.g. pnpm bench upsert --sizes 1000000 --repeat 3 --shape recent
//        pnpm bench upsert --sizes 1000000,4000000,8000000 --batch-rows 10000    (flatness of a fixed batch)
//
// `--cdf`: the change data feed's cost. A second cached table (key `…-cdf`): a copy of the pristine table plus
// one commit of OUR setProperties({"delta.enableChangeDataFeed": "true"}); the same batch. The contenders are
// then ours on the CDF table, ours on the plain table and delta-rs MERGE on the CDF table (the original, which
// refuses CDF tables, is not run); printed: ours CDF / ours plain (peak RSS, call time; the goal is a CDF peak
// RSS ≤ 1.2× the plain one), ours CDF / MERGE, and each commit's cdc files. All results must hold MERGE's rows.
//
// Shapes: `uniform` (default) draws the updates uniformly from the rows of the first half of the partitions;
// `recent` draws them from the rows of the last 10% of the appends, so they hit only the newest 10% of each
// partition's files, as a time-ordered sync does. Inserts go to every partition in both. `--batch-rows N` makes
// a batch of N rows whatever the table's size, instead of --batch-fraction of its rows.
//
// Any other `--kebab-name value` flag is passed to OUR upsert as the camelCased option (numbers as numbers,
// true/false as booleans), e.g. `--max-buffered-bytes 268435456` → { maxBufferedBytes: 268435456 }.
// DELTALITE_* environment variables reach our child and MERGE's unchanged, and are removed for the original's
// (they would change its defaults).
//
// Printed columns, per size and contender (medians over the repeats when --repeat > 1):
//   call s           the upsert / MERGE call alone (table opened and batch read before it)
//   call CPU s       the CPU time (user + system, all threads) the child spent in that call
//   process s        the child process from spawn to exit
//   peak RSS MB      the child's own OS maxrss (Node process.resourceUsage().maxRSS, Python ru_maxrss):
//                    runtime, batch read and the call together
//   RSS pre-call MB  the child's RSS just before the call (runtime + imports + batch + opened table)
//   files rm/add     the commit's remove / add actions
//   MB read/written  the sizes of those removed / added files
//   rewrite MB/s     (MB read + MB written) / call s
// then the ratios ours/MERGE and ours/original (peak RSS, call time) and whether the results are identical,
// the physical floor line (wall s and MB/s of the raw copy; our rewrite MB/s as a % of its MB/s), each
// contender's peak RSS largest/smallest size, and with --repeat > 1 every run's figures and start load.
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runJsonChild } from "../lib/child-json.mjs";
import { parseBenchFlags } from "../lib/flags.mjs";
import { MB, oraclePython as python, repo } from "../lib/paths.mjs";
import { cached, exists, freshCopy, run } from "../lib/tables.mjs";
import { prepareOriginal } from "../original/contender.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const pythonScript = join(here, "upsert-delta-rs.py");
const oursScript = join(here, "upsert-ours.mjs");
const rawCopyScript = join(here, "raw-copy.mjs");
const deltaliteDist = join(repo, "packages/deltalite/dist/index.js");
const OURS = "deltalite upsert";
const MERGE = "delta-rs MERGE";
const ORIGINAL = "original 0.1.15";
const OURS_CDF = "deltalite upsert CDF";
const MERGE_CDF = "delta-rs MERGE CDF";
/** The contender whose result table the others are compared with. */
const referenceOf = (names) => (names.includes(MERGE_CDF) ? MERGE_CDF : MERGE);
const SHAPES = ["uniform", "recent"];

const DEFAULTS = {
  sizes: "1000000,4000000",
  repeat: "1",
  dir: "/tmp/deltalite-bench",
  shape: "uniform",
  partitions: "8",
  "files-per-partition": "30",
  "batch-fraction": "0.01",
  "batch-rows": "",
  seed: "42",
  json: "",
  cdf: "false",
};
/** Flags that take no value (`--cdf` alone means `--cdf true`). */
const SWITCHES = ["cdf"];
const USAGE =
  "pnpm bench upsert [--sizes 1000000,4000000] [--repeat N] [--dir D] [--shape uniform|recent]\n" +
  "  [--batch-fraction 0.01 | --batch-rows N] [--partitions 8] [--files-per-partition 30] [--seed 42]\n" +
  "  [--json out.json] [--cdf] [--<upsert-option> value …]";

const parseFlags = (argv) => parseBenchFlags(argv, { defaults: DEFAULTS, switches: SWITCHES, usage: USAGE });

/** The checked numbers and names of `flags`. */
function settings(flags) {
  const sizes = flags.sizes.split(",").map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isSafeInteger(n) || n <= 0)) throw new Error(`bad --sizes ${flags.sizes}`);
  const repeat = Number(flags.repeat);
  if (!Number.isSafeInteger(repeat) || repeat < 1) throw new Error(`bad --repeat ${flags.repeat}`);
  if (!SHAPES.includes(flags.shape))
    throw new Error(`bad --shape ${flags.shape}: one of ${SHAPES.join(", ")}`);
  const batchRows = flags["batch-rows"] === "" ? null : Number(flags["batch-rows"]);
  if (batchRows !== null && (!Number.isSafeInteger(batchRows) || batchRows < 2)) {
    throw new Error(`bad --batch-rows ${flags["batch-rows"]}: an integer ≥ 2`);
  }
  const batchFraction = Number(flags["batch-fraction"]);
  if (!(batchFraction > 0 && batchFraction <= 1))
    throw new Error(`bad --batch-fraction ${flags["batch-fraction"]}`);
  if (!["true", "false"].includes(flags.cdf)) throw new Error(`bad --cdf ${flags.cdf}: true or false`);
  return { sizes, repeat, shape: flags.shape, batchRows, batchFraction, cdf: flags.cdf === "true" };
}

function tableConfig(flags, rows) {
  return {
    rows,
    partitions: Number(flags.partitions),
    files: Number(flags["files-per-partition"]),
    seed: Number(flags.seed),
  };
}

/** The cached pristine table for one size (generated when missing): its folder and meta. */
async function ensureTable(flags, rows) {
  const config = tableConfig(flags, rows);
  const key = `upsert-r${rows}-p${config.partitions}-f${config.files}-s${config.seed}`;
  const folder = join(flags.dir, key);
  await mkdir(folder, { recursive: true });
  const pristine = join(folder, "pristine");
  const meta = await cached(join(folder, "table.json"), pristine, `${pristine}.partial`, async (partial) => {
    console.error(`generating ${key} (once; cached in ${flags.dir}) …`);
    const made = await runJsonChild(python, [
      pythonScript,
      "table",
      JSON.stringify({ ...config, out: partial }),
    ]);
    console.error(
      `generated ${key}: ${made.files} files, ${(made.tableBytes / MB).toFixed(0)} MB in ${made.tableSeconds.toFixed(0)} s`,
    );
    return made;
  });
  return { pristine, folder, meta };
}

/** The cached CDF-enabled copy of `table` (made when missing): the pristine table plus one SET TBLPROPERTIES
 * commit of our setProperties (the built package) enabling the change data feed. */
async function ensureCdfTable(table) {
  const folder = `${table.folder}-cdf`;
  await mkdir(folder, { recursive: true });
  const pristine = join(folder, "pristine");
  const meta = await cached(join(folder, "table.json"), pristine, `${pristine}.partial`, async (partial) => {
    console.error(`making the CDF copy ${folder} (once) …`);
    await run("cp", ["-r", table.pristine, partial]);
    const { DeltaLiteTable } = await import(pathToFileURL(deltaliteDist).href);
    const opened = await DeltaLiteTable.open(partial);
    const set = await opened.setProperties({ "delta.enableChangeDataFeed": "true" });
    return { ...table.meta, version: set.version, configuration: set.configuration, protocol: set.protocol };
  });
  return { pristine, folder, meta };
}

/** The cached batch of one shape and size beside its table (generated when missing): its file and meta. */
async function ensureBatch(flags, folder, rows, { shape, batchRows, batchFraction }) {
  const key = `batch-${shape}-${batchRows === null ? `b${batchFraction}` : `n${batchRows}`}`;
  const file = join(folder, `${key}.parquet`);
  const config = { ...tableConfig(flags, rows), shape, batchRows, batchFraction };
  const meta = await cached(join(folder, `${key}.json`), file, `${file}.partial`, (partial) =>
    runJsonChild(python, [pythonScript, "batch", JSON.stringify({ ...config, out: partial })]),
  );
  return { file, meta };
}

/** Files and bytes the commit at `version` removed and added, and the removed files' paths (sizes from the
 * actions; a remove without `size` is sized from the still-present file). */
async function commitFootprint(tableDir, version) {
  const log = await readFile(
    join(tableDir, "_delta_log", `${String(version).padStart(20, "0")}.json`),
    "utf8",
  );
  const out = {
    filesRemoved: 0,
    filesAdded: 0,
    bytesRemoved: 0,
    bytesAdded: 0,
    cdcFiles: 0,
    bytesCdc: 0,
    removedPaths: [],
  };
  for (const line of log.split("\n")) {
    if (line.trim() === "") continue;
    const action = JSON.parse(line);
    if (action.add) {
      out.filesAdded++;
      out.bytesAdded += action.add.size;
    } else if (action.cdc) {
      out.cdcFiles++;
      out.bytesCdc += action.cdc.size;
    } else if (action.remove) {
      const path = join(tableDir, decodeURIComponent(action.remove.path));
      out.filesRemoved++;
      out.bytesRemoved += action.remove.size ?? (await stat(path)).size;
      out.removedPaths.push(path);
    }
  }
  return out;
}

/** name → how to start one measured run of it: `{ command, args(tableDir, batchFile), env, cdf? }` (`cdf`:
 * it runs on the CDF-enabled table). With `cdf`: ours on both tables and MERGE on the CDF one. */
function contenderCommands(knobs, original, cdf) {
  const options = JSON.stringify({ primaryKeys: ["id"], partitionKey: "day", ...knobs });
  const ours = { command: process.execPath, args: (t, b) => [oursScript, t, b, options], env: process.env };
  const merge = { command: python, args: (t, b) => [pythonScript, "merge", t, b], env: process.env };
  if (cdf) {
    return { [OURS_CDF]: { ...ours, cdf: true }, [OURS]: ours, [MERGE_CDF]: { ...merge, cdf: true } };
  }
  const commands = { [OURS]: ours, [MERGE]: merge };
  if (!original.skipped) commands[ORIGINAL] = original;
  return commands;
}

async function runContender(name, how, tables, batchFile, workDir) {
  const { pristine, meta } = how.cdf ? tables.cdf : tables.plain;
  const tableDir = await freshCopy(pristine, workDir, name);
  const load1 = loadavg()[0];
  const started = performance.now();
  const result = await runJsonChild(how.command, how.args(tableDir, batchFile), { env: how.env });
  const processMs = performance.now() - started;
  if (result.version !== meta.version + 1) {
    throw new Error(`${name} committed version ${result.version}, expected ${meta.version + 1}`);
  }
  return {
    contender: name,
    tableDir,
    processMs,
    load1,
    ...result,
    ...(await commitFootprint(tableDir, result.version)),
  };
}

/** The raw read + write copy of the files our commit removed, in its own Node process. */
async function runFloor(ours, workDir) {
  const outDir = join(workDir, "raw-copy");
  await rm(outDir, { recursive: true, force: true });
  const floor = await runJsonChild(process.execPath, [
    rawCopyScript,
    outDir,
    JSON.stringify(ours.removedPaths),
  ]);
  await rm(outDir, { recursive: true, force: true });
  return floor;
}

/** The i-th rotation of `names`: A B C, B C A, C A B, … */
function rotation(names, i) {
  const k = i % names.length;
  return [...names.slice(k), ...names.slice(0, k)];
}

/** Each contender's result table against MERGE's (delta-rs reads them all): name → { identical, mismatches }. */
async function compareResults(last, meta) {
  const referenceName = referenceOf(Object.keys(last));
  const reference = last[referenceName].tableDir;
  const others = Object.values(last).filter((r) => r.contender !== referenceName);
  const check = await runJsonChild(python, [
    pythonScript,
    "verify",
    String(meta.rows + meta.batchInserts),
    reference,
    ...others.map((r) => r.tableDir),
  ]);
  return Object.fromEntries(others.map((r) => [r.contender, check.comparisons[r.tableDir]]));
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** One contender's medians over the runs (footprint and stats of the last run). */
function contenderSummary(name, all) {
  const med = (pick) => median(all.map(pick));
  const last = all[all.length - 1];
  return {
    contender: name,
    callMs: med((x) => x.callMs),
    callCpuMs: med((x) => x.callCpuMs),
    processMs: med((x) => x.processMs),
    peakRssMB: med((x) => x.peakRssMB),
    rssBeforeCallMB: med((x) => x.rssBeforeCallMB),
    filesRemoved: last.filesRemoved,
    filesAdded: last.filesAdded,
    bytesRemoved: last.bytesRemoved,
    bytesAdded: last.bytesAdded,
    cdcFiles: last.cdcFiles,
    bytesCdc: last.bytesCdc,
    stats: last.stats ?? last.metrics,
  };
}

/** All repeats at one size: the contenders in rotating order, the floor after each repeat, then the check.
 * `tables`: `{ plain, cdf? }`, each `{ pristine, meta }`. */
async function measureSize(label, tables, batch, commands, repeat, workDir) {
  const meta = { ...tables.plain.meta, ...batch.meta };
  const names = Object.keys(commands);
  const runs = [];
  const floors = [];
  for (let r = 0; r < repeat; r++) {
    const byName = {};
    for (const name of rotation(names, r)) {
      console.error(`${label} run ${r + 1}/${repeat}: ${name} …`);
      byName[name] = await runContender(name, commands[name], tables, batch.file, workDir);
    }
    console.error(`${label} run ${r + 1}/${repeat}: raw copy of the files our commit removed …`);
    floors.push(await runFloor(byName[OURS], workDir));
    runs.push(byName);
  }
  console.error(`${label}: comparing the result tables with MERGE's …`);
  const checks = await compareResults(runs[runs.length - 1], meta);
  const mismatches = Object.entries(checks).flatMap(([name, c]) => c.mismatches.map((m) => `${name}: ${m}`));
  const floor = { ...floors[floors.length - 1], wallMs: median(floors.map((f) => f.wallMs)) };
  return {
    label,
    meta,
    contenders: names.map((name) =>
      contenderSummary(
        name,
        runs.map((run) => run[name]),
      ),
    ),
    runs: runs.map((byName) => names.map((name) => byName[name])),
    floor,
    checks,
    identical: mismatches.length === 0,
    mismatches,
  };
}

function pad(cells, widths) {
  return cells
    .map((c, i) => (i < 2 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])))
    .join("  ");
}

const rewriteMBps = (c) => (c.bytesRemoved + c.bytesAdded) / MB / (c.callMs / 1000);

function describeBatch(meta) {
  const size =
    meta.batchFraction === null ? `${meta.batchRows} rows` : `${meta.batchFraction * 100}% of rows`;
  const where =
    meta.shape === "recent"
      ? "updates hit only the newest 10% of each partition's files"
      : "updates spread over half the partitions";
  return `batch = ${size}, shape ${meta.shape} (80% updates: ${where}; 20% inserts)`;
}

function printTable(summary, repeat) {
  const header = [
    "size",
    "contender",
    "rows",
    "table MB",
    "files",
    "batch rows",
    "call s",
    "call CPU s",
    "process s",
    "peak RSS MB",
    "RSS pre-call MB",
    "files rm/add",
    "MB read/written",
    "rewrite MB/s",
  ];
  const rows = summary.flatMap((s) =>
    s.contenders.map((c) => [
      s.label,
      c.contender,
      s.meta.rows,
      (s.meta.tableBytes / MB).toFixed(0),
      s.meta.files,
      s.meta.batchRows,
      (c.callMs / 1000).toFixed(2),
      (c.callCpuMs / 1000).toFixed(2),
      (c.processMs / 1000).toFixed(2),
      c.peakRssMB.toFixed(0),
      c.rssBeforeCallMB.toFixed(0),
      `${c.filesRemoved}/${c.filesAdded}`,
      `${(c.bytesRemoved / MB).toFixed(0)}/${(c.bytesAdded / MB).toFixed(0)}`,
      rewriteMBps(c).toFixed(0),
    ]),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const meta = summary[0]?.meta;
  console.log(
    `\nupsert benchmark${repeat > 1 ? ` (medians of ${repeat} runs)` : ""}: ${meta?.partitions} partitions × ${meta?.filesPerPartition} files, ${describeBatch(meta)}\n`,
  );
  console.log(pad(header, widths));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(pad(r, widths));
  console.log("");
}

const ratio = (a, b, pick) => (pick(a) / pick(b)).toFixed(2);

/** The --cdf lines: ours CDF against ours plain (the 1.2× goal) and against MERGE on the CDF table. */
function printCdfComparisons(s, by) {
  const [oursCdf, ours, merge] = [by[OURS_CDF], by[OURS], by[MERGE_CDF]];
  const rss = oursCdf.peakRssMB / ours.peakRssMB;
  const cdc = (c) => `${c.cdcFiles} cdc files (${(c.bytesCdc / MB).toFixed(1)} MB)`;
  console.log(
    `${s.label}: ours CDF / ours plain peak RSS ${rss.toFixed(2)} (goal ≤ 1.20: ${rss <= 1.2 ? "met" : "NOT met"}), call time ${ratio(oursCdf, ours, (c) => c.callMs)}`,
  );
  console.log(
    `${s.label}: ours CDF / MERGE CDF peak RSS ${ratio(oursCdf, merge, (c) => c.peakRssMB)}, call time ${ratio(oursCdf, merge, (c) => c.callMs)}` +
      `; commits: ours ${cdc(oursCdf)}, MERGE ${cdc(merge)}; results identical: ${s.identical ? "yes" : "no"}${s.identical ? "" : ` (${s.mismatches.join("; ")})`}`,
  );
}

function printComparisons(summary) {
  for (const s of summary) {
    const by = Object.fromEntries(s.contenders.map((c) => [c.contender, c]));
    if (by[OURS_CDF]) {
      printCdfComparisons(s, by);
      continue;
    }
    const [ours, merge, original] = [by[OURS], by[MERGE], by[ORIGINAL]];
    console.log(
      `${s.label}: ours/MERGE peak RSS ${ratio(ours, merge, (c) => c.peakRssMB)}, call time ${ratio(ours, merge, (c) => c.callMs)}` +
        `; results identical: ${s.identical ? "yes" : "no"}${s.identical ? "" : ` (${s.mismatches.join("; ")})`}`,
    );
    if (original) {
      console.log(
        `${s.label}: ours/original peak RSS ${ratio(ours, original, (c) => c.peakRssMB)}, call time ${ratio(ours, original, (c) => c.callMs)}, call CPU ${ratio(ours, original, (c) => c.callCpuMs)}` +
          `; ours vs MERGE identical: ${s.checks[OURS].identical ? "yes" : "no"}, original vs MERGE identical: ${s.checks[ORIGINAL].identical ? "yes" : "no"}`,
      );
    }
    const floorMBps = (s.floor.bytesRead + s.floor.bytesWritten) / MB / (s.floor.wallMs / 1000);
    console.log(
      `${s.label}: physical floor: raw read + write copy of the ${s.floor.files} files our commit removed` +
        ` (${(s.floor.bytesRead / MB).toFixed(0)} MB read + ${(s.floor.bytesWritten / MB).toFixed(0)} MB written, not fsync'd, own Node process)` +
        ` ${(s.floor.wallMs / 1000).toFixed(2)} s = ${floorMBps.toFixed(0)} MB/s;` +
        ` our rewrite ${rewriteMBps(ours).toFixed(0)} MB/s = ${((100 * rewriteMBps(ours)) / floorMBps).toFixed(0)}% of it`,
    );
  }
}

function printGrowth(summary) {
  if (summary.length < 2) return;
  const small = summary[0];
  const large = summary[summary.length - 1];
  for (const [i, c] of large.contenders.entries()) {
    const growth = c.peakRssMB / small.contenders[i].peakRssMB;
    console.log(
      `${c.contender}: peak RSS ${large.label}/${small.label} = ${growth.toFixed(2)}` +
        (c.contender === OURS ? ` (flat within ±10%: ${Math.abs(growth - 1) <= 0.1 ? "yes" : "no"})` : ""),
    );
  }
}

function printRuns(summary, repeat) {
  if (repeat < 2) return;
  console.log("\nper-run peak RSS MB / call s (1-min load average when the child started):");
  for (const s of summary) {
    for (const [i, c] of s.contenders.entries()) {
      const runs = s.runs.map((r) => r[i]);
      console.log(
        `  ${s.label} ${c.contender}: ${runs.map((r) => `${r.peakRssMB.toFixed(0)} / ${(r.callMs / 1000).toFixed(2)} (${r.load1.toFixed(1)})`).join(", ")}`,
      );
    }
  }
}

function printLegend(original) {
  if (original.skipped) console.log(`\n${ORIGINAL}: not run (${original.skipped})`);
  console.log(
    "\n  call s = the upsert / MERGE call alone (table opened and batch read before it); process s = the child process" +
      " from spawn to exit; call CPU s = the user + system CPU time of all the child's threads during the call" +
      " (process.cpuUsage, getrusage); peak RSS = the child's own OS maxrss (Node process.resourceUsage().maxRSS, Python" +
      " ru_maxrss); RSS pre-call = the child's RSS just before the call (runtime + imports + batch);" +
      " files rm/add and MB read/written = the commit's remove/add actions and their sizes;" +
      " rewrite MB/s = (MB read + MB written) / call s. Contenders run in an order that rotates across repeats.",
  );
}

const loadLine = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`;

function machineLine() {
  return `machine: ${cpus().length} vCPU (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 1024 ** 3).toFixed(0)} GiB RAM; node ${process.version}; ${loadLine()}`;
}

async function main() {
  const { flags, knobs } = parseFlags(process.argv.slice(2));
  const config = settings(flags);
  if (!(await exists(deltaliteDist)))
    throw new Error(`${deltaliteDist} is missing: build first (pnpm exec tsc -b)`);
  flags.dir = resolve(flags.dir);
  const original = config.cdf ? { skipped: "not run with --cdf" } : prepareOriginal();
  const commands = contenderCommands(knobs, original, config.cdf);
  const startLine =
    machineLine() + (Object.keys(knobs).length ? `; upsert options ${JSON.stringify(knobs)}` : "");
  console.error(startLine);

  const workDir = join(flags.dir, "work");
  const summary = [];
  for (const rows of config.sizes) {
    const table = await ensureTable(flags, rows);
    const batch = await ensureBatch(flags, table.folder, rows, config);
    const tables = { plain: table, ...(config.cdf ? { cdf: await ensureCdfTable(table) } : {}) };
    const label = rows >= 1_000_000 && rows % 1_000_000 === 0 ? `${rows / 1_000_000}M` : String(rows);
    await mkdir(workDir, { recursive: true });
    summary.push(await measureSize(label, tables, batch, commands, config.repeat, workDir));
  }

  console.log(`\n${startLine}\nat the end: ${loadLine()}`);
  printTable(summary, config.repeat);
  printComparisons(summary);
  printGrowth(summary);
  printRuns(summary, config.repeat);
  printLegend(original);
  if (flags.json) {
    const stripped = summary.map(({ runs, ...s }) => ({
      ...s,
      runs: runs.map((run) => run.map(({ tableDir, removedPaths, ...r }) => r)),
    }));
    const { sizes, repeat, shape, batchRows, cdf } = config;
    const out = {
      sizes,
      repeat,
      shape,
      batchRows,
      cdf,
      knobs,
      original: original.skipped ?? "run",
      summary: stripped,
    };
    await writeFile(flags.json, `${JSON.stringify(out, null, 2)}\n`);
  }
  for (const s of summary) {
    if (!s.identical) process.exitCode = 1;
  }
  // The result tables are kept for inspection only when they differ.
  if (!process.exitCode) await rm(workDir, { recursive: true, force: true });
  // The cached tables stay; list them so they can be removed by hand.
  const cachedTables = (await readdir(flags.dir)).filter((n) => n.startsWith("upsert-"));
  console.error(`cached tables in ${flags.dir}: ${cachedTables.join(", ")}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
