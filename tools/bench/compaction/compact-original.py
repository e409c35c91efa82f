"""One measured run of the ORIGINAL deltalite's compact (PyPI `deltalite` 0.1.15) for `pnpm bench compact`
(compact-bench.mjs starts it in the venv tools/bench/original/ensure-venv.sh builds): opens the table, times
`DeltaLiteTable.open(dir).compact()` with the original's defaults and prints one JSON line shaped like
compact_bench.py's `compact`: callMs, setupMs, peakRssMB (ru_maxrss), rssBeforeCallMB, metrics (the
committed version is read from the log by the bench).

  python compact-original.py <table-dir>"""

import sys
import time
from pathlib import Path

from deltalite import DeltaLiteTable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
sys.dont_write_bytecode = True
from contender_child import answer, measured_call  # noqa: E402


def main(table_dir):
    started_process = time.perf_counter()
    table = DeltaLiteTable.open(table_dir)
    answer(measured_call(table.compact, started_process))


if __name__ == "__main__":
    if sys.argv[1:] in (["-h"], ["--help"]):
        print(__doc__)
    elif len(sys.argv) != 2:
        sys.exit("usage: python compact-original.py <table-dir>")
    else:
        main(sys.argv[1])
