"""One measured run of the ORIGINAL deltalite's compact (PyPI `deltalite` 0.1.15) for `pnpm bench compact`
(compact-bench.mjs starts it in the venv tools/bench/original/ensure-venv.sh builds): opens the table, times
`DeltaLiteTable.open(dir).compact()` with the original's defaults and prints one JSON line shaped like
compact_bench.py's `compact`: callMs, setupMs, peakRssMB (ru_maxrss), rssBeforeCallMB, metrics (the
committed version is read from the log by the bench).

  python compact-original.py <table-dir>"""

import json
import os
import sys
import time
from pathlib import Path

from deltalite import DeltaLiteTable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
sys.dont_write_bytecode = True
from process_rss import current_rss_mb, peak_rss_mb  # noqa: E402


def main(table_dir):
    started_process = time.perf_counter()
    table = DeltaLiteTable.open(table_dir)
    rss_before = current_rss_mb()
    started = time.perf_counter()
    result = table.compact()
    call_ms = (time.perf_counter() - started) * 1000
    sys.stdout.write(
        json.dumps(
            {
                "callMs": call_ms,
                "setupMs": (started - started_process) * 1000,
                "peakRssMB": peak_rss_mb(),
                "rssBeforeCallMB": rss_before,
                "metrics": result,
            },
            default=str,
        )
        + "\n"
    )
    sys.stdout.flush()
    # delta-rs's threads can abort the interpreter's teardown; the answer is out, so skip it.
    os._exit(0)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python compact-original.py <table-dir>")
    main(sys.argv[1])
