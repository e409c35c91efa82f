# How fast delta-rs and pyarrow read Delta tables whose files our writer made (not a test): the read-time half
# of the row-group-size sweep (row-group-sweep.mjs). For each table it times
#   delta-rs   DeltaTable(dir).to_pyarrow_table()                  the whole table at its latest version
#   pyarrow    pq.read_table(<the version's data files>)           the same files, read as one dataset
#   rewritten  pq.read_table(<the files the latest commit added>)  only the files our writer wrote
# interleaving the tables in every round (so load drifts hit all alike; the files are in the page cache, so
# the figures are decode time), and prints one JSON line: per table the medians over the rounds, the rows
# read, the process CPU seconds of each read (all threads: steadier than wall time on a loaded machine),
# and the row groups (count, median rows and median uncompressed bytes) of the files the commit added.
#
#   tools/oracle/.venv/bin/python read_time.py '{"tables": {"label": "<dir>", ...}, "repeat": 5}'
import json
import os
import statistics
import sys
import time

import pyarrow.parquet as pq
from deltalake import DeltaTable


def added_files(table_dir: str, version: int) -> list[str]:
    """The data files the commit at `version` added (absolute paths)."""
    log = os.path.join(table_dir, "_delta_log", f"{version:020d}.json")
    with open(log) as f:
        actions = [json.loads(line) for line in f if line.strip()]
    return [os.path.join(table_dir, a["add"]["path"]) for a in actions if "add" in a]


def row_groups(files: list[str]) -> dict:
    """Row-group count and the median rows / uncompressed bytes of the row groups of `files`."""
    rows, sizes = [], []
    for path in files:
        meta = pq.ParquetFile(path).metadata
        for i in range(meta.num_row_groups):
            rows.append(meta.row_group(i).num_rows)
            sizes.append(meta.row_group(i).total_byte_size)
    return {
        "files": len(files),
        "rowGroups": len(rows),
        "medianRows": statistics.median(rows) if rows else 0,
        "medianUncompressedMB": statistics.median(sizes) / 2**20 if sizes else 0,
    }


def timed(read) -> tuple[float, float, int]:
    """Wall seconds, process CPU seconds and rows of one read."""
    cpu, started = time.process_time(), time.perf_counter()
    table = read()
    return time.perf_counter() - started, time.process_time() - cpu, table.num_rows


def readers(table_dir: str) -> dict:
    dt = DeltaTable(table_dir)
    files = [u.removeprefix("file://") for u in dt.file_uris()]
    rewritten = added_files(table_dir, dt.version())
    return {
        "delta-rs": lambda: DeltaTable(table_dir).to_pyarrow_table(),
        "pyarrow": lambda: pq.read_table(files),
        "rewritten": lambda: pq.read_table(rewritten),
    }, rewritten


def main() -> None:
    config = json.loads(sys.argv[1])
    tables: dict[str, str] = config["tables"]
    repeat = int(config.get("repeat", 5))
    prepared = {label: readers(d) for label, d in tables.items()}
    seconds = {label: {name: [] for name in prepared[label][0]} for label in tables}
    cpu = {label: {name: [] for name in prepared[label][0]} for label in tables}
    rows = {label: {} for label in tables}
    for _ in range(repeat):
        for label, (reads, _) in prepared.items():
            for name, read in reads.items():
                s, c, n = timed(read)
                seconds[label][name].append(s)
                cpu[label][name].append(c)
                rows[label][name] = n
    out = {
        label: {
            "medianSeconds": {name: statistics.median(xs) for name, xs in seconds[label].items()},
            "medianCpuSeconds": {name: statistics.median(xs) for name, xs in cpu[label].items()},
            "allSeconds": seconds[label],
            "rows": rows[label],
            "added": row_groups(prepared[label][1]),
        }
        for label in tables
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
