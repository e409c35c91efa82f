// The writer's row-group size chosen by measurement (issue 14; not a test): runs OUR upsert or historyUpsert
// on a cached bench table once per writer setting — each `maxRowGroupBytes` cap of --caps (MiB; `4/8` also
// sets `multipartThresholdBytes` to 8 MiB), crossed with each `multipartThresholdBytes` of --thresholds (MiB)
// when given — in its own child process (the same child
// scripts `pnpm bench upsert` / `pnpm bench history-upsert` use: ../merge-engine/upsert-ours.mjs,
// ../scd2-history/history-ours.mjs), in an order that rotates across repeats, and prints per setting the
// medians of peak RSS, the call time and the child's CPU seconds. The result tables of the last repeat are
// then read by delta-rs and pyarrow (read_time.py, medians of --read-repeat rounds, interleaved) and their
// read times are printed beside the --baseline setting's (default: the 128 MiB cap, today's default).
//
// Each run works on a copy of the pristine table whose data files are hard links (Delta data files are
// immutable; the upsert only adds files) and whose _delta_log is a real copy, so runs cost no table copy.
//
//   node tools/bench/parquet-stream/row-group-sweep.mjs --kind upsert|history --table <cached folder>
//     --batch <batch.parquet> [--caps 4,8,16,32,64,128] [--thresholds 8,16,64] [--repeat 3]
//     [--read-repeat 5] [--ours-repo <repo whose built packages and child scripts run>] [--work D]
//     [--json out.json] [--keep] [--<engine-option> value …]
// (`--keep`: the result tables stay under --work, for read_time.py alone.)
//   e.g. … --kind upsert --table /tmp/deltalite-bench/upsert-r1000000-p8-f30-s42
//          --batch /tmp/deltalite-bench/upsert-r1000000-p8-f30-s42/batch-uniform-b0.01.parquet
// (the tables and batches are those `pnpm bench upsert` / `pnpm bench history-upsert` cache.)
import { spawn } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runJsonChild } from "../lib/child-json.mjs";
import { parseBenchFlags } from "../lib/flags.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const MiB = 1024 * 1024;
const KIND_OPTIONS = {
  upsert: { script: "merge-engine/upsert-ours.mjs", options: { primaryKeys: ["id"], partitionKey: "day" } },
  history: {
    script: "scd2-history/history-ours.mjs",
    options: {
      keyColumns: ["id"],
      orderColumn: "seq",
      validFromColumn: "valid_from",
      validToColumn: "valid_to",
      partitionColumn: "part",
      currentPartition: "current",
    },
  },
};
const DEFAULTS = {
  kind: "upsert",
  table: "",
  batch: "",
  caps: "4,8,16,32,64,128",
  thresholds: "",
  baseline: "",
  repeat: "3",
  "read-repeat": "5",
  "ours-repo": resolve(here, "../../.."),
  work: "/tmp/deltalite-bench/work-row-group-sweep",
  json: "",
  keep: "false",
};
const USAGE =
  "node row-group-sweep.mjs --kind upsert|history --table <folder> --batch <file> [--caps 4,8,…]\n" +
  "  [--thresholds 8,16,64] [--baseline <label>] [--repeat 3] [--read-repeat 5] [--ours-repo R] [--work D]\n" +
  "  [--json out.json] [--keep] [--<engine-option> value …]";

const list = (text) => (text === "" ? [] : text.split(",").map((s) => s.trim()));

/** One setting's label and engine options: `cap` or `cap/threshold`, in MiB. */
function setting(cap, threshold) {
  if (threshold === undefined) return [`rg ${cap}`, { maxRowGroupBytes: Number(cap) * MiB }];
  const options = { maxRowGroupBytes: Number(cap) * MiB, multipartThresholdBytes: Number(threshold) * MiB };
  return [`rg ${cap} mp ${threshold}`, options];
}

/** The writer settings to compare: label → the engine options they add. */
function settingsOf(flags) {
  const thresholds = list(flags.thresholds);
  const pairs = list(flags.caps).flatMap((entry) => {
    const [cap, threshold] = entry.split("/");
    if (threshold !== undefined || thresholds.length === 0) return [setting(cap, threshold)];
    return thresholds.map((t) => setting(cap, t));
  });
  return Object.fromEntries(pairs);
}

function runCommand(command, args) {
  return new Promise((done, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? done() : reject(new Error(`${command} exited with ${code}`))));
  });
}

/** A copy of `pristine` at `dir`: data files hard-linked, the log copied. */
async function linkedCopy(pristine, dir) {
  await rm(dir, { recursive: true, force: true });
  await runCommand("cp", ["-al", pristine, dir]);
  await rm(join(dir, "_delta_log"), { recursive: true, force: true });
  await runCommand("cp", ["-r", join(pristine, "_delta_log"), join(dir, "_delta_log")]);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

const rotation = (names, i) => [...names.slice(i % names.length), ...names.slice(0, i % names.length)];

async function oneRun(ctx, label, dir) {
  await linkedCopy(join(ctx.table, "pristine"), dir);
  const options = { ...KIND_OPTIONS[ctx.kind].options, ...ctx.knobs, ...ctx.settings[label] };
  const load1 = loadavg()[0];
  const script = join(ctx.oursRepo, "tools/bench", KIND_OPTIONS[ctx.kind].script);
  // GNU time gives the child's CPU seconds (all its threads): steadier than wall time on a loaded machine.
  const cpuFile = `${dir}.cpu`;
  const args = [process.execPath, script, dir, ctx.batch, JSON.stringify(options)];
  const r = await runJsonChild("/usr/bin/time", ["-f", "%U %S", "-o", cpuFile, ...args]);
  if (r.version !== ctx.meta.version + 1)
    throw new Error(`${label}: version ${r.version}, expected one commit`);
  const [user, system] = (await readFile(cpuFile, "utf8")).trim().split(/\s+/).map(Number);
  await rm(cpuFile, { force: true });
  return { load1, callMs: r.callMs, cpuS: user + system, peakRssMB: r.peakRssMB, stats: r.stats };
}

async function measure(ctx) {
  const labels = Object.keys(ctx.settings);
  const runs = Object.fromEntries(labels.map((l) => [l, []]));
  const dirs = Object.fromEntries(labels.map((l) => [l, join(ctx.work, l.replace(/ /g, "-"))]));
  for (let r = 0; r < ctx.repeat; r++) {
    for (const label of rotation(labels, r)) {
      console.error(`run ${r + 1}/${ctx.repeat}: ${label} (load ${loadavg()[0].toFixed(1)}) …`);
      const run = await oneRun(ctx, label, dirs[label]);
      runs[label].push(run);
      console.error(
        `  ${label}: peak RSS ${run.peakRssMB.toFixed(0)} MB, call ${(run.callMs / 1000).toFixed(2)} s, CPU ${run.cpuS.toFixed(1)} s`,
      );
    }
  }
  return { runs, dirs };
}

const fixed = (x, digits = 0) => (x === undefined ? "-" : x.toFixed(digits));

function printSummary(ctx, runs, reads) {
  const base = reads?.[ctx.baseline];
  const header = [
    "setting",
    "peak RSS MB",
    "call s",
    "process CPU s",
    "files added",
    "row groups",
    "rg rows",
  ];
  const readHeader = ["delta-rs s", "pyarrow s", "rewritten s", "vs base d-rs/pa/rw", "CPU vs base"];
  console.log([...header, ...(reads ? readHeader : [])].join(" | "));
  for (const [label, xs] of Object.entries(runs)) {
    const read = reads?.[label];
    const cells = [
      label,
      fixed(median(xs.map((x) => x.peakRssMB))),
      fixed(median(xs.map((x) => x.callMs)) / 1000, 2),
      fixed(median(xs.map((x) => x.cpuS)), 1),
      xs[0].stats.filesAdded,
      read?.added.rowGroups ?? "-",
      read ? fixed(read.added.medianRows) : "-",
    ];
    if (read) {
      const s = read.medianSeconds;
      const vs = ["delta-rs", "pyarrow", "rewritten"].map((k) => fixed(s[k] / base.medianSeconds[k], 2));
      const c = read.medianCpuSeconds;
      const cpu = ["delta-rs", "pyarrow", "rewritten"].map((k) => fixed(c[k] / base.medianCpuSeconds[k], 2));
      cells.push(
        fixed(s["delta-rs"], 3),
        fixed(s.pyarrow, 3),
        fixed(s.rewritten, 3),
        vs.join("/"),
        cpu.join("/"),
      );
    }
    console.log(cells.join(" | "));
  }
  console.log("\nper run: peak RSS MB / call s / process CPU s (load):");
  for (const [label, xs] of Object.entries(runs)) {
    console.log(
      `  ${label}: ${xs.map((x) => `${fixed(x.peakRssMB)} / ${fixed(x.callMs / 1000, 2)} / ${fixed(x.cpuS, 1)} (${fixed(x.load1, 1)})`).join(", ")}`,
    );
  }
}

async function main() {
  const { flags, knobs } = parseBenchFlags(process.argv.slice(2), {
    defaults: DEFAULTS,
    switches: ["keep"],
    usage: USAGE,
  });
  if (!KIND_OPTIONS[flags.kind] || flags.table === "" || flags.batch === "") throw new Error(USAGE);
  const settings = settingsOf(flags);
  const meta = JSON.parse(await readFile(join(flags.table, "table.json"), "utf8"));
  const ctx = {
    kind: flags.kind,
    table: resolve(flags.table),
    batch: resolve(flags.batch),
    meta,
    knobs,
    settings,
    baseline: flags.baseline || Object.keys(settings).at(-1),
    repeat: Number(flags.repeat),
    oursRepo: resolve(flags["ours-repo"]),
    work: resolve(flags.work, `${basename(flags.table)}-${basename(flags.batch, ".parquet")}`),
  };
  await mkdir(ctx.work, { recursive: true });
  const startLoad = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  console.log(
    `${ctx.kind} on ${flags.table}, batch ${flags.batch}; knobs ${JSON.stringify(knobs)}; load ${startLoad}`,
  );
  const { runs, dirs } = await measure(ctx);
  const readRepeat = Number(flags["read-repeat"]);
  const reads =
    readRepeat > 0
      ? await runJsonChild(join(here, "../../oracle/.venv/bin/python"), [
          join(here, "read_time.py"),
          JSON.stringify({ tables: dirs, repeat: readRepeat }),
        ])
      : undefined;
  console.log(
    `at the end: load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}\n`,
  );
  printSummary(ctx, runs, reads);
  if (flags.json) await writeFile(flags.json, `${JSON.stringify({ flags, knobs, runs, reads }, null, 2)}\n`);
  if (flags.keep !== "true") await rm(ctx.work, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
