// `pnpm bench upsert`: memory and speed of deltalite's upsert beside delta-rs MERGE (not a test). For each size
// it generates (once, cached under --dir) a partitioned Delta table of wide rows with tens of files per
// partition and a ~1% batch (updates spread over half the partitions + inserts) as one Parquet file
// (upsert-delta-rs.py), copies the pristine table once per contender so both start from identical bytes, and
// runs, each in its own child process: deltalite's upsert (upsert-ours.mjs, the built `deltalite` package) and
// delta-rs MERGE on `t.day = s.day AND t.id = s.id` (update all matched, insert all not matched). It prints
// wall time, OS peak RSS, files removed/added and bytes rewritten of each, the RSS ratios ours/MERGE and
// largest/smallest size, and whether both result tables hold the same rows (exit 1 when they don't).
//
//   pnpm exec tsc -b && pnpm bench upsert [--sizes 1000000,4000000] [--repeat N] [--dir D]
//     [--partitions 8] [--files-per-partition 30] [--batch-fraction 0.01] [--seed 42] [--json out.json]
//     [--<upsert-option> value …]
//
// Any other `--kebab-name value` flag is passed to our upsert as the camelCased option (numbers as numbers,
// true/false as booleans), e.g. `--max-buffered-bytes 268435456` → { maxBufferedBytes: 268435456 }.
// DELTALITE_* environment variables reach our child unchanged. Peak RSS is each child's own getrusage maxrss
// (Node: process.resourceUsage().maxRSS; Python: ru_maxrss): runtime, batch read and the call together.
import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runJsonChild } from "../lib/child-json.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");
const python = join(repo, "tools/oracle/.venv/bin/python");
const pythonScript = join(here, "upsert-delta-rs.py");
const oursScript = join(here, "upsert-ours.mjs");
const deltaliteDist = join(repo, "packages/deltalite/dist/index.js");
const MB = 1024 * 1024;
const CONTENDERS = ["deltalite upsert", "delta-rs MERGE"];

const DEFAULTS = {
  sizes: "1000000,4000000",
  repeat: "1",
  dir: "/tmp/deltalite-bench",
  partitions: "8",
  "files-per-partition": "30",
  "batch-fraction": "0.01",
  seed: "42",
  json: "",
};

/** Known flags into `flags`; every other `--name value` into `knobs` (camelCased, typed). */
function parseFlags(argv) {
  const flags = { ...DEFAULTS };
  const knobs = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") {
      console.log(
        "pnpm bench upsert [--sizes 1000000,4000000] [--repeat N] [--dir D] [--partitions 8]\n" +
          "  [--files-per-partition 30] [--batch-fraction 0.01] [--seed 42] [--json out.json] [--<upsert-option> value …]",
      );
      process.exit(0);
    }
    if (!arg.startsWith("--")) throw new Error(`unexpected argument ${JSON.stringify(arg)}`);
    let name = arg.slice(2);
    let value;
    if (name.includes("="))
      [name, value] = [name.slice(0, name.indexOf("=")), name.slice(name.indexOf("=") + 1)];
    else value = argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    if (name in DEFAULTS) flags[name] = value;
    else {
      const option = name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
      knobs[option] =
        value === "true"
          ? true
          : value === "false"
            ? false
            : Number.isNaN(Number(value))
              ? value
              : Number(value);
    }
  }
  return { flags, knobs };
}

function run(command, args) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0
        ? resolveRun()
        : reject(new Error(`${command} ${args.join(" ")} exited with ${code ?? signal}`)),
    );
  });
}

async function exists(path) {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The cached table + batch for one size, generated when missing; returns its folder and meta. */
async function ensureGenerated(flags, rows) {
  const config = {
    rows,
    partitions: Number(flags.partitions),
    files: Number(flags["files-per-partition"]),
    batchFraction: Number(flags["batch-fraction"]),
    seed: Number(flags.seed),
  };
  const key = `upsert-r${rows}-p${config.partitions}-f${config.files}-b${config.batchFraction}-s${config.seed}`;
  const folder = join(flags.dir, key);
  const metaFile = join(folder, "meta.json");
  if (await exists(metaFile)) return { folder, meta: JSON.parse(await readFile(metaFile, "utf8")) };
  const partial = `${folder}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  console.error(`generating ${key} (once; cached in ${flags.dir}) …`);
  const meta = await runJsonChild(python, [
    pythonScript,
    "generate",
    JSON.stringify({ ...config, dir: partial }),
  ]);
  await writeFile(join(partial, "meta.json"), `${JSON.stringify(meta, null, 2)}\n`);
  await rm(folder, { recursive: true, force: true });
  await rename(partial, folder);
  console.error(
    `generated ${key}: ${meta.files} files, ${(meta.tableBytes / MB).toFixed(0)} MB in ${meta.generateSeconds.toFixed(0)} s`,
  );
  return { folder, meta };
}

/** Files and bytes the commit at `version` removed and added (sizes from its actions; a remove without
 * `size` is sized from the still-present file). */
async function commitFootprint(tableDir, version) {
  const log = await readFile(
    join(tableDir, "_delta_log", `${String(version).padStart(20, "0")}.json`),
    "utf8",
  );
  const out = { filesRemoved: 0, filesAdded: 0, bytesRemoved: 0, bytesAdded: 0 };
  for (const line of log.split("\n")) {
    if (line.trim() === "") continue;
    const action = JSON.parse(line);
    if (action.add) {
      out.filesAdded++;
      out.bytesAdded += action.add.size;
    } else if (action.remove) {
      out.filesRemoved++;
      out.bytesRemoved +=
        action.remove.size ?? (await stat(join(tableDir, decodeURIComponent(action.remove.path)))).size;
    }
  }
  return out;
}

async function runContender(contender, pristine, batchFile, workDir, knobs, meta) {
  const tableDir = join(workDir, contender === CONTENDERS[0] ? "ours" : "merge");
  await rm(tableDir, { recursive: true, force: true });
  await run("cp", ["-r", pristine, tableDir]);
  const options = { primaryKeys: ["id"], partitionKey: "day", ...knobs };
  const [command, args] =
    contender === CONTENDERS[0]
      ? [process.execPath, [oursScript, tableDir, batchFile, JSON.stringify(options)]]
      : [python, [pythonScript, "merge", tableDir, batchFile]];
  const load1 = loadavg()[0];
  const started = performance.now();
  const result = await runJsonChild(command, args);
  const processMs = performance.now() - started;
  if (result.version !== meta.version + 1) {
    throw new Error(`${contender} committed version ${result.version}, expected ${meta.version + 1}`);
  }
  return {
    contender,
    tableDir,
    processMs,
    load1,
    ...result,
    ...(await commitFootprint(tableDir, result.version)),
  };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function pad(cells, widths) {
  return cells
    .map((c, i) => (i < 2 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])))
    .join("  ");
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
    "process s",
    "peak RSS MB",
    "RSS pre-call MB",
    "files rm/add",
    "MB read/written",
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
      (c.processMs / 1000).toFixed(2),
      c.peakRssMB.toFixed(0),
      c.rssBeforeCallMB.toFixed(0),
      `${c.filesRemoved}/${c.filesAdded}`,
      `${(c.bytesRemoved / MB).toFixed(0)}/${(c.bytesAdded / MB).toFixed(0)}`,
    ]),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  console.log(
    `\nupsert benchmark${repeat > 1 ? ` (medians of ${repeat} runs)` : ""}: ${summary[0]?.meta.partitions} partitions × ${summary[0]?.meta.filesPerPartition} files, batch = ${summary[0]?.meta.batchFraction * 100}% of rows (80% updates over half the partitions, 20% inserts)\n`,
  );
  console.log(pad(header, widths));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) console.log(pad(r, widths));
  console.log("");
  for (const s of summary) {
    const [ours, merge] = s.contenders;
    console.log(
      `${s.label}: ours/MERGE peak RSS ${(ours.peakRssMB / merge.peakRssMB).toFixed(2)}, call time ${(ours.callMs / merge.callMs).toFixed(2)}` +
        `; results identical: ${s.identical ? "yes" : "no"}${s.identical ? "" : ` (${s.mismatches.join("; ")})`}`,
    );
  }
  if (summary.length > 1) {
    const small = summary[0];
    const large = summary[summary.length - 1];
    for (const [i, name] of CONTENDERS.entries()) {
      const ratio = large.contenders[i].peakRssMB / small.contenders[i].peakRssMB;
      console.log(
        `${name}: peak RSS ${large.label}/${small.label} = ${ratio.toFixed(2)}` +
          (i === 0 ? ` (flat within ±10%: ${Math.abs(ratio - 1) <= 0.1 ? "yes" : "no"})` : ""),
      );
    }
  }
  if (repeat > 1) {
    console.log("\nper-run peak RSS MB / call s (1-min load average when the child started):");
    for (const s of summary) {
      for (const [i, name] of CONTENDERS.entries()) {
        const runs = s.runs.map((r) => r[i]);
        console.log(
          `  ${s.label} ${name}: ${runs.map((r) => `${r.peakRssMB.toFixed(0)} / ${(r.callMs / 1000).toFixed(2)} (${r.load1.toFixed(1)})`).join(", ")}`,
        );
      }
    }
  }
  console.log(
    "\n  call s = the upsert / MERGE call alone (table opened and batch read before it); process s = the child process" +
      " from spawn to exit; peak RSS = the child's own OS maxrss (Node process.resourceUsage().maxRSS, Python" +
      " ru_maxrss); RSS pre-call = the child's RSS just before the call (runtime + imports + batch);" +
      " files rm/add and MB read/written = the commit's remove/add actions and their sizes.",
  );
}

async function main() {
  const { flags, knobs } = parseFlags(process.argv.slice(2));
  const sizes = flags.sizes.split(",").map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isSafeInteger(n) || n <= 0)) throw new Error(`bad --sizes ${flags.sizes}`);
  const repeat = Number(flags.repeat);
  if (!Number.isSafeInteger(repeat) || repeat < 1) throw new Error(`bad --repeat ${flags.repeat}`);
  if (!(await exists(deltaliteDist))) {
    throw new Error(`${deltaliteDist} is missing: build first (pnpm exec tsc -b)`);
  }
  flags.dir = resolve(flags.dir);
  console.error(
    `machine: ${cpus().length} vCPU (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 1024 ** 3).toFixed(0)} GiB RAM; node ${process.version}` +
      (Object.keys(knobs).length ? `; upsert options ${JSON.stringify(knobs)}` : ""),
  );

  const summary = [];
  for (const rows of sizes) {
    const { folder, meta } = await ensureGenerated(flags, rows);
    const label = rows >= 1_000_000 && rows % 1_000_000 === 0 ? `${rows / 1_000_000}M` : String(rows);
    const workDir = join(flags.dir, "work");
    await mkdir(workDir, { recursive: true });
    const runs = [];
    let last;
    for (let r = 0; r < repeat; r++) {
      // Alternate who goes first so neither always meets the colder page cache.
      const order = r % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse();
      const byName = {};
      for (const contender of order) {
        console.error(`${label} run ${r + 1}/${repeat}: ${contender} …`);
        byName[contender] = await runContender(
          contender,
          join(folder, "pristine"),
          join(folder, "batch.parquet"),
          workDir,
          knobs,
          meta,
        );
      }
      last = CONTENDERS.map((c) => byName[c]);
      runs.push(last);
    }
    console.error(`${label}: comparing the two result tables …`);
    const check = await runJsonChild(python, [
      pythonScript,
      "verify",
      last[0].tableDir,
      last[1].tableDir,
      String(meta.rows + meta.batchInserts),
    ]);
    const contenders = CONTENDERS.map((name, i) => {
      const all = runs.map((run) => run[i]);
      const med = (pick) => median(all.map(pick));
      return {
        contender: name,
        callMs: med((x) => x.callMs),
        processMs: med((x) => x.processMs),
        peakRssMB: med((x) => x.peakRssMB),
        rssBeforeCallMB: med((x) => x.rssBeforeCallMB),
        filesRemoved: all[all.length - 1].filesRemoved,
        filesAdded: all[all.length - 1].filesAdded,
        bytesRemoved: all[all.length - 1].bytesRemoved,
        bytesAdded: all[all.length - 1].bytesAdded,
        stats: all[all.length - 1].stats ?? all[all.length - 1].metrics,
      };
    });
    summary.push({ label, meta, contenders, runs, identical: check.identical, mismatches: check.mismatches });
  }

  printTable(summary, repeat);
  if (flags.json) {
    const stripped = summary.map(({ runs, ...s }) => ({
      ...s,
      runs: runs.map((run) => run.map(({ tableDir, ...r }) => r)),
    }));
    await writeFile(flags.json, `${JSON.stringify({ sizes, repeat, knobs, summary: stripped }, null, 2)}\n`);
  }
  for (const s of summary) {
    if (!s.identical) process.exitCode = 1;
  }
  // The result tables are kept for inspection only when they differ.
  if (!process.exitCode) await rm(join(flags.dir, "work"), { recursive: true, force: true });
  // The cached tables stay; list them so they can be removed by hand.
  const cached = (await readdir(flags.dir)).filter((n) => n.startsWith("upsert-"));
  console.error(`cached tables in ${flags.dir}: ${cached.join(", ")}`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
