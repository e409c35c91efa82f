"""One run of the ORIGINAL deltalite (PyPI deltalite 0.1.15, the venv of tools/bench/original/ensure-venv.sh) for
`pnpm bench log-requests`, the counterpart of run-ours.mjs: reads every batch first, then, through the counting
proxy (its endpoint in the storage options), opens the table and runs the batches as consecutive upserts on
that one handle, sending the same phase markers (markers.mjs) before and after the open and each call. Prints
one JSON line: wall time of the open and of each call, and each call's version.

  python run_original.py '<json {uri, storageOptions, batches, primaryKeys, partitionKey, proxy}>'
"""

import json
import sys
import time
import urllib.error
import urllib.request

import pyarrow.parquet as pq
from deltalite import DeltaLiteTable

MARKER_PREFIX = "/__bench_mark__/"


def send_marker(proxy, label):
    try:
        with urllib.request.urlopen(f"{proxy}{MARKER_PREFIX}{label}") as response:
            response.read()
    except urllib.error.HTTPError as error:  # the S3 server answers the marker with an error: expected
        error.read()


def timed(config, phase, run):
    send_marker(config["proxy"], f"start-{phase}")
    started = time.perf_counter()
    result = run()
    wall_ms = (time.perf_counter() - started) * 1000
    send_marker(config["proxy"], f"end-{phase}")
    return result, wall_ms


def main(config):
    sources = [pq.read_table(path) for path in config["batches"]]
    table, open_ms = timed(config, "open", lambda: DeltaLiteTable.open(config["uri"], config["storageOptions"]))
    calls = []
    for index, source in enumerate(sources, start=1):
        stats, wall_ms = timed(
            config,
            index,
            lambda: table.upsert(source, config["primaryKeys"], config.get("partitionKey")),
        )
        calls.append({"wallMs": wall_ms, "version": stats.version})
    print(json.dumps({"openMs": open_ms, "calls": calls}))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python run_original.py '<json config>'")
    main(json.loads(sys.argv[1]))
