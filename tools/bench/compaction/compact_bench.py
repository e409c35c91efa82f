"""Python side of `pnpm bench compact` (compact-bench.mjs drives it): generates the benchmark table with pyarrow +
delta-rs, runs delta-rs `optimize.compact` as a contender (its own process, one JSON line: call time, peak RSS =
getrusage ru_maxrss, RSS just before the call, the metrics) and checks that result tables hold the pristine rows.

  python compact_bench.py table <json-config>     writes <config.out> (a Delta table), prints its meta
  python compact_bench.py compact <table-dir>     delta-rs optimize.compact() with its defaults
  python compact_bench.py verify <table-dir>…     row count and sum of `seq` of each table, as delta-rs reads it

The table: one partition `day=2026-01-01` holding `bytes` of small files (delta-rs's writer with
target_file_size = file_bytes, so each file is about that size), plus one small partition `day=2026-01-02` of
a few files (left alone or compacted: it is not measured). Rows: `seq` int64 (0..n-1), `id` a UUID-shaped
string, `payload` 600 random hex digits (incompressible, so stored bytes are real), `amount` float64, `ts`
timestamp. The rows are written as a stream of batches, so generation never holds the table in memory."""

import json
import random
import sys
import time
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
from deltalake import DeltaTable, write_deltalake

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
sys.dont_write_bytecode = True
from contender_child import answer, measured_call  # noqa: E402

SCHEMA = pa.schema(
    [
        ("seq", pa.int64()),
        ("id", pa.string()),
        ("day", pa.string()),
        ("payload", pa.string()),
        ("amount", pa.float64()),
        ("ts", pa.timestamp("us", tz="UTC")),
    ]
)
ROW_STORED_BYTES = 660  # about, as delta-rs stores these rows (the 600 hex digits barely compress)
BATCH_ROWS = 20_000


def _batches(rows, day, seed, start):
    rng = random.Random(seed)
    for at in range(0, rows, BATCH_ROWS):
        n = min(BATCH_ROWS, rows - at)
        seqs = list(range(start + at, start + at + n))
        yield pa.record_batch(
            [
                pa.array(seqs, pa.int64()),
                pa.array([str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(n)]),
                pa.array([day] * n),
                pa.array([rng.randbytes(300).hex() for _ in range(n)]),
                pa.array([rng.uniform(0, 1000) for _ in range(n)], pa.float64()),
                pa.array([1_767_225_600_000_000 + s * 1000 for s in seqs], pa.timestamp("us", tz="UTC")),
            ],
            schema=SCHEMA,
        )


def table(config):
    started = time.perf_counter()
    out = config["out"]
    rows = max(1, int(config["bytes"]) // ROW_STORED_BYTES)
    # Appends of about 64 files each, so the log has several commits (as small files arrive in practice).
    per_append = max(1, int(config["file_bytes"]) * 64 // ROW_STORED_BYTES)
    done = 0
    while done < rows:
        n = min(per_append, rows - done)
        reader = pa.RecordBatchReader.from_batches(SCHEMA, _batches(n, "2026-01-01", config["seed"] + done, done))
        write_deltalake(out, reader, mode="append", partition_by=["day"], target_file_size=int(config["file_bytes"]))
        done += n
    small = pa.RecordBatchReader.from_batches(SCHEMA, _batches(3000, "2026-01-02", config["seed"] - 1, rows))
    write_deltalake(out, small, mode="append", partition_by=["day"])
    dt = DeltaTable(out)
    adds = pa.table(dt.get_add_actions(flatten=True))
    big = pc.equal(adds.column("partition.day"), "2026-01-01")
    sizes = pc.filter(adds.column("size_bytes"), big)
    print(
        json.dumps(
            {
                "version": dt.version(),
                "rows": rows + 3000,
                "partitionFiles": len(sizes),
                "partitionBytes": pc.sum(sizes).as_py(),
                "files": len(adds),
                "tableSeconds": time.perf_counter() - started,
            }
        )
    )


def compact(table_dir):
    started_process = time.perf_counter()
    dt = DeltaTable(table_dir)
    figures = measured_call(dt.optimize.compact, started_process)
    answer({**figures, "version": DeltaTable(table_dir).version()})


def verify(table_dirs):
    out = {}
    for table_dir in table_dirs:
        dt = DeltaTable(table_dir)
        seq = dt.to_pyarrow_dataset().to_table(columns=["seq"]).column("seq")
        out[table_dir] = {"rows": len(seq), "seqSum": pc.sum(seq).as_py(), "version": dt.version()}
    answer(out)


if __name__ == "__main__":
    command, *args = sys.argv[1:] or ["--help"]
    if command in ("-h", "--help"):
        print(__doc__)
    elif command == "table":
        table(json.loads(args[0]))
    elif command == "compact":
        compact(args[0])
    elif command == "verify":
        verify(args)
    else:
        sys.exit(__doc__)
