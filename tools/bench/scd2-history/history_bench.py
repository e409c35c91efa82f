"""Python side of `pnpm bench history-upsert` (history-bench.mjs drives it): generates the SCD2 history table
and its batch with pyarrow + delta-rs, runs the two steps of the delta-rs recipe as the reference contender
(each its own process, printing one JSON line: wall time, peak RSS = getrusage ru_maxrss, RSS just before the
call) and checks that two result tables hold the same rows.

  python history_bench.py table <json-config>     writes <config.out> (a Delta table), prints its meta
  python history_bench.py batch <json-config>     writes <config.out> (one Parquet file), prints its meta
  python history_bench.py close <table-dir> <batch.parquet>    recipe step 1: MERGE closing the open rows
  python history_bench.py append <table-dir> <batch.parquet>   recipe step 2: append the new open versions
  python history_bench.py verify <table-dir> <table-dir>       same rows (per partition, sorted by id, seq)?

The table (partitioned by `part`): `rows` rows over rows/4 keys `id` ("k" + 9 digits), 4 versions per key
(`seq` 1..4). Version j starts at 2025-01-01 + 80·j days + (key mod 86400) s; versions 1-3 are closed at
the next one's start and live in the partition of that instant's %Y-%m (2025-03, 2025-06, 2025-08), version
4 is open (valid_to NULL) in `current`. `payload` is 200 random hex digits (incompressible), `amount` a
float. The table is written in appends of 64k rows with delta-rs's writer (target_file_size 16 MiB), so the
current partition holds several files.

The batch (`batch_rows` rows, the same size for every table): 80% new versions of distinct existing keys
drawn uniformly from all keys, 20% new keys; every row has seq 5 and starts in March 2026, so each existing
key's open row closes into partition 2026-03 and the batch row becomes the open one. Its columns are the
table's without valid_to and part (historyUpsert sets them); the recipe adds them itself.

The recipe, as teams run it with delta-rs: MERGE the batch (with its month as `_month`) into the table on the
open row of each key (`t.part = 'current' AND t.valid_to IS NULL AND t.id = s.id`), updating valid_to and
part where the batch row is newer; then append the batch rows as open versions in `current`. Two commits."""

import json
import random
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from deltalake import DeltaTable, write_deltalake

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
sys.dont_write_bytecode = True
from contender_child import answer, measured_call  # noqa: E402

US = 1_000_000
DAY_US = 86_400 * US
TABLE_BASE_US = 1_735_689_600 * US  # 2025-01-01T00:00:00Z
BATCH_BASE_US = 1_772_323_200 * US  # 2026-03-01T00:00:00Z
VERSIONS = 4
PAYLOAD_BYTES = 100  # 200 hex digits
APPEND_ROWS = 65_536
BATCH_ROWS_PER_RECORD_BATCH = 16_384
TIMESTAMP = pa.timestamp("us", tz="UTC")
SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("seq", pa.int64()),
        ("valid_from", TIMESTAMP),
        ("valid_to", TIMESTAMP),
        ("part", pa.string()),
        ("payload", pa.string()),
        ("amount", pa.float64()),
    ]
)
BATCH_SCHEMA = pa.schema([f for f in SCHEMA if f.name not in ("valid_to", "part")])
CLOSE_PREDICATE = "t.part = 'current' AND t.valid_to IS NULL AND t.id = s.id"


def _keys(ids):
    return pc.binary_join_element_wise("k", pc.utf8_lpad(pc.cast(ids, pa.string()), 9, "0"), "")


def _payload(rng, n):
    data = rng.randbytes(PAYLOAD_BYTES * n).hex().encode("ascii")
    width = 2 * PAYLOAD_BYTES
    offsets = pa.array(range(0, width * n + 1, width), pa.int32()).buffers()[1]
    return pa.Array.from_buffers(pa.string(), n, [None, offsets, pa.py_buffer(data)])


def _amounts(rng, n):
    return pa.array([rng.uniform(0, 1000) for _ in range(n)], pa.float64())


def _version_start(ids, version):
    """valid_from of version `version` (1-based) of keys `ids` (int64 array), as int64 microseconds."""
    second = pc.subtract(ids, pc.multiply(pc.divide(ids, 86_400), 86_400))
    return pc.add(pc.multiply(second, US), TABLE_BASE_US + (version - 1) * 80 * DAY_US)


def _table_rows(rng, first_key, keys):
    """The rows of keys first_key..first_key+keys-1, all their versions, as one record batch."""
    ids = pa.array(range(first_key, first_key + keys), pa.int64())
    columns = {name: [] for name in SCHEMA.names}
    for version in range(1, VERSIONS + 1):
        start = _version_start(ids, version)
        open_row = version == VERSIONS
        end = None if open_row else _version_start(ids, version + 1)
        columns["id"].append(_keys(ids))
        columns["seq"].append(pa.array([version] * keys, pa.int64()))
        columns["valid_from"].append(start.cast(TIMESTAMP))
        columns["valid_to"].append(pa.nulls(keys, TIMESTAMP) if open_row else end.cast(TIMESTAMP))
        month = pa.array(["current"] * keys) if open_row else pc.strftime(end.cast(TIMESTAMP), "%Y-%m")
        columns["part"].append(month)
        columns["payload"].append(_payload(rng, keys))
        columns["amount"].append(_amounts(rng, keys))
    arrays = [pa.concat_arrays(columns[name]) for name in SCHEMA.names]
    return pa.record_batch(arrays, schema=SCHEMA)


def table(config):
    started = time.perf_counter()
    out = config["out"]
    keys = max(1, int(config["rows"]) // VERSIONS)
    rng = random.Random(config["seed"])
    keys_per_append = APPEND_ROWS // VERSIONS
    for first in range(0, keys, keys_per_append):
        batch = _table_rows(rng, first, min(keys_per_append, keys - first))
        write_deltalake(out, batch, mode="append", partition_by=["part"], target_file_size=16 * 1024 * 1024)
    dt = DeltaTable(out)
    adds = pa.table(dt.get_add_actions(flatten=True))
    current = pc.equal(adds.column("partition.part"), "current")
    print(
        json.dumps(
            {
                "version": dt.version(),
                "rows": keys * VERSIONS,
                "keys": keys,
                "files": len(adds),
                "currentFiles": pc.sum(pc.cast(current, pa.int64())).as_py(),
                "tableBytes": pc.sum(adds.column("size_bytes")).as_py(),
                "currentBytes": pc.sum(pc.filter(adds.column("size_bytes"), current)).as_py(),
                "tableSeconds": time.perf_counter() - started,
            }
        )
    )


def batch(config):
    """The batch of a table of config["rows"] rows (depends on the size and seed only, not on the files)."""
    keys = max(1, int(config["rows"]) // VERSIONS)
    n = int(config["batch_rows"])
    rng = random.Random(config["seed"] * 7919 + keys)
    updates = min(keys, int(n * 0.8))
    chosen = rng.sample(range(keys), updates) + list(range(keys, keys + n - updates))
    rng.shuffle(chosen)
    ids = pa.array(chosen, pa.int64())
    starts = pc.add(pc.multiply(pa.array(range(n), pa.int64()), 60 * US), BATCH_BASE_US)
    rows = pa.table(
        [
            _keys(ids),
            pa.array([VERSIONS + 1] * n, pa.int64()),
            starts.cast(TIMESTAMP),
            _payload(rng, n),
            _amounts(rng, n),
        ],
        schema=BATCH_SCHEMA,
    )
    pq.write_table(rows, config["out"], row_group_size=BATCH_ROWS_PER_RECORD_BATCH)
    print(json.dumps({"rows": n, "updates": updates, "inserts": n - updates}))


def close(table_dir, batch_file):
    started_process = time.perf_counter()
    rows = pq.read_table(batch_file)
    source = rows.append_column("_month", pc.strftime(rows.column("valid_from"), "%Y-%m"))
    dt = DeltaTable(table_dir)

    def step():
        return (
            dt.merge(source, CLOSE_PREDICATE, source_alias="s", target_alias="t")
            .when_matched_update(updates={"valid_to": "s.valid_from", "part": "s._month"}, predicate="s.seq > t.seq")
            .execute()
        )

    answer(measured_call(step, started_process))


def append(table_dir, batch_file):
    started_process = time.perf_counter()
    rows = pq.read_table(batch_file)
    n = rows.num_rows
    columns = {name: rows.column(name) for name in rows.column_names}
    columns["valid_to"] = pa.nulls(n, TIMESTAMP)
    columns["part"] = pa.array(["current"] * n)
    opened = pa.table([columns[name] for name in SCHEMA.names], schema=SCHEMA)
    dt = DeltaTable(table_dir)

    def step():
        write_deltalake(dt, opened, mode="append", partition_by=["part"])
        return {"numAddedRows": n}

    answer(measured_call(step, started_process))


def verify(left_dir, right_dir):
    """Compares the tables one partition at a time (sorted by id, seq), so memory stays one partition."""
    left, right = DeltaTable(left_dir), DeltaTable(right_dir)
    parts = sorted({p["part"] for p in left.partitions()} | {p["part"] for p in right.partitions()})
    out = {"identical": True, "rows": 0, "partitions": {}}
    for part in parts:
        tables = [
            t.to_pyarrow_dataset().to_table(filter=pc.field("part") == part).sort_by([("id", "ascending"), ("seq", "ascending")])
            for t in (left, right)
        ]
        tables = [t.select(SCHEMA.names).cast(SCHEMA) for t in tables]
        same = tables[0].equals(tables[1])
        out["partitions"][part] = {"rows": [t.num_rows for t in tables], "identical": same}
        out["rows"] += tables[0].num_rows
        out["identical"] = out["identical"] and same
    answer(out)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "table":
        table(json.loads(args[0]))
    elif command == "batch":
        batch(json.loads(args[0]))
    elif command == "close":
        close(*args)
    elif command == "append":
        append(*args)
    elif command == "verify":
        verify(*args)
    else:
        sys.exit(__doc__)
