"""One measured run of the ORIGINAL deltalite (PyPI `deltalite` 0.1.15) for `pnpm bench upsert`
(tools/bench/merge-engine/upsert-bench.mjs starts it as its own child process, with the venv that
ensure-venv.sh builds beside this file). It reads the batch with pyarrow, opens the table, then times
`DeltaLiteTable.open(dir).upsert(batch, primary_keys=["id"], partition_key="day")` with every other option at
the original's default, and prints one JSON line shaped like upsert-delta-rs.py's `merge`: callMs, callCpuMs
(getrusage user + system over the call), setupMs,
peakRssMB (getrusage ru_maxrss), rssBeforeCallMB, version (the committed one) and metrics (the UpsertStats
counters as a dict).

  python upsert-original.py merge <table-dir> <batch.parquet>

`calls` (for tools/bench/merge-engine/warm-calls.mjs) upserts the batch into each table directory in turn,
in this one process, and prints callsMs (one per call) and metrics (one dict per call).

  python upsert-original.py calls <batch.parquet> <table-dir> [<table-dir> …]"""

import json
import sys
from pathlib import Path
import time

import pyarrow.parquet as pq
from deltalite import DeltaLiteTable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
sys.dont_write_bytecode = True  # no __pycache__ beside the sources for the shared helper
from process_rss import cpu_ms, current_rss_mb, peak_rss_mb  # noqa: E402


def stats_dict(stats):
    """UpsertStats (a pyo3 class without __dict__) → its public counters."""
    names = [name for name in dir(stats) if not name.startswith("_")]
    return {name: getattr(stats, name) for name in names if not callable(getattr(stats, name))}


def merge(table_dir, batch_file):
    started_process = time.perf_counter()
    source = pq.read_table(batch_file)
    table = DeltaLiteTable.open(table_dir)
    rss_before_call = current_rss_mb()
    cpu_before = cpu_ms()
    started = time.perf_counter()
    stats = table.upsert(source, primary_keys=["id"], partition_key="day")
    call_ms = (time.perf_counter() - started) * 1000
    call_cpu_ms = cpu_ms() - cpu_before
    metrics = stats_dict(stats)
    print(
        json.dumps(
            {
                "callMs": call_ms,
                "callCpuMs": call_cpu_ms,
                "setupMs": (started - started_process) * 1000,
                "peakRssMB": peak_rss_mb(),
                "rssBeforeCallMB": rss_before_call,
                "version": metrics["version"],
                "metrics": metrics,
            },
            default=str,
        )
    )


def calls(batch_file, table_dirs):
    source = pq.read_table(batch_file)
    calls_ms, metrics = [], []
    for table_dir in table_dirs:
        table = DeltaLiteTable.open(table_dir)
        started = time.perf_counter()
        stats = table.upsert(source, primary_keys=["id"], partition_key="day")
        calls_ms.append((time.perf_counter() - started) * 1000)
        metrics.append(stats_dict(stats))
    print(json.dumps({"callsMs": calls_ms, "metrics": metrics}, default=str))


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "merge" and len(args) == 2:
        merge(args[0], args[1])
    elif command == "calls" and len(args) >= 2:
        calls(args[0], args[1:])
    else:
        sys.exit(
            "usage: python upsert-original.py merge <table-dir> <batch.parquet>\n"
            "       python upsert-original.py calls <batch.parquet> <table-dir> [<table-dir> …]"
        )
