"""The ORIGINAL deltalite's compact (PyPI `deltalite` 0.1.15) on one table, for the compaction suite's
comparison of planned bins (compact-original.test.ts starts it as a child process with the venv that
tools/bench/original/ensure-venv.sh builds). Opens the table, runs `DeltaLiteTable.compact(**options)` with
the options given as one JSON object (snake_case, the original's names) and prints its result dict as one
JSON line.

  python original_compact.py <table-dir> '<options JSON>'"""

import json
import os
import sys

from deltalite import DeltaLiteTable


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: python original_compact.py <table-dir> '<options JSON>'")
    table = DeltaLiteTable.open(sys.argv[1])
    result = table.compact(**json.loads(sys.argv[2]))
    sys.stdout.write(json.dumps(result, default=str) + "\n")
    sys.stdout.flush()
    # delta-rs's threads can abort the interpreter's teardown; the answer is out, so skip it.
    os._exit(0)


if __name__ == "__main__":
    main()
