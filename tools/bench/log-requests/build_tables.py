"""Builds the tables and batches of `pnpm bench log-requests` with delta-rs (the oracle venv's deltalake) on
local disk, once: each scenario gets <cache>/<name>/table/ (a Delta table) and batch-<k>.parquet for the
consecutive upserts, plus meta.json (what was built). A scenario whose meta.json matches this script's recipe
version is reused; the bench uploads the local table to the S3 server for every run.

  python build_tables.py <cache-dir> <calls> <scenario>[,<scenario>…]

Scenarios (the upstream deltalite's request-count shapes):
  median         60 partitions x 1 file x 200 rows; checkpoint at v0, then a 5-commit JSON tail;
                 each batch updates 34 rows of the newest partition (one file probed)
  insert-heavy   unpartitioned, 173 files x 5k rows of random-UUID keys (173 appends, checkpoint at the end);
                 each batch inserts 10k new random-UUID keys (stats prune nothing: every file is probed)
  tail23         20 partitions x 200 rows, checkpoint at v0, then 23 one-file commits (a 23-commit JSON tail);
                 each batch updates 34 rows of one partition
  no-checkpoint  20 partitions x 200 rows written in 10 commits, no checkpoint; each batch updates 34 rows
  hourly         2,000 partitions x 1 file x 50 rows, checkpoint at v0; each batch updates 30 rows of the newest
                 hour and inserts 20 new keys into it
"""

import json
import random
import shutil
import sys
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from deltalake import DeltaTable, write_deltalake

RECIPE = 1
PAYLOAD = "x" * 24


def rows(ids, part, version):
    data = {"id": ids, "v": [version] * len(ids), "payload": [f"{PAYLOAD}{i}" for i in ids]}
    if part is not None:
        data["part"] = [part] * len(ids) if isinstance(part, str) else part
    return pa.table(data)


def seq_ids(prefix, start, count):
    return [f"{prefix}-{i:06d}" for i in range(start, start + count)]


def partitioned(table_dir, partitions, rows_per_partition, commits=1):
    """`partitions` names, each `rows_per_partition` rows, spread over `commits` append commits (v0..)."""
    per_commit = max(1, len(partitions) // commits)
    for c in range(commits):
        chunk = partitions[c * per_commit : (c + 1) * per_commit if c < commits - 1 else None]
        ids, parts = [], []
        for p in chunk:
            ids += seq_ids(p, 0, rows_per_partition)
            parts += [p] * rows_per_partition
        write_deltalake(str(table_dir), rows(ids, parts, 0), partition_by=["part"], mode="append")


def tail(table_dir, partitions, commits, rows_each=10):
    for c in range(commits):
        p = partitions[c % len(partitions)]
        ids = seq_ids(p, 100_000 + c * rows_each, rows_each)
        write_deltalake(str(table_dir), rows(ids, p, 0), partition_by=["part"], mode="append")


def update_batches(partition, calls, count=34, inserts=0):
    """Call k updates `count` existing keys of `partition` (v = k) and inserts `inserts` new ones."""
    batches = []
    for k in range(1, calls + 1):
        ids = seq_ids(partition, 0, count) + seq_ids(partition, 500_000 + k * 1000, inserts)
        batches.append(rows(ids, partition, k))
    return batches


def build_median(table_dir, calls):
    parts = [f"p{p:02d}" for p in range(60)]
    partitioned(table_dir, parts, 200)
    DeltaTable(str(table_dir)).create_checkpoint()
    tail(table_dir, parts, 5)
    return update_batches(parts[-1], calls)


def build_insert_heavy(table_dir, calls):
    rng = random.Random(13)
    uid = lambda: str(uuid.UUID(int=rng.getrandbits(128), version=4))  # noqa: E731
    for _ in range(173):
        write_deltalake(str(table_dir), rows([uid() for _ in range(5000)], None, 0), mode="append")
    DeltaTable(str(table_dir)).create_checkpoint()
    return [rows([uid() for _ in range(10_000)], None, k) for k in range(1, calls + 1)]


def build_tail23(table_dir, calls):
    parts = [f"p{p:02d}" for p in range(20)]
    partitioned(table_dir, parts, 200)
    DeltaTable(str(table_dir)).create_checkpoint()
    tail(table_dir, parts, 23)
    return update_batches(parts[7], calls)


def build_no_checkpoint(table_dir, calls):
    parts = [f"p{p:02d}" for p in range(20)]
    partitioned(table_dir, parts, 200, commits=10)
    return update_batches(parts[-1], calls)


def build_hourly(table_dir, calls):
    hours = [f"h{h:04d}" for h in range(2000)]
    partitioned(table_dir, hours, 50)
    DeltaTable(str(table_dir)).create_checkpoint()
    return update_batches(hours[-1], calls, count=30, inserts=20)


BUILDERS = {
    "median": build_median,
    "insert-heavy": build_insert_heavy,
    "tail23": build_tail23,
    "no-checkpoint": build_no_checkpoint,
    "hourly": build_hourly,
}


def build(cache, name, calls):
    out = cache / name
    meta_file = out / "meta.json"
    wanted = {"recipe": RECIPE, "calls": calls}
    if meta_file.exists() and {k: v for k, v in json.loads(meta_file.read_text()).items() if k in wanted} == wanted:
        return
    shutil.rmtree(out, ignore_errors=True)
    (out / "table").mkdir(parents=True)
    batches = BUILDERS[name](out / "table", calls)
    for k, batch in enumerate(batches, start=1):
        pq.write_table(batch, out / f"batch-{k}.parquet")
    dt = DeltaTable(str(out / "table"))
    partitioned_table = bool(dt.metadata().partition_columns)
    meta = {
        **wanted,
        "version": dt.version(),
        "files": len(pa.table(dt.get_add_actions(flatten=True))),
        "partitionKey": "part" if partitioned_table else None,
        "batchRows": [b.num_rows for b in batches],
    }
    meta_file.write_text(json.dumps(meta))
    print(f"[log-requests] built {name}: {meta}", file=sys.stderr)


if __name__ == "__main__":
    cache_dir, calls_arg, names = sys.argv[1:]
    for scenario in names.split(","):
        build(Path(cache_dir), scenario, int(calls_arg))
