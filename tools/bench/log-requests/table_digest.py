"""What a run of `pnpm bench log-requests` left behind, read with delta-rs (the oracle venv) straight from the
S3 server: the table version, its row count and a digest of its sorted (id, v) pairs, so the bench can say
whether every engine's consecutive upserts produced the same table.

  python table_digest.py '<json {uri, storageOptions}>'
"""

import hashlib
import json
import sys

import pyarrow as pa
from deltalake import DeltaTable


def main(config):
    dt = DeltaTable(config["uri"], storage_options=config["storageOptions"])
    table = pa.table(dt.to_pyarrow_dataset().to_table(columns=["id", "v"]))
    pairs = sorted(zip(table.column("id").to_pylist(), table.column("v").to_pylist(), strict=True))
    digest = hashlib.sha256(json.dumps(pairs).encode()).hexdigest()[:16]
    print(json.dumps({"version": dt.version(), "rows": table.num_rows, "digest": digest}))


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
