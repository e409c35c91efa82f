"""Python side of `pnpm bench upsert` (upsert-bench.mjs drives it): generates the benchmark tables and their
~1% batch with pyarrow + delta-rs, runs delta-rs MERGE as the reference contender (one process per run,
printing one JSON line with its wall time, peak RSS = getrusage ru_maxrss (KiB on Linux) and its RSS just
before the call), and checks that
two result tables hold the same rows.

  python upsert-delta-rs.py generate <json-config>   writes <dir>/pristine (Delta table) + <dir>/batch.parquet
  python upsert-delta-rs.py merge <table-dir> <batch.parquet>
  python upsert-delta-rs.py verify <table-dir-a> <table-dir-b> <expected-rows>

Rows are deterministic for a seed. Row i (0-based) lives in partition day = DAYS[i % partitions]; its key is a
UUID-shaped string drawn from a seeded stream; `payload` is `<i, 12 digits>-<600 random hex digits>`, unique
per row so neither dictionary encoding nor snappy shrinks it (a row is ~0.75 KB in Arrow). The table is written
in `files` appends of N/files rows each, so every partition holds `files` files. The batch: updates (existing
keys, every other column changed) drawn uniformly from the first ceil(partitions/2) partitions, plus inserts
(new keys) spread over all partitions, together batch_fraction of the table's rows, shuffled."""

import json
import math
import random
import resource
import sys
import time

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from deltalake import DeltaTable, write_deltalake

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


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 1024 / 1024


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


def generate(cfg):
    out, rows, partitions, files, seed = cfg["dir"], cfg["rows"], cfg["partitions"], cfg["files"], cfg["seed"]
    days = pa.array([f"2026-01-{d + 1:02d}" for d in range(partitions)])
    started = time.perf_counter()
    table_dir = f"{out}/pristine"
    for chunk, (start, end) in enumerate(chunk_bounds(rows, files)):
        keys = uuid_keys(key_stream(seed, chunk), end - start)
        data = rows_for(pa.array(range(start, end), pa.int64()), keys, seed, f"base:{chunk}", partitions, days)
        write_deltalake(table_dir, data, partition_by=["day"], mode="append")
    table_seconds = time.perf_counter() - started

    # The batch: updates drawn uniformly from the rows of the first ceil(partitions/2) partitions, inserts new.
    batch_rows = max(2, round(rows * cfg["batchFraction"]))
    updates = round(batch_rows * UPDATE_SHARE)
    inserts = batch_rows - updates
    touched = math.ceil(partitions / 2)
    picker = random.Random(f"{seed}:batch")
    full_cycles, rest = divmod(rows, partitions)
    candidates = full_cycles * touched + min(rest, touched)
    update_rows = sorted(
        (j // touched) * partitions + j % touched for j in picker.sample(range(candidates), updates)
    )
    update_keys = []
    cursor = 0
    for chunk, (start, end) in enumerate(chunk_bounds(rows, files)):
        in_chunk = []
        while cursor < len(update_rows) and update_rows[cursor] < end:
            in_chunk.append(update_rows[cursor] - start)
            cursor += 1
        if in_chunk:
            update_keys.append(uuid_keys(key_stream(seed, chunk), end - start).take(pa.array(in_chunk)))
    update_part = rows_for(
        pa.array(update_rows, pa.int64()), pa.concat_arrays(update_keys), seed, "update", partitions, days
    )
    insert_rows = pa.array(range(rows, rows + inserts), pa.int64())
    insert_part = rows_for(
        insert_rows, uuid_keys(key_stream(seed, "inserts"), inserts), seed, "insert", partitions, days
    )
    batch = pa.concat_tables([update_part, insert_part])
    order = list(range(batch.num_rows))
    picker.shuffle(order)
    pq.write_table(batch.take(pa.array(order)), f"{out}/batch.parquet")

    dt = DeltaTable(table_dir)
    adds = dt.get_add_actions(flatten=True)
    sizes = adds.column("size_bytes").to_pylist()
    meta = {
        "rows": rows,
        "partitions": partitions,
        "filesPerPartition": files,
        "seed": seed,
        "batchFraction": cfg["batchFraction"],
        "files": len(sizes),
        "tableBytes": sum(sizes),
        "version": dt.version(),
        "batchRows": batch.num_rows,
        "batchUpdates": updates,
        "batchInserts": inserts,
        "partitionsUpdated": touched,
        "generateSeconds": time.perf_counter() - started,
        "tableSeconds": table_seconds,
        "arrowRowBytes": round(batch.nbytes / batch.num_rows),
    }
    print(json.dumps(meta))


def merge(table_dir, batch_file):
    started_process = time.perf_counter()
    source = pq.read_table(batch_file)
    dt = DeltaTable(table_dir)
    rss_before_call = current_rss_mb()
    started = time.perf_counter()
    metrics = (
        dt.merge(source=source, predicate=MERGE_PREDICATE, source_alias="s", target_alias="t")
        .when_matched_update_all()
        .when_not_matched_insert_all()
        .execute()
    )
    call_ms = (time.perf_counter() - started) * 1000
    print(
        json.dumps(
            {
                "callMs": call_ms,
                "setupMs": (started - started_process) * 1000,
                "peakRssMB": peak_rss_mb(),
                "rssBeforeCallMB": rss_before_call,
                "version": DeltaTable(table_dir).version(),
                "metrics": metrics,
            },
            default=str,
        )
    )


def verify(dir_a, dir_b, expected_rows):
    """Same rows in both tables: per partition, both sides sorted by key and compared column by column."""
    a, b = DeltaTable(dir_a), DeltaTable(dir_b)
    days = sorted({p["day"] for p in a.partitions()} | {p["day"] for p in b.partitions()})
    ds_a, ds_b = a.to_pyarrow_dataset(), b.to_pyarrow_dataset()
    total, mismatches = 0, []
    for day in days:
        sides = []
        for ds in (ds_a, ds_b):
            t = ds.to_table(filter=pc.field("day") == day)
            t = t.select(SCHEMA.names).cast(SCHEMA).sort_by([("id", "ascending"), ("seq", "ascending")])
            sides.append(t.combine_chunks())
        if sides[0].num_rows != sides[1].num_rows:
            mismatches.append(f"day={day}: {sides[0].num_rows} vs {sides[1].num_rows} rows")
        elif not sides[0].equals(sides[1]):
            bad = [name for name in SCHEMA.names if not sides[0].column(name).equals(sides[1].column(name))]
            mismatches.append(f"day={day}: columns differ: {', '.join(bad)}")
        total += sides[0].num_rows
        del sides
    if total != expected_rows:
        mismatches.append(f"{total} rows, expected {expected_rows}")
    print(json.dumps({"identical": not mismatches, "rows": total, "mismatches": mismatches}))


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "generate":
        generate(json.loads(args[0]))
    elif command == "merge":
        merge(args[0], args[1])
    elif command == "verify":
        verify(args[0], args[1], int(args[2]))
    else:
        sys.exit(f"unknown command {command}")
