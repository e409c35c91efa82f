// `pnpm bench compact`: memory and speed of deltalite's compact beside delta-rs `optimize.compact` and the
// original deltalite (PyPI `deltalite` 0.1.15) `compact` (not a test). For each size it generates (once,
// cached under --dir, default /tmp/deltalite-bench) a table whose partition `day=2026-01-01` holds that many
// bytes of small files (--file-mb each) plus a small second partition (compact_bench.py `table`). Each
// contender then runs in its own child process, with its defaults, on its own copy of the pristine table:
//   deltalite compact   compact-ours.mjs: the built @deltalite/compaction `compact(snapshot, options)`
//                       (options from any other `--kebab-name value` flag, camelCased)
//   delta-rs compact    compact_bench.py compact: `DeltaTable.optimize.compact()`
//   original 0.1.15     compact-original.py: `DeltaLiteTable.open(dir).compact()` in the venv that
//                       ../original/ensure-venv.sh builds (skipped, saying so, without a CPython >= 3.12)
// Then delta-rs reads every result (row count and the sum of `seq`, which must equal the pristine table's)
// or the bench exits 1 and keeps the tables under <dir>/work.
//
//   pnpm exec tsc -b && pnpm bench compact [--sizes 1GB,2GB] [--file-mb 8] [--dir D] [--seed 7]
//     [--json out.json] [--contenders ours,base,delta-rs,original] [--<compact-option> value …]
//   e.g. pnpm bench compact --sizes 100MB            (a quick run while developing)
//        pnpm bench compact --sizes 1GB,2GB,4GB      (flatness of ours when the partition doubles)
//
// Printed per size and contender: call s (the compact call alone), peak RSS MB (the child's OS maxrss),
// RSS pre-call MB, files rm/add and MB rm/add (the commit's actions). Then ours/delta-rs and ours/original
// (peak RSS, call time); where ours' memory above its pre-call RSS went (peaks of the main thread's V8 heap,
// ArrayBuffers and parquet-wasm's WebAssembly memory there; the encoder runs on a worker thread whose memory
// those counters do not see, so the rest is printed as such, with that worker's WebAssembly memory); and the bound it checks: peak RSS − pre-call RSS ≤ the sum of its
// memory knobs (maxBufferedBytes + maxFetchBytes + maxParallelBins × (maxRowGroupDecodedBytes +
// multipartPartSizeBytes)) + a fixed base. The base is measured in the same run by a fourth contender,
// "deltalite (base)": ours with the same maxParallelBins and small byte knobs (BASE_KNOBS); its peak RSS −
// pre-call RSS − its own knobs' sum is what no knob names (V8 heap growth, GC slack, one input row group and
// one output slice per bin). It must come out the same at every size. Then, for each doubling of the
// partition, each contender's peak RSS growth (ours must grow ≤ 10%).
import { mkdir, readdir, readFile } from "node:fs/promises";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { finishRun, runMain, writeJsonReport } from "../lib/bench-main.mjs";
import { runJsonChild } from "../lib/child-json.mjs";
import { parseBenchFlags } from "../lib/flags.mjs";
import { MB, oraclePython as python, repo } from "../lib/paths.mjs";
import { cached, exists, freshCopy } from "../lib/tables.mjs";
import { prepareOriginal } from "../original/contender.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const pythonScript = join(here, "compact_bench.py");
const OURS = "deltalite compact";
const DELTA_RS = "delta-rs compact";
const ORIGINAL = "original 0.1.15";
const OURS_BASE = "deltalite (base)";
const DEFAULTS = {
  sizes: "2GB",
  "file-mb": "8",
  dir: "/tmp/deltalite-bench",
  seed: "7",
  json: "",
  contenders: "ours,base,delta-rs,original",
};
/** --contenders words → contender names. */
const CONTENDER_WORDS = {
  ours: "deltalite compact",
  base: "deltalite (base)",
  "delta-rs": "delta-rs compact",
  original: "original 0.1.15",
};
const KNOB_DEFAULTS = {
  maxBufferedBytes: 64 * MB,
  maxFetchBytes: 128 * MB,
  maxParallelBins: 2,
  maxRowGroupDecodedBytes: 128 * MB,
  multipartPartSizeBytes: 16 * MB,
};
/** The base run's byte knobs (maxParallelBins and the part size stay the measured run's). */
const BASE_KNOBS = { maxBufferedBytes: 8 * MB, maxFetchBytes: 16 * MB, maxRowGroupDecodedBytes: 16 * MB };

/** The memory the knobs name, in MB. */
function knobSumMB(knobs) {
  const k = { ...KNOB_DEFAULTS, ...knobs };
  return (
    (k.maxBufferedBytes +
      k.maxFetchBytes +
      k.maxParallelBins * (k.maxRowGroupDecodedBytes + k.multipartPartSizeBytes)) /
    MB
  );
}

const USAGE =
  "pnpm exec tsc -b && pnpm bench compact [--sizes 1GB,2GB] [--file-mb 8] [--dir D] [--seed 7]\n" +
  "  [--json out.json] [--contenders ours,base,delta-rs,original] [--<compact-option> value …]";

const parseFlags = (argv) => parseBenchFlags(argv, { defaults: DEFAULTS, usage: USAGE });

/** "1GB" → bytes (KB / MB / GB, powers of 1024). */
function parseSize(text) {
  const m = /^(\d+(?:\.\d+)?)\s*(KB|MB|GB)?$/i.exec(text.trim());
  if (!m) throw new Error(`bad size ${JSON.stringify(text)} (e.g. 100MB, 2GB)`);
  const unit = { KB: 1024, MB: MB, GB: 1024 * MB }[(m[2] ?? "MB").toUpperCase()];
  return { label: text.trim().toUpperCase(), bytes: Math.round(Number(m[1]) * unit) };
}

/** The cached pristine table of one size (generated when missing; a half-made one is never kept). */
async function ensureTable(flags, size) {
  const fileBytes = Math.round(Number(flags["file-mb"]) * MB);
  const key = `compact-b${size.bytes}-f${fileBytes}-s${flags.seed}`;
  const folder = join(flags.dir, key);
  const pristine = join(folder, "pristine");
  await mkdir(folder, { recursive: true });
  const meta = await cached(join(folder, "table.json"), pristine, `${pristine}.partial`, async (partial) => {
    console.error(`generating ${key} (once; cached in ${flags.dir}) …`);
    const config = { out: partial, bytes: size.bytes, file_bytes: fileBytes, seed: Number(flags.seed) };
    const made = await runJsonChild(python, [pythonScript, "table", JSON.stringify(config)]);
    console.error(
      `generated ${key}: ${made.partitionFiles} files, ${(made.partitionBytes / MB).toFixed(0)} MB in the partition, ${made.tableSeconds.toFixed(0)} s`,
    );
    return made;
  });
  return { pristine, meta };
}

/** The newest version in a table's log and that commit's removed / added files and bytes. */
async function lastCommit(tableDir) {
  const names = (await readdir(join(tableDir, "_delta_log"))).filter((n) => /^\d{20}\.json$/.test(n)).sort();
  const version = Number(names[names.length - 1].slice(0, 20));
  const text = await readFile(join(tableDir, "_delta_log", names[names.length - 1]), "utf8");
  const out = { version, filesRemoved: 0, filesAdded: 0, bytesRemoved: 0, bytesAdded: 0 };
  for (const line of text.split("\n").filter((l) => l.trim())) {
    const action = JSON.parse(line);
    if (action.add) {
      out.filesAdded++;
      out.bytesAdded += action.add.size;
    } else if (action.remove) {
      out.filesRemoved++;
      out.bytesRemoved += action.remove.size ?? 0;
    }
  }
  return out;
}

function contenders(knobs, original, words) {
  const all = {
    [OURS]: {
      command: process.execPath,
      args: (t) => [join(here, "compact-ours.mjs"), t, JSON.stringify(knobs)],
      env: process.env,
    },
    [OURS_BASE]: {
      command: process.execPath,
      args: (t) => [join(here, "compact-ours.mjs"), t, JSON.stringify({ ...knobs, ...BASE_KNOBS })],
      env: process.env,
    },
    [DELTA_RS]: { command: python, args: (t) => [pythonScript, "compact", t], env: process.env },
  };
  if (!original.skipped) {
    all[ORIGINAL] = {
      command: original.command,
      args: (t) => [join(here, "compact-original.py"), t],
      env: original.env,
    };
  }
  const wanted = new Set(
    words.split(",").map((w) => {
      const name = CONTENDER_WORDS[w.trim()];
      if (!name)
        throw new Error(
          `--contenders: unknown ${JSON.stringify(w)} (${Object.keys(CONTENDER_WORDS).join(", ")})`,
        );
      return name;
    }),
  );
  return Object.fromEntries(Object.entries(all).filter(([name]) => wanted.has(name)));
}

async function runContender(name, how, table, workDir) {
  const tableDir = await freshCopy(table.pristine, workDir, name);
  const load1 = loadavg()[0];
  const result = await runJsonChild(how.command, how.args(tableDir), { env: how.env });
  const commit = await lastCommit(tableDir);
  if (commit.version !== table.meta.version + 1) {
    throw new Error(`${name} left version ${commit.version}, expected one commit on ${table.meta.version}`);
  }
  return { contender: name, tableDir, load1, ...result, ...commit };
}

async function measureSize(size, table, commands, workDir) {
  const results = [];
  for (const [name, how] of Object.entries(commands)) {
    console.error(`${size.label}: ${name} …`);
    results.push(await runContender(name, how, table, workDir));
  }
  const check = await runJsonChild(python, [pythonScript, "verify", ...results.map((r) => r.tableDir)]);
  const n = table.meta.rows;
  const expectedSum = (n * (n - 1)) / 2;
  const mismatches = results
    .filter((r) => check[r.tableDir].rows !== n || check[r.tableDir].seqSum !== expectedSum)
    .map((r) => `${r.contender}: ${check[r.tableDir].rows} rows, seq sum ${check[r.tableDir].seqSum}`);
  return { size, meta: table.meta, results, identical: mismatches.length === 0, mismatches };
}

const pad = (cells, widths) => cells.map((c, i) => String(c).padStart(widths[i])).join("  ");

function printSummary(summary, knobs) {
  const header = [
    "size",
    "contender",
    "call s",
    "peak RSS MB",
    "RSS pre-call MB",
    "files rm/add",
    "MB rm/add",
    "load",
  ];
  const widths = [6, 18, 8, 11, 15, 12, 13, 5];
  for (const s of summary) {
    console.log(
      `\n${s.size.label}: partition of ${s.meta.partitionFiles} files, ${(s.meta.partitionBytes / MB).toFixed(0)} MB (+ a small partition); ${s.meta.rows} rows`,
    );
    console.log(pad(header, widths));
    for (const r of s.results) {
      console.log(
        pad(
          [
            s.size.label,
            r.contender,
            (r.callMs / 1000).toFixed(1),
            r.peakRssMB.toFixed(0),
            r.rssBeforeCallMB.toFixed(0),
            `${r.filesRemoved}/${r.filesAdded}`,
            `${(r.bytesRemoved / MB).toFixed(0)}/${(r.bytesAdded / MB).toFixed(0)}`,
            r.load1.toFixed(1),
          ],
          widths,
        ),
      );
    }
  }
  console.log("");
  const knobsMB = knobSumMB(knobs);
  const baseKnobsMB = knobSumMB({ ...knobs, ...BASE_KNOBS });
  for (const s of summary) {
    const by = Object.fromEntries(s.results.map((r) => [r.contender, r]));
    const ours = by[OURS];
    if (!ours) continue;
    for (const other of [DELTA_RS, ORIGINAL].filter((n) => by[n])) {
      console.log(
        `${s.size.label}: ours/${other} peak RSS ${(ours.peakRssMB / by[other].peakRssMB).toFixed(2)}, call time ${(ours.callMs / by[other].callMs).toFixed(2)}`,
      );
    }
    const above = ours.peakRssMB - ours.rssBeforeCallMB;
    const baseRun = by[OURS_BASE];
    if (!baseRun) continue;
    const base = baseRun.peakRssMB - baseRun.rssBeforeCallMB - baseKnobsMB;
    const bound = knobsMB + base;
    const p = ours.peaksAboveBefore;
    console.log(
      `${s.size.label}: ours above pre-call: peak RSS +${above.toFixed(0)} MB; peaks of V8 heap +${p.heapMB.toFixed(0)}, ArrayBuffers +${p.arrayBuffersMB.toFixed(0)}, main-thread WebAssembly memory +${p.wasmMB.toFixed(0)} MB; the rest, about ${(above - p.heapMB - p.arrayBuffersMB - p.wasmMB).toFixed(0)} MB, is outside the main thread's counters (the encoder's worker thread: its heap and WebAssembly memory, ${ours.encoderWasmMB?.toFixed(0) ?? "?"} MB of it at its high-water mark; native allocations)`,
    );
    console.log(
      `${s.size.label}: fixed base = ${OURS_BASE} peak RSS − pre-call (${(baseRun.peakRssMB - baseRun.rssBeforeCallMB).toFixed(0)} MB) − its knobs' sum (${baseKnobsMB.toFixed(0)} MB) = ${base.toFixed(0)} MB`,
    );
    console.log(
      `${s.size.label}: bound: peak RSS − pre-call ${above.toFixed(0)} MB ≤ knobs' sum ${knobsMB.toFixed(0)} MB + base ${base.toFixed(0)} MB = ${bound.toFixed(0)} MB: ${above <= bound ? "holds" : "DOES NOT HOLD"} (knobs' sum alone: ${above <= knobsMB ? "below" : "above"}); results identical (rows, sum of seq): ${s.identical ? "yes" : `no (${s.mismatches.join("; ")})`}`,
    );
  }
  const bases = summary
    .map((s) => s.results.find((r) => r.contender === OURS_BASE))
    .filter((b) => b)
    .map((b) => b.peakRssMB - b.rssBeforeCallMB - baseKnobsMB);
  if (bases.length > 1) {
    console.log(
      `fixed base across sizes: ${bases.map((b) => b.toFixed(0)).join(", ")} MB (spread ${(Math.max(...bases) - Math.min(...bases)).toFixed(0)} MB)`,
    );
  }
  for (let i = 1; i < summary.length; i++) {
    const [small, large] = [summary[i - 1], summary[i]];
    const factor = large.meta.partitionBytes / small.meta.partitionBytes;
    for (const r of large.results) {
      const before = small.results.find((x) => x.contender === r.contender);
      if (!before) continue;
      const growth = r.peakRssMB / before.peakRssMB;
      console.log(
        `${r.contender}: peak RSS ${large.size.label}/${small.size.label} (partition ×${factor.toFixed(2)}) = ${growth.toFixed(2)}` +
          (r.contender === OURS ? ` (grows ≤ 10%: ${growth <= 1.1 ? "yes" : "no"})` : ""),
      );
    }
  }
}

async function main() {
  const { flags, knobs } = parseFlags(process.argv.slice(2));
  const sizes = flags.sizes.split(",").map(parseSize);
  const dist = join(repo, "packages/compaction/dist/index.js");
  if (!(await exists(dist))) throw new Error(`${dist} is missing: build first (pnpm exec tsc -b)`);
  flags.dir = resolve(flags.dir);
  const original = prepareOriginal();
  const commands = contenders(knobs, original, flags.contenders);
  const startLine = `machine: ${cpus().length} vCPU, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB RAM; node ${process.version}; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}${Object.keys(knobs).length ? `; compact options ${JSON.stringify(knobs)}` : ""}`;
  console.error(startLine);
  const workDir = join(flags.dir, "work-compact");
  await mkdir(workDir, { recursive: true });
  const summary = [];
  for (const size of sizes) {
    summary.push(await measureSize(size, await ensureTable(flags, size), commands, workDir));
    // Each size as soon as it is measured (a long run shows its first sizes even if stopped later).
    if (sizes.length > 1) printSummary(summary.slice(-1), knobs);
  }
  console.log(`\n${startLine}`);
  printSummary(summary, knobs);
  if (original.skipped) console.log(`\n${ORIGINAL}: not run (${original.skipped})`);
  if (flags.json) await writeJsonReport(flags.json, knobs, summary);
  await finishRun(summary, workDir);
}

runMain(main);
