// `pnpm bench parquet`: bounded-memory benchmark of the streaming Parquet writer and the row-group reader (not
// a test). For each size and target (local disk, a moto S3 server this script starts and stops with the tests'
// launcher, tools/src/s3-server.ts) it runs, each in its own child process: deltalite's writer, deltalite's
// reader (full read, all columns, one row group at a time), pyarrow writing and reading the same rows, and
// delta-rs (write_deltalake) writing them as a Delta table. It prints one table per target (wall s, rows/s,
// MB/s, peak RSS, ratios) and whether deltalite's peak RSS stayed flat from the smallest to the largest size.
//
//   pnpm exec tsc -b && pnpm bench parquet [--sizes 1000000,10000000] [--targets local,s3]
//     [--knobs tight|defaults] [--json out.json]
//
// Writer knobs (`--knobs`): `tight` (default) = 131,072-row row groups, multipart from 5 MiB in 5 MiB parts
// (4 in flight), 100 MiB files: every file streams and the writer and reader reach their steady state within
// the first 1M rows, so peak RSS can be compared across sizes. `defaults` = the writer's defaults (1,048,576-row
// / 128 MiB row groups, multipart from 64 MiB in 16 MiB parts): at 1M rows the whole table is one row group in
// one 32 MB file gathered for a single put, so its memory ceiling is only reached at a few million rows.
// pyarrow and delta-rs get the same row-group size (and boto3 the same multipart threshold and part size).
//
// Peak RSS is each child's own getrusage maxrss (Node: process.resourceUsage().maxRSS; Python: ru_maxrss),
// so it includes the runtime and the data generation, and excludes the moto server.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startS3Server } from "@deltalite/tools/s3-server";
import { runJsonChild } from "../lib/child-json.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");
const venvBin = join(repo, "tools/oracle/.venv/bin");
const referenceScript = join(here, "parquet_reference.py");
const BATCH_ROWS = 65_536;
const BUCKET = "bench";
const MiB = 1024 * 1024;
const KNOBS = {
  tight: {
    targetFileSize: 100 * MiB,
    maxRowGroupRows: 131_072,
    multipartThresholdBytes: 5 * MiB,
    multipartPartSizeBytes: 5 * MiB,
    multipartConcurrency: 4,
  },
  defaults: {
    targetFileSize: 100 * MiB,
    maxRowGroupRows: 1_048_576,
    multipartThresholdBytes: 64 * MiB,
    multipartPartSizeBytes: 16 * MiB,
    multipartConcurrency: 4,
  },
};

// ------------------------------------------------------------------------------------------- child: our writer

/** Rows start..start+n as one RecordBatch; the same values as parquet_reference.py's rows_table. */
async function rowBatches(rows) {
  const { makeData, RecordBatch, Schema, Field, Int64, Float64, Utf8, Struct, TimestampMicrosecond } =
    await import("apache-arrow");
  const fields = [
    new Field("id", new Int64(), true),
    new Field("day", new Utf8(), true),
    new Field("val", new Utf8(), true),
    new Field("amount", new Float64(), true),
    new Field("ts", new TimestampMicrosecond("UTC"), true),
  ];
  const schema = new Schema(fields);
  const encoder = new TextEncoder();
  const days = Array.from({ length: 30 }, (_, d) =>
    encoder.encode(`2026-01-${String(d + 1).padStart(2, "0")}`),
  );
  const TS_BASE_US = 1_767_225_600_000_000;
  const timing = { generationMs: 0, generationCpuMicros: 0 };
  const utf8 = (offsets, bytes) =>
    makeData({
      type: new Utf8(),
      length: offsets.length - 1,
      nullCount: 0,
      valueOffsets: offsets,
      data: bytes,
    });
  function* batches() {
    for (let start = 0; start < rows; start += BATCH_ROWS) {
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const n = Math.min(BATCH_ROWS, rows - start);
      const id = new BigInt64Array(n);
      const ts = new BigInt64Array(n);
      const amount = new Float64Array(n);
      const dayOffsets = new Int32Array(n + 1);
      const dayBytes = new Uint8Array(n * 10);
      const valOffsets = new Int32Array(n + 1);
      const valBytes = new Uint8Array(n * 14);
      let vpos = 0;
      for (let j = 0; j < n; j++) {
        const i = start + j;
        id[j] = BigInt(i);
        ts[j] = BigInt(TS_BASE_US + i * 1_000_003);
        const x = i * 0.6180339887;
        amount[j] = (x - Math.floor(x)) * 1000;
        dayBytes.set(days[i % 30], j * 10);
        dayOffsets[j + 1] = (j + 1) * 10;
        vpos += encoder.encodeInto(
          `${(i * 7919) % 1_000_003}-${(i * 104_729) % 999_983}`,
          valBytes.subarray(vpos),
        ).written;
        valOffsets[j + 1] = vpos;
      }
      const children = [
        makeData({ type: new Int64(), length: n, nullCount: 0, data: id }),
        utf8(dayOffsets, dayBytes),
        utf8(valOffsets, valBytes.subarray(0, vpos)),
        makeData({ type: new Float64(), length: n, nullCount: 0, data: amount }),
        makeData({ type: new TimestampMicrosecond("UTC"), length: n, nullCount: 0, data: ts }),
      ];
      const batch = new RecordBatch(
        schema,
        makeData({ type: new Struct(fields), length: n, nullCount: 0, children }),
      );
      timing.generationMs += performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      timing.generationCpuMicros += cpu.user + cpu.system;
      yield batch;
    }
  }
  return { schema, batches, timing };
}

async function openBenchStore(where, config) {
  const { LocalFileStore, openStore } = await import("@deltalite/object-store");
  if (where !== "s3") return new LocalFileStore(where);
  return openStore(`s3://${config.bucket}/${config.prefix}`, { storageOptions: config.storageOptions });
}

async function childWrite(rows, where, config) {
  const { writeParquetFiles } = await import("@deltalite/parquet-stream");
  const { wasmMemory } = await import("parquet-wasm");
  const store = await openBenchStore(where, config);
  const { schema, batches, timing } = await rowBatches(rows);
  let n = 0;
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const files = await writeParquetFiles(store, batches(), {
    schema,
    targetFileSize: config.targetFileSize,
    maxRowGroupRows: config.maxRowGroupRows,
    multipartThresholdBytes: config.multipartThresholdBytes,
    multipartPartSizeBytes: config.multipartPartSizeBytes,
    multipartConcurrency: config.multipartConcurrency,
    nextKey: () => `part-${String(n++).padStart(5, "0")}.snappy.parquet`,
  });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  return {
    rows,
    files: files.map((f) => ({ key: f.key, size: f.size })),
    rowGroups: files.reduce((s, f) => s + f.metadata.row_groups.length, 0),
    bytes: files.reduce((s, f) => s + f.size, 0),
    wallSeconds: wallMs / 1000,
    seconds: (wallMs - timing.generationMs) / 1000,
    generationSeconds: timing.generationMs / 1000,
    cpuSeconds: (cpu.user + cpu.system - timing.generationCpuMicros) / 1e6,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    wasmMemoryMB: wasmMemory().buffer.byteLength / MiB,
  };
}

// ------------------------------------------------------------------------------------------- child: our reader

async function childRead(files, where, config) {
  const { openParquetReader } = await import("@deltalite/parquet-stream");
  const store = await openBenchStore(where, config);
  let rows = 0;
  let batches = 0;
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  for (const file of files) {
    const reader = await openParquetReader(store, file.key, { size: file.size });
    for await (const batch of reader.readRowGroups()) {
      rows += batch.numRows;
      batches++;
    }
  }
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  return {
    rows,
    batches,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    bytes: files.reduce((s, f) => s + f.size, 0),
    wallSeconds: wallMs / 1000,
    seconds: wallMs / 1000,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
  };
}

// ------------------------------------------------------------------------------------------------------ parent

const ENGINES = {
  "deltalite write": { label: "deltalite (parquet-wasm)", op: "write" },
  "pyarrow write": { label: "pyarrow 22 ParquetWriter", op: "write" },
  "delta-rs write": { label: "delta-rs 1.6.6 write_deltalake", op: "write" },
  "deltalite read": { label: "deltalite openParquetReader", op: "read" },
  "pyarrow read": { label: "pyarrow 22 read_row_group", op: "read" },
};

const fmtInt = (n) => Math.round(n).toLocaleString("en-US");
const fmtLoad = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");

function printTarget(target, results, sizes) {
  console.log(`\n### target: ${target === "s3" ? "S3 (moto_server on 127.0.0.1)" : "local disk"}\n`);
  console.log(
    "| rows | op | engine | files | MB | wall s | s | rows/s | MB/s | CPU s | peak RSS MB | deltalite ÷ this: s | CPU s | peak RSS |",
  );
  console.log("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const rows of sizes) {
    for (const [name, engine] of Object.entries(ENGINES)) {
      const r = results.find((x) => x.target === target && x.rows === rows && x.name === name);
      if (!r) continue;
      const ours = results.find(
        (x) => x.target === target && x.rows === rows && x.name === `deltalite ${engine.op}`,
      );
      const mine = name === `deltalite ${engine.op}`;
      // A delta-rs time that the overlapped generation swallowed (under a tenth of its wall) is no measurement.
      const timed = r.seconds > 0 && (name !== "delta-rs write" || r.seconds >= 0.1 * r.wallSeconds);
      const ratio = (a, b, ok = true) => (ours && !mine && ok ? `${(a / b).toFixed(2)}×` : "");
      const files = Array.isArray(r.files) ? r.files.length : (r.files ?? "");
      const dagger = name === "delta-rs write" ? "†" : "";
      const cells = [
        fmtInt(rows),
        engine.op,
        engine.label,
        files,
        (r.bytes / 1e6).toFixed(1),
        r.wallSeconds.toFixed(2),
        timed ? `${r.seconds.toFixed(2)}${dagger}` : `n/a${dagger}`,
        timed ? fmtInt(rows / r.seconds) : "",
        timed ? (r.bytes / 1e6 / r.seconds).toFixed(1) : "",
        r.cpuSeconds.toFixed(2),
        Math.round(r.peakRssMB),
        ratio(ours?.seconds, r.seconds, timed),
        ratio(ours?.cpuSeconds, r.cpuSeconds),
        ratio(ours?.peakRssMB, r.peakRssMB),
      ];
      console.log(`| ${cells.join(" | ")} |`);
    }
  }
  const smallest = sizes[0];
  const largest = sizes[sizes.length - 1];
  for (const op of ["write", "read"]) {
    const at = (rows) =>
      results.find((x) => x.target === target && x.rows === rows && x.name === `deltalite ${op}`);
    const a = at(smallest);
    const b = at(largest);
    if (!a || !b) continue;
    const growth = (b.peakRssMB - a.peakRssMB) / a.peakRssMB;
    const verdict =
      smallest === largest
        ? "only one size run: flatness not measured"
        : Math.abs(growth) <= 0.1
          ? "FLAT (within ±10%)"
          : `NOT flat: ${growth > 0 ? "grew" : "shrank"} ${Math.abs(growth * 100).toFixed(0)}%`;
    console.log(
      `\ndeltalite ${op} peak RSS, ${target}: ${fmtInt(smallest)} rows ${Math.round(a.peakRssMB)} MB → ${fmtInt(largest)} rows ${Math.round(b.peakRssMB)} MB (${growth >= 0 ? "+" : ""}${(growth * 100).toFixed(1)}%) — ${verdict}` +
        (op === "write"
          ? `; WASM memory ${Math.round(a.wasmMemoryMB)} → ${Math.round(b.wasmMemoryMB)} MiB`
          : ""),
    );
  }
}

async function parent() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      sizes: { type: "string", default: "1000000,10000000" },
      targets: { type: "string", default: "local,s3" },
      knobs: { type: "string", default: "tight" },
      json: { type: "string" },
    },
  });
  const sizes = values.sizes.split(",").map((s) => Number(s.replaceAll("_", "")));
  if (sizes.some((s) => !Number.isSafeInteger(s) || s <= 0)) throw new Error(`bad --sizes ${values.sizes}`);
  const targets = values.targets.split(",");
  if (targets.some((t) => t !== "local" && t !== "s3")) throw new Error(`bad --targets ${values.targets}`);
  const knobs = KNOBS[values.knobs];
  if (!knobs) throw new Error(`bad --knobs ${values.knobs} (tight, defaults)`);
  const mib = (n) => `${n / MiB} MiB`;
  const started = Date.now();
  const header = [
    `pnpm bench parquet --sizes ${sizes.join(",")} --targets ${targets.join(",")} --knobs ${values.knobs}`,
    `started ${new Date(started).toISOString()}, node ${process.version}, load average at start ${fmtLoad()}`,
    `writer knobs "${values.knobs}": snappy, row groups ≤ ${fmtInt(knobs.maxRowGroupRows)} rows (pyarrow, delta-rs: same), targetFileSize ${mib(knobs.targetFileSize)} (delta-rs: same), multipart from ${mib(knobs.multipartThresholdBytes)} in ${mib(knobs.multipartPartSizeBytes)} parts, ${knobs.multipartConcurrency} in flight (boto3 for pyarrow's S3 upload: same); reader: readRowGroups() all columns, one row group per batch, default read-ahead 1`,
  ];
  for (const line of header) process.stderr.write(`${line}\n`);

  const moto = targets.includes("s3") ? await startS3Server() : undefined;
  const results = [];
  const loads = [];
  try {
    if (moto) await moto.createBucket(BUCKET);
    for (const rows of sizes) {
      for (const target of targets) {
        const dir = await mkdtemp(join(tmpdir(), "deltalite-bench-"));
        const config = (engine) => ({
          bucket: BUCKET,
          prefix: `${rows}/${engine}/`,
          storageOptions: moto?.storageOptions,
          endpoint: moto?.endpoint,
          accessKeyId: moto?.storageOptions.AWS_ACCESS_KEY_ID,
          secretAccessKey: moto?.storageOptions.AWS_SECRET_ACCESS_KEY,
          ...knobs,
        });
        const where = (engine) => (target === "s3" ? "s3" : join(dir, engine));
        const record = (name, r) => {
          const entry = { name, target, ...r, rows };
          results.push(entry);
          process.stderr.write(
            `  ${target} ${fmtInt(rows)} ${name}: ${r.seconds.toFixed(2)} s, peak RSS ${Math.round(r.peakRssMB)} MB (load ${fmtLoad()})\n`,
          );
          return entry;
        };
        const node = (args) =>
          runJsonChild(process.execPath, [fileURLToPath(import.meta.url), "--child", ...args]);
        const python = (args) => runJsonChild(join(venvBin, "python"), [referenceScript, ...args]);
        try {
          loads.push(loadavg()[0]);
          for (const engine of ["ours", "pyarrow", "delta-rs"]) {
            if (target === "local") await mkdir(where(engine));
          }
          const oursW = record(
            "deltalite write",
            await node(["write", String(rows), where("ours"), JSON.stringify(config("ours"))]),
          );
          const oursR = record(
            "deltalite read",
            await node(["read", JSON.stringify(oursW.files), where("ours"), JSON.stringify(config("ours"))]),
          );
          if (oursR.rows !== rows) throw new Error(`deltalite read back ${oursR.rows} rows, wrote ${rows}`);
          const paW = record(
            "pyarrow write",
            await python([
              "pyarrow-write",
              String(rows),
              where("pyarrow"),
              JSON.stringify(config("pyarrow")),
            ]),
          );
          const paR = record(
            "pyarrow read",
            await python([
              "pyarrow-read",
              JSON.stringify(paW.files),
              where("pyarrow"),
              JSON.stringify(config("pyarrow")),
            ]),
          );
          if (paR.rows !== rows) throw new Error(`pyarrow read back ${paR.rows} rows, wrote ${rows}`);
          record(
            "delta-rs write",
            await python([
              "deltars-write",
              String(rows),
              where("delta-rs"),
              JSON.stringify(config("delta-rs")),
            ]),
          );
        } finally {
          await rm(dir, { recursive: true, force: true });
          if (moto) await deletePrefix(moto.storageOptions, `${rows}/`);
        }
      }
    }
  } finally {
    await moto?.stop();
  }
  const finished = Date.now();
  console.log(`## pnpm bench parquet — ${new Date(started).toISOString()}\n`);
  for (const line of header) console.log(`    ${line}`);
  console.log(
    `    finished ${new Date(finished).toISOString()} (${((finished - started) / 1000).toFixed(0)} s); 1-min load average at each size/target start: ${loads.map((l) => l.toFixed(2)).join(", ")}; at end ${fmtLoad()}`,
  );
  console.log(
    "    wall s includes generating the rows; s = wall minus the time spent generating them (reads: wall); rows/s and MB/s use s; CPU s = the child's user+system CPU over all its threads minus the CPU spent generating rows (Node process.cpuUsage(), Python time.process_time()), steadier than wall under load, moto's CPU not included; MB = Parquet bytes written / read; peak RSS = the child process's own maxrss (Node process.resourceUsage().maxRSS, Python ru_maxrss)",
  );
  console.log(
    "    † delta-rs pulls batches from a Python generator while its Rust threads encode, so generation overlaps the write: its s is wall minus a separately timed generation-only pass, a lower bound on its own write time (it favours delta-rs; n/a when the overlap swallowed it); its CPU s (write-run CPU minus the generation-only pass's CPU) is not affected by the overlap",
  );
  for (const target of targets) printTarget(target, results, sizes);
  if (values.json)
    await writeFile(values.json, JSON.stringify({ started, sizes, targets, results }, null, 2));
}

async function deletePrefix(storageOptions, prefix) {
  const { openStore } = await import("@deltalite/object-store");
  const store = await openStore(`s3://${BUCKET}/`, { storageOptions });
  const keys = [];
  for await (const meta of store.list(prefix)) keys.push(meta.key);
  for (const key of keys) await store.delete(key);
}

if (process.argv[2] === "--child") {
  const [, , , mode, arg, where, configJson] = process.argv;
  const config = JSON.parse(configJson);
  const result =
    mode === "write"
      ? await childWrite(Number(arg), where, config)
      : await childRead(JSON.parse(arg), where, config);
  console.log(JSON.stringify(result));
} else {
  await parent();
}
