"""Python side of `pnpm bench upsert` (upsert-bench.mjs drives it): generates the benchmark tables and their
batches with pyarrow + delta-rs, runs delta-rs MERGE as the reference contender (one process per run, printing
one JSON line with its wall time, peak RSS = getrusage ru_maxrss and its RSS just before the call), and checks
that result tables hold the same rows as a reference table.

  python upsert-delta-rs.py table <json-config>    writes <config.out> (a Delta table), prints its meta
  python upsert-delta-rs.py batch <json-config>    writes <config.out> (one Parquet file), prints its meta
  python upsert-delta-rs.py merge <table-dir> <batch.parquet>
  python upsert-delta-rs.py verify <expected-rows> <reference-dir> <table-dir>…

Rows are deterministic for a seed. Row i (0-based) lives in partition day = DAYS[i % partitions]; its key is a
UUID-shaped string drawn from a seeded stream; `payload` is `<i, 12 digits>-<600 random hex digits>`, unique
per row so neither dictionary encoding nor snappy shrinks it (a row is ~0.75 KB in Arrow). The table is written
in `files` appends of N/files rows each, so every partition holds `files` files, one per append. A batch is
`batchRows` rows (or batchFraction of the table's rows), shuffled: 80% updates (existing keys, every other
column changed) and 20% inserts (new keys) spread over all partitions. Where the updates come from is the
batch's shape:
  uniform  drawn uniformly from the rows of the first ceil(partitions/2) partitions
  recent   drawn uniformly from the rows of the last ceil(files/10) appends, in every partition: only the
           newest 10% of each partition's files are hit, as a time-ordered sync does.
A batch depends only on the table's config (rows, partitions, files, seed), not on its files: the update keys
are re-drawn from the same key streams."""

import gc
import json
import math
import os
import random
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from deltalake import DeltaTable, write_deltalake

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
sys.dont_write_bytecode = True  # no __pycache__ beside the sources for the shared helper
from process_rss import cpu_ms, current_rss_mb, peak_rss_mb  # noqa: E402

TS_BASE_US = 1_767_225_600_000_000  # 2026-01-01T00:00:00Z
PAYLOAD_HEX_DIGITS = 600
UPDATE_SHARE = 0.8  # of the batch; the rest are inserts
SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("day", pa.string()),
        ("seq", pa.int64()),
        ("version", pa.int32()),
        ("customer_id", pa.int64()),
        ("quantity", pa.int32()),
        ("price", pa.float64()),
        ("amount", pa.decimal128(18, 2)),
        ("status", pa.string()),
        ("is_active", pa.bool_()),
        ("created_at", pa.timestamp("us", tz="UTC")),
        ("updated_at", pa.timestamp("us", tz="UTC")),
        ("payload", pa.string()),
    ]
)
STATUSES = pa.array(["new", "paid", "shipped", "cancelled"])
MERGE_PREDICATE = "t.day = s.day AND t.id = s.id"


def _mod(a, m):
    return pc.subtract(a, pc.multiply(pc.divide(a, m), m))


def _random_ints(rng, arrow_type, width, n):
    return pa.Array.from_buffers(arrow_type, n, [None, pa.py_buffer(rng.randbytes(width * n))])


def _fixed_strings(data, width, n):
    offsets = pa.array(range(0, width * n + 1, width), pa.int32()).buffers()[1]
    return pa.Array.from_buffers(pa.string(), n, [None, offsets, pa.py_buffer(data)])


def uuid_keys(rng, n):
    """n UUID-shaped keys (8-4-4-4-12 lowercase hex) from `rng`."""
    hexes = _fixed_strings(rng.randbytes(16 * n).hex().encode("ascii"), 32, n)
    parts = [pc.utf8_slice_codeunits(hexes, a, b) for a, b in ((0, 8), (8, 12), (12, 16), (16, 20), (20, 32))]
    return pc.binary_join_element_wise(*parts, "-")


def key_stream(seed, chunk):
    return random.Random(f"{seed}:keys:{chunk}")


def rows_for(rows, keys, seed, salt, partitions, days):
    """The rows with indices `rows` (int64 array) and keys `keys`; every other column is drawn from a stream
    named by (seed, salt) so an update (another salt) changes them all."""
    n = len(rows)
    rng = random.Random(f"{seed}:values:{salt}")
    version = 0 if salt.startswith("base") else 1
    r64 = _random_ints(rng, pa.int64(), 8, n)
    r32 = _random_ints(rng, pa.int32(), 4, n)
    prefix = pc.utf8_lpad(pc.cast(rows, pa.string()), 12, "0")
    noise = _fixed_strings(rng.randbytes(n * PAYLOAD_HEX_DIGITS // 2).hex().encode("ascii"), PAYLOAD_HEX_DIGITS, n)
    created = pc.add(pc.multiply(rows, 1_000_000), TS_BASE_US)
    columns = {
        "id": keys,
        "day": days.take(_mod(rows, partitions)),
        "seq": rows,
        "version": pa.array([version] * n, pa.int32()),
        "customer_id": pc.bit_wise_and(r64, 0xFFFFFFF),
        "quantity": pc.bit_wise_and(r32, 0x3FF),
        "price": pc.divide(pc.cast(pc.bit_wise_and(r32, 0xFFFFF), pa.float64()), 100.0),
        "amount": pc.cast(pc.bit_wise_and(pc.shift_right(r64, 28), 0xFFFFFFF), pa.decimal128(21, 2)).cast(
            pa.decimal128(18, 2)
        ),
        "status": STATUSES.take(pc.bit_wise_and(pc.shift_right(r32, 20), 3)),
        "is_active": pc.equal(pc.bit_wise_and(pc.shift_right(r32, 22), 1), 1),
        "created_at": pc.cast(created, pa.timestamp("us", tz="UTC")),
        "updated_at": pc.cast(pc.add(created, version * 86_400_000_000), pa.timestamp("us", tz="UTC")),
        "payload": pc.binary_join_element_wise(prefix, noise, "-"),
    }
    return pa.table([columns[f.name] for f in SCHEMA], schema=SCHEMA)


def chunk_bounds(rows, files):
    return [(f * rows // files, (f + 1) * rows // files) for f in range(files)]


def days_for(partitions):
    return pa.array([f"2026-01-{d + 1:02d}" for d in range(partitions)])


def generate_table(cfg):
    table_dir, rows, partitions, files, seed = cfg["out"], cfg["rows"], cfg["partitions"], cfg["files"], cfg["seed"]
    days = days_for(partitions)
    started = time.perf_counter()
    for chunk, (start, end) in enumerate(chunk_bounds(rows, files)):
        keys = uuid_keys(key_stream(seed, chunk), end - start)
        data = rows_for(pa.array(range(start, end), pa.int64()), keys, seed, f"base:{chunk}", partitions, days)
        write_deltalake(table_dir, data, partition_by=["day"], mode="append")
    dt = DeltaTable(table_dir)
    sizes = dt.get_add_actions(flatten=True).column("size_bytes").to_pylist()
    meta = {
        "rows": rows,
        "partitions": partitions,
        "filesPerPartition": files,
        "seed": seed,
        "files": len(sizes),
        "tableBytes": sum(sizes),
        "version": dt.version(),
        "tableSeconds": time.perf_counter() - started,
    }
    print(json.dumps(meta))


def uniform_update_rows(picker, rows, partitions, files, updates):
    """`updates` row indices drawn uniformly from the rows of the first ceil(partitions/2) partitions."""
    touched = math.ceil(partitions / 2)
    full_cycles, rest = divmod(rows, partitions)
    candidates = full_cycles * touched + min(rest, touched)
    if updates > candidates:
        raise SystemExit(f"{updates} updates but only {candidates} rows in the first {touched} partitions")
    picked = picker.sample(range(candidates), updates)
    return sorted((j // touched) * partitions + j % touched for j in picked), touched


def recent_update_rows(picker, rows, partitions, files, updates):
    """`updates` row indices drawn uniformly from the rows of the last ceil(files/10) appends (every partition)."""
    recent = math.ceil(files / 10)
    first = chunk_bounds(rows, files)[files - recent][0]
    if updates > rows - first:
        raise SystemExit(f"{updates} updates but only {rows - first} rows in the last {recent} appends")
    return sorted(picker.sample(range(first, rows), updates)), min(partitions, rows - first)


UPDATE_PICKERS = {"uniform": uniform_update_rows, "recent": recent_update_rows}


def keys_of(rows, files, seed, update_rows):
    """The keys of the (sorted) table rows `update_rows`, re-drawn from the key stream of each append."""
    keys, cursor = [], 0
    for chunk, (start, end) in enumerate(chunk_bounds(rows, files)):
        in_chunk = []
        while cursor < len(update_rows) and update_rows[cursor] < end:
            in_chunk.append(update_rows[cursor] - start)
            cursor += 1
        if in_chunk:
            keys.append(uuid_keys(key_stream(seed, chunk), end - start).take(pa.array(in_chunk)))
    return pa.concat_arrays(keys)


def generate_batch(cfg):
    rows, partitions, files, seed, shape = cfg["rows"], cfg["partitions"], cfg["files"], cfg["seed"], cfg["shape"]
    days = days_for(partitions)
    started = time.perf_counter()
    batch_rows = cfg.get("batchRows") or max(2, round(rows * cfg["batchFraction"]))
    updates = round(batch_rows * UPDATE_SHARE)
    inserts = batch_rows - updates
    # The picker's stream is the same as before shapes existed, so the uniform batch is unchanged.
    picker = random.Random(f"{seed}:batch")
    update_rows, touched = UPDATE_PICKERS[shape](picker, rows, partitions, files, updates)
    update_part = rows_for(
        pa.array(update_rows, pa.int64()), keys_of(rows, files, seed, update_rows), seed, "update", partitions, days
    )
    insert_rows = pa.array(range(rows, rows + inserts), pa.int64())
    insert_part = rows_for(
        insert_rows, uuid_keys(key_stream(seed, "inserts"), inserts), seed, "insert", partitions, days
    )
    batch = pa.concat_tables([update_part, insert_part])
    order = list(range(batch.num_rows))
    picker.shuffle(order)
    pq.write_table(batch.take(pa.array(order)), cfg["out"])
    meta = {
        "shape": shape,
        "batchFraction": None if cfg.get("batchRows") else cfg["batchFraction"],
        "batchRows": batch.num_rows,
        "batchUpdates": updates,
        "batchInserts": inserts,
        "partitionsUpdated": touched,
        "batchSeconds": time.perf_counter() - started,
        "arrowRowBytes": round(batch.nbytes / batch.num_rows),
    }
    print(json.dumps(meta))


def merge(table_dir, batch_file):
    started_process = time.perf_counter()
    source = pq.read_table(batch_file)
    dt = DeltaTable(table_dir)
    rss_before_call = current_rss_mb()
    cpu_before = cpu_ms()
    started = time.perf_counter()
    metrics = (
        dt.merge(source=source, predicate=MERGE_PREDICATE, source_alias="s", target_alias="t")
        .when_matched_update_all()
        .when_not_matched_insert_all()
        .execute()
    )
    call_ms = (time.perf_counter() - started) * 1000
    call_cpu_ms = cpu_ms() - cpu_before
    print(
        json.dumps(
            {
                "callMs": call_ms,
                "callCpuMs": call_cpu_ms,
                "setupMs": (started - started_process) * 1000,
                "peakRssMB": peak_rss_mb(),
                "rssBeforeCallMB": rss_before_call,
                "version": DeltaTable(table_dir).version(),
                "metrics": metrics,
            },
            default=str,
        )
    )


def partition_rows(dataset, day):
    t = dataset.to_table(filter=pc.field("day") == day)
    return t.select(SCHEMA.names).cast(SCHEMA).sort_by([("id", "ascending"), ("seq", "ascending")]).combine_chunks()


def compare(reference, other, days, expected_rows):
    """Mismatches between two tables: per partition, both sides sorted by key and compared column by column."""
    ds_ref, ds_other = reference.to_pyarrow_dataset(), other.to_pyarrow_dataset()
    total, mismatches = 0, []
    for day in days:
        expected, actual = partition_rows(ds_ref, day), partition_rows(ds_other, day)
        if expected.num_rows != actual.num_rows:
            mismatches.append(f"day={day}: {expected.num_rows} vs {actual.num_rows} rows")
        elif not expected.equals(actual):
            bad = [name for name in SCHEMA.names if not expected.column(name).equals(actual.column(name))]
            mismatches.append(f"day={day}: columns differ: {', '.join(bad)}")
        total += actual.num_rows
        del expected, actual
    # The datasets' scanner threads are joined here, while Arrow is still alive: left to the interpreter's
    # teardown they can abort the process after its answer is printed ("terminate called without an active
    # exception", apache/arrow#34314; it failed one fresh-clone run of the CI-size bench test in session 33).
    del ds_ref, ds_other
    gc.collect()
    if total != expected_rows:
        mismatches.append(f"{total} rows, expected {expected_rows}")
    return {"identical": not mismatches, "rows": total, "mismatches": mismatches}


def verify(expected_rows, reference_dir, other_dirs):
    """Each of `other_dirs` holds the same rows as `reference_dir` (and `expected_rows` rows)."""
    reference = DeltaTable(reference_dir)
    comparisons = {}
    for other_dir in other_dirs:
        other = DeltaTable(other_dir)
        days = sorted({p["day"] for p in reference.partitions()} | {p["day"] for p in other.partitions()})
        comparisons[other_dir] = compare(reference, other, days, expected_rows)
    print(json.dumps({"identical": all(c["identical"] for c in comparisons.values()), "comparisons": comparisons}))


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "table":
        generate_table(json.loads(args[0]))
    elif command == "batch":
        generate_batch(json.loads(args[0]))
    elif command == "merge":
        merge(args[0], args[1])
    elif command == "verify":
        verify(int(args[0]), args[1], args[2:])
        # The answer is printed: leave without the teardown that can still abort on Arrow's threads (above).
        sys.stdout.flush()
        os._exit(0)
    else:
        sys.exit(f"unknown command {command}")
