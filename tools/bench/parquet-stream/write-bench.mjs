// Streaming-writer benchmark (not a test). Writes 1M then 10M rows (id int64, day string with 30 distinct
// values, val string of up to 19 digits, amount float64; generated batch by batch, never held whole) to local
// disk and to a moto S3 server, each run in its own child process, and prints peak RSS and rows/s beside
// pyarrow writing the same shape of data in the same run.
//
//   pnpm exec tsc -b && node tools/bench/parquet-stream/write-bench.mjs [rows,rows,...]
//   (BENCH_OURS_ONLY=1 skips the pyarrow runs)
//
// The parent starts moto with the tests' launcher (tools/src/s3-server.ts), creates a bucket with an unsigned
// PUT, and stops the server at the end. Defaults of the writer are used (snappy, 128 MiB / 1,048,576-row row
// groups, 100 MiB files, multipart above 64 MiB in 16 MiB parts, 4 in flight).
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startS3Server } from "@deltalite/tools/s3-server";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../..");
const venv = join(repo, "tools/oracle/.venv/bin");
const BATCH_ROWS = 65_536;

// ------------------------------------------------------------------------------------------------ child: ours

async function childOurs({ rows, target, endpoint, bucket }) {
  const { makeData, makeVector, RecordBatch, Schema, Field, Int64, Float64, Utf8, Struct } = await import(
    "apache-arrow"
  );
  const { writeParquetFiles } = await import("@deltalite/parquet-stream");
  const { wasmMemory } = await import("parquet-wasm");
  const { LocalFileStore, openStore } = await import("@deltalite/object-store");
  const fields = [
    new Field("id", new Int64(), true),
    new Field("day", new Utf8(), true),
    new Field("val", new Utf8(), true),
    new Field("amount", new Float64(), true),
  ];
  const schema = new Schema(fields);
  const encoder = new TextEncoder();
  const days = Array.from({ length: 30 }, (_, i) =>
    encoder.encode(`2026-01-${String(i + 1).padStart(2, "0")}`),
  );
  let generationMs = 0;
  function utf8(offsets, bytes) {
    return makeData({
      type: new Utf8(),
      length: offsets.length - 1,
      nullCount: 0,
      valueOffsets: offsets,
      data: bytes,
    });
  }
  function* batches() {
    for (let start = 0; start < rows; start += BATCH_ROWS) {
      const t0 = performance.now();
      const n = Math.min(BATCH_ROWS, rows - start);
      const id = new BigInt64Array(n);
      const amount = new Float64Array(n);
      const dayOffsets = new Int32Array(n + 1);
      const dayBytes = new Uint8Array(n * 10);
      const valOffsets = new Int32Array(n + 1);
      const valBytes = new Uint8Array(n * 20);
      let vpos = 0;
      for (let i = 0; i < n; i++) {
        id[i] = BigInt(start + i);
        amount[i] = Math.random() * 1000;
        dayBytes.set(days[(start + i) % 30], i * 10);
        dayOffsets[i + 1] = (i + 1) * 10;
        const text = `${Math.floor(Math.random() * 1e9)}${Math.floor(Math.random() * 1e9)}`;
        vpos += encoder.encodeInto(text, valBytes.subarray(vpos)).written;
        valOffsets[i + 1] = vpos;
      }
      const children = [
        makeVector(id).data[0],
        utf8(dayOffsets, dayBytes),
        utf8(valOffsets, valBytes.subarray(0, vpos)),
        makeVector(amount).data[0],
      ];
      const batch = new RecordBatch(
        schema,
        makeData({ type: new Struct(fields), length: n, nullCount: 0, children }),
      );
      generationMs += performance.now() - t0;
      yield batch;
    }
  }
  const store =
    target === "s3"
      ? await openStore(`s3://${bucket}/ours-${rows}`, {
          storageOptions: {
            AWS_ENDPOINT_URL: endpoint,
            AWS_ALLOW_HTTP: "true",
            AWS_REGION: "us-east-1",
            AWS_ACCESS_KEY_ID: "bench",
            AWS_SECRET_ACCESS_KEY: "bench",
            AWS_S3_FORCE_PATH_STYLE: "true",
          },
        })
      : new LocalFileStore(target);
  let n = 0;
  const started = performance.now();
  const files = await writeParquetFiles(store, batches(), {
    schema,
    nextKey: () => `part-${String(n++).padStart(5, "0")}.snappy.parquet`,
  });
  const totalMs = performance.now() - started;
  return {
    rows,
    files: files.length,
    bytes: files.reduce((s, f) => s + f.size, 0),
    rowGroups: files.reduce((s, f) => s + f.metadata.row_groups.length, 0),
    totalSeconds: totalMs / 1000,
    writeSeconds: (totalMs - generationMs) / 1000,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
    wasmMemoryMB: wasmMemory().buffer.byteLength / 2 ** 20,
  };
}

// ------------------------------------------------------------------------------------------------ child: pyarrow

const PYARROW_SCRIPT = `
import json, resource, sys, time
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
rows, target, endpoint, bucket = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
CHUNK = 1_048_576  # one row group per write_table call, like the writer's row cap
days = pa.array([f"2026-01-{i + 1:02d}" for i in range(30)])
schema = pa.schema([("id", pa.int64()), ("day", pa.string()), ("val", pa.string()), ("amount", pa.float64())])
# pyarrow's own S3 multipart completion fails against moto ("error embedded in a 200 OK"), so for S3 pyarrow
# writes a local temp file that boto3 then uploads (multipart, 16 MiB parts, 4 in flight): both are timed.
import os, tempfile
local_dir = tempfile.mkdtemp() if target == "s3" else target
path = os.path.join(local_dir, "part-00000.snappy.parquet")
sink = pa.OSFile(path, "wb")
writer = pq.ParquetWriter(sink, schema, compression="snappy")
gen = 0.0
start = time.perf_counter()
for offset in range(0, rows, CHUNK):
    t0 = time.perf_counter()
    n = min(CHUNK, rows - offset)
    ids = pa.array(range(offset, offset + n), pa.int64())
    val = pc.floor(pc.multiply(pc.random(n), 1e18)).cast(pa.int64()).cast(pa.string())
    day_index = pc.subtract(ids, pc.multiply(pc.divide(ids, 30), 30))
    amount = pc.multiply(pc.random(n), 1000.0)
    table = pa.table({"id": ids, "day": days.take(day_index), "val": val, "amount": amount}, schema=schema)
    gen += time.perf_counter() - t0
    writer.write_table(table)
writer.close()
sink.close()
size = os.path.getsize(path)
if target == "s3":
    import boto3
    from boto3.s3.transfer import TransferConfig
    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="bench", aws_secret_access_key="bench")
    client.upload_file(path, bucket, f"pyarrow-{rows}/part-00000.snappy.parquet", Config=TransferConfig(multipart_threshold=64 << 20, multipart_chunksize=16 << 20, max_concurrency=4))
    os.remove(path)
total = time.perf_counter() - start
print(json.dumps({"rows": rows, "bytes": size, "totalSeconds": total, "writeSeconds": total - gen, "maxRssMB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

// ------------------------------------------------------------------------------------------------ parent

function run(command, args) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"], cwd: repo });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`${command} ${args.join(" ")} exited with ${code}`));
      else resolveRun(JSON.parse(out.trim().split("\n").pop()));
    });
  });
}

async function parent() {
  const sizes = (process.argv[2] ?? "1000000,3000000,10000000").split(",").map(Number);
  const moto = await startS3Server();
  const endpoint = moto.endpoint;
  const bucket = "bench";
  try {
    await moto.createBucket(bucket);
    const results = [];
    for (const rows of sizes) {
      for (const target of ["local", "s3"]) {
        const dir = await mkdtemp(join(tmpdir(), "deltalite-bench-"));
        try {
          const where = target === "s3" ? "s3" : dir;
          const ours = await run(process.execPath, [
            fileURLToPath(import.meta.url),
            "--child",
            String(rows),
            where,
            endpoint,
            bucket,
          ]);
          results.push({ writer: "deltalite (parquet-wasm)", target, ...ours });
          await rm(dir, { recursive: true, force: true });
          if (process.env.BENCH_OURS_ONLY) continue;
          const pyDir = await mkdtemp(join(tmpdir(), "deltalite-bench-py-"));
          const py = await run(join(venv, "python"), [
            "-c",
            PYARROW_SCRIPT,
            String(rows),
            where === "s3" ? "s3" : pyDir,
            endpoint,
            bucket,
          ]);
          results.push({
            writer: "pyarrow 22 (ParquetWriter)",
            target,
            files: 1,
            ...py,
          });
          await rm(pyDir, { recursive: true, force: true });
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
        const last = results.slice(-2);
        for (const r of last) process.stderr.write(`${JSON.stringify(r)}\n`);
      }
    }
    const mb = (n) => (n / 1e6).toFixed(1);
    console.log(
      "| writer | target | rows | files | row groups | MB out | write s (excl. data gen) | rows/s | peak RSS MB | WASM memory MB |",
    );
    console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (const r of results) {
      console.log(
        `| ${r.writer} | ${r.target} | ${r.rows.toLocaleString("en-US")} | ${r.files ?? ""} | ${r.rowGroups ?? ""} | ${mb(r.bytes)} | ${r.writeSeconds.toFixed(2)} | ${Math.round(r.rows / r.writeSeconds).toLocaleString("en-US")} | ${Math.round(r.maxRssMB)} | ${r.wasmMemoryMB === undefined ? "" : Math.round(r.wasmMemoryMB)} |`,
      );
    }
  } finally {
    await moto.stop();
  }
}

if (process.argv[2] === "--child") {
  const [, , , rows, target, endpoint, bucket] = process.argv;
  const result = await childOurs({ rows: Number(rows), target, endpoint, bucket });
  console.log(JSON.stringify(result));
} else {
  await parent();
}
