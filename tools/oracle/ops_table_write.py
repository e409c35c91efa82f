"""Oracle ops for table writes: the type matrix with partition columns added, and delta-rs's reading of a
whole table in the same canonical JSON form (ops_parquet_write.canonical_rows) the writer tests use."""

import pyarrow as pa
import pyarrow.ipc as ipc

from ops_parquet_write import canonical_rows, type_matrix

HOSTILE = ['quote"dq', "o'brien", "üñîçødé", "sp ace", "back\\slash", "a,b", "a/b", "..", None, "%", "a=b"]


def _sorted(rows):
    import json

    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))


def op_tw_type_matrix(args):
    """args: {out, rows, seed, partition?: "hostile"|"int"|"date"|None}. The type matrix (+ a `part` column
    when asked) as an Arrow IPC file; returns its canonical rows (sorted) as pyarrow sees them."""
    rows = int(args.get("rows", 200))
    table = type_matrix(rows, int(args.get("seed", 1)))
    kind = args.get("partition")
    if kind == "hostile":
        table = table.append_column("part", pa.array([HOSTILE[i % len(HOSTILE)] for i in range(rows)], pa.string()))
    elif kind == "int":
        table = table.append_column("part", pa.array([(i % 5) - 2 for i in range(rows)], pa.int64()))
    elif kind == "date":
        table = table.append_column("part", pa.array([i % 3 for i in range(rows)], pa.int32()).cast(pa.date32()))
    with pa.OSFile(args["out"], "wb") as sink:
        with ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
    return {"rows": _sorted(canonical_rows(table)), "names": table.schema.names}


def op_tw_read_table(args):
    """delta-rs reads the whole table (optionally at a version): canonical rows (sorted), schema names,
    version, number of files, and each Add's partitionValues."""
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], version=args.get("version"), storage_options=args.get("storage_options") or None)
    table = dt.to_pyarrow_table()
    names = [f.name for f in dt.schema().fields]
    adds = pa.table(dt.get_add_actions(flatten=False)).to_pylist()
    return {
        "rows": _sorted(canonical_rows(table.select(names))),
        "names": names,
        "version": dt.version(),
        "numFiles": len(adds),
        "partitionValues": sorted(
            [{k: (None if v is None else str(v)) for k, v in (a.get("partition") or {}).items()} for a in adds],
            key=repr,
        ),
    }
