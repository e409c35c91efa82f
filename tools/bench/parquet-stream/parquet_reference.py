"""Reference side of `pnpm bench parquet`: pyarrow and delta-rs doing the work deltalite's streaming writer and
reader do in parquet-bench.mjs, one measurement per process, printing one JSON line (peak RSS = getrusage
ru_maxrss of this process, KiB on Linux).

  python parquet_reference.py pyarrow-write <rows> <local-dir | s3> <json-config>
  python parquet_reference.py pyarrow-read  <json files [{key,size}]> <local-dir | s3> <json-config>
  python parquet_reference.py deltars-write <rows> <local-dir | s3> <json-config>

Rows are the same as parquet-bench.mjs generates, value for value (see `rows_table`)."""
import json
import os
import resource
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

BATCH_ROWS = 65_536
TS_BASE_US = 1_767_225_600_000_000  # 2026-01-01T00:00:00Z
SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("day", pa.string()),
        ("val", pa.string()),
        ("amount", pa.float64()),
        ("ts", pa.timestamp("us", tz="UTC")),
    ]
)
DAYS = pa.array([f"2026-01-{d + 1:02d}" for d in range(30)])


def _mod(a, m):
    return pc.subtract(a, pc.multiply(pc.divide(a, m), m))


def rows_table(start, n):
    """Rows start..start+n: id=i, day=2026-01-(i%30+1), val='(i*7919)%1000003-(i*104729)%999983',
    amount=frac(i*0.6180339887)*1000, ts=2026-01-01Z + i*1.000003 s."""
    ids = pa.array(range(start, start + n), pa.int64())
    val = pc.binary_join_element_wise(
        _mod(pc.multiply(ids, 7919), 1_000_003).cast(pa.string()),
        _mod(pc.multiply(ids, 104_729), 999_983).cast(pa.string()),
        "-",
    )
    x = pc.multiply(ids.cast(pa.float64()), 0.6180339887)
    amount = pc.multiply(pc.subtract(x, pc.floor(x)), 1000.0)
    ts = pc.add(pc.multiply(ids, 1_000_003), TS_BASE_US).cast(pa.timestamp("us", tz="UTC"))
    return pa.table([ids, DAYS.take(_mod(ids, 30)), val, amount, ts], schema=SCHEMA)


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def s3_client(cfg):
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=cfg["endpoint"],
        region_name="us-east-1",
        aws_access_key_id=cfg["accessKeyId"],
        aws_secret_access_key=cfg["secretAccessKey"],
    )


def pyarrow_write(rows, where, cfg):
    # pyarrow's own S3 multipart completion fails against moto ("error embedded in a 200 OK"), so for S3 it
    # writes a local temp file that boto3 then uploads (multipart with the writer's threshold, part size and
    # concurrency): both timed.
    local_dir = tempfile.mkdtemp(prefix="deltalite-bench-pa-") if where == "s3" else where
    path = os.path.join(local_dir, "part-00000.snappy.parquet")
    generation = 0.0
    generation_cpu = 0.0
    started = time.perf_counter()
    cpu_started = time.process_time()
    with pq.ParquetWriter(path, SCHEMA, compression="snappy") as writer:
        group = cfg["maxRowGroupRows"]
        for offset in range(0, rows, group):
            t0, c0 = time.perf_counter(), time.process_time()
            table = rows_table(offset, min(group, rows - offset))
            generation += time.perf_counter() - t0
            generation_cpu += time.process_time() - c0
            writer.write_table(table)  # one row group per call
            del table
    size = os.path.getsize(path)
    key = path
    if where == "s3":
        from boto3.s3.transfer import TransferConfig

        key = f"{cfg['prefix']}part-00000.snappy.parquet"
        s3_client(cfg).upload_file(
            path,
            cfg["bucket"],
            key,
            Config=TransferConfig(
                multipart_threshold=cfg["multipartThresholdBytes"],
                multipart_chunksize=cfg["multipartPartSizeBytes"],
                max_concurrency=cfg["multipartConcurrency"],
            ),
        )
        os.remove(path)
        os.rmdir(local_dir)
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    return {
        "rows": rows,
        "generationSeconds": generation,
        "cpuSeconds": cpu - generation_cpu,
        "files": [{"key": key, "size": size}],
        "bytes": size,
        "wallSeconds": wall,
        "seconds": wall - generation,
        "peakRssMB": peak_rss_mb(),
    }


def pyarrow_read(files, where, cfg):
    fs = None
    if where == "s3":
        from pyarrow import fs as pafs

        fs = pafs.S3FileSystem(
            access_key=cfg["accessKeyId"],
            secret_key=cfg["secretAccessKey"],
            region="us-east-1",
            endpoint_override=cfg["endpoint"].replace("http://", ""),
            scheme="http",
        )
    rows = 0
    started = time.perf_counter()
    cpu_started = time.process_time()
    for f in files:
        source = fs.open_input_file(f"{cfg['bucket']}/{f['key']}") if fs else f["key"]
        # pre_buffer: coalesced reads of each row group's column chunks (pyarrow.dataset's default), like
        # deltalite's reader; without it one 10M-row read from moto took 147 s (BENCHMARKS.md §4).
        pf = pq.ParquetFile(source, pre_buffer=True)
        for g in range(pf.num_row_groups):
            rows += pf.read_row_group(g).num_rows
    wall = time.perf_counter() - started
    size = sum(f["size"] for f in files)
    cpu = time.process_time() - cpu_started
    return {
        "rows": rows,
        "bytes": size,
        "wallSeconds": wall,
        "seconds": wall,
        "cpuSeconds": cpu,
        "peakRssMB": peak_rss_mb(),
    }


def deltars_write(rows, where, cfg):
    from deltalake import DeltaTable, WriterProperties, write_deltalake

    def batches():
        for offset in range(0, rows, BATCH_ROWS):
            yield from rows_table(offset, min(BATCH_ROWS, rows - offset)).to_batches()

    # delta-rs encodes on its own threads while this generator runs, so the generation time cannot be cut out
    # of the write's wall time; it is timed in a generation-only pass first (see the † note of the bench).
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in batches():
        pass
    generation = time.perf_counter() - t0
    generation_cpu = time.process_time() - c0

    if where == "s3":
        uri = f"s3://{cfg['bucket']}/{cfg['prefix'].rstrip('/')}"
        storage_options = dict(cfg["storageOptions"])
    else:
        uri, storage_options = where, None
    started = time.perf_counter()
    cpu_started = time.process_time()
    write_deltalake(
        uri,
        pa.RecordBatchReader.from_batches(SCHEMA, batches()),
        storage_options=storage_options,
        target_file_size=cfg["targetFileSize"],
        writer_properties=WriterProperties(compression="SNAPPY", max_row_group_size=cfg["maxRowGroupRows"]),
    )
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    rss = peak_rss_mb()
    adds = DeltaTable(uri, storage_options=storage_options).get_add_actions(flatten=True)
    sizes = adds.column("size_bytes").to_pylist()
    return {
        "rows": rows,
        "files": len(sizes),
        "bytes": sum(sizes),
        "wallSeconds": wall,
        "seconds": wall - generation,
        "generationSeconds": generation,
        "cpuSeconds": cpu - generation_cpu,
        "peakRssMB": rss,
    }


def main():
    mode, arg, where, cfg = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
    if mode == "pyarrow-write":
        result = pyarrow_write(int(arg), where, cfg)
    elif mode == "pyarrow-read":
        result = pyarrow_read(json.loads(arg), where, cfg)
    elif mode == "deltars-write":
        result = deltars_write(int(arg), where, cfg)
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
