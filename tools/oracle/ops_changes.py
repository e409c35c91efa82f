"""Oracle ops for the change data feed read (`table.changes()`, @deltalite/data-files changes/): delta-rs
1.6.6 `load_cdf` over a version or timestamp range, Spark's `readChangeFeed`, and the canonical rows of our
own change read (an Arrow IPC file) — all three in one shape: rows sorted by their canonical JSON, the
table's columns plus `_change_type` and `_commit_version` (as int64), `_commit_timestamp` left out, and
`changes` (the same rows without `_commit_version`)."""

import json

import pyarrow as pa
import pyarrow.ipc as ipc

from ops_parquet_write import canonical_rows

_META = ["_change_type", "_commit_version"]


def _shape(table, names):
    table = table.select(names)
    at = names.index("_commit_version")
    table = table.set_column(at, "_commit_version", table.column("_commit_version").cast(pa.int64()))
    key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
    rows = sorted(canonical_rows(table), key=key)
    changes = sorted(({k: v for k, v in r.items() if k != "_commit_version"} for r in rows), key=key)
    return {"rows": rows, "changes": changes, "count": table.num_rows}


def _table_names(uri):
    from deltalake import DeltaTable

    return [f.name for f in DeltaTable(uri).schema().fields]


def op_changes_load_cdf(args):
    """args: {uri, starting_version?, ending_version?, starting_timestamp?, ending_timestamp? (ISO 8601),
    columns?}. delta-rs `load_cdf` (rows, changes, count), or {error: {type, message}} when it refuses."""
    from deltalake import DeltaTable

    kwargs = {}
    for key in ("starting_version", "ending_version"):
        if args.get(key) is not None:
            kwargs[key] = int(args[key])
    for key in ("starting_timestamp", "ending_timestamp"):
        if args.get(key) is not None:
            kwargs[key] = args[key]
    if args.get("columns") is not None:
        kwargs["columns"] = list(args["columns"]) + _META + ["_commit_timestamp"]
    try:
        table = pa.table(DeltaTable(args["uri"]).load_cdf(**kwargs).read_all())
    except Exception as error:  # noqa: BLE001 - the test asserts that delta-rs refuses too
        return {"error": {"type": type(error).__name__, "message": str(error)}}
    names = list(args["columns"]) if args.get("columns") is not None else _table_names(args["uri"])
    return _shape(table, names + _META)


def op_changes_canonical(args):
    """args: {ipc: path of an Arrow IPC file written from our change read}. Its rows in the shape above."""
    with open(args["ipc"], "rb") as source:
        table = ipc.open_file(source).read_all()
    names = [n for n in table.schema.names if n != "_commit_timestamp"]
    return _shape(table, [n for n in names if n not in _META] + _META)


def op_spark_read_change_feed(args):
    """args: {uri, starting_version, ending_version?}. Spark's `readChangeFeed` of a local table."""
    from ops_spark import _session

    reader = _session().read.format("delta").option("readChangeFeed", "true")
    reader = reader.option("startingVersion", int(args["starting_version"]))
    if args.get("ending_version") is not None:
        reader = reader.option("endingVersion", int(args["ending_version"]))
    table = reader.load(args["uri"]).toArrow()
    names = [n for n in table.schema.names if n not in _META and n != "_commit_timestamp"]
    return _shape(table, names + _META)

