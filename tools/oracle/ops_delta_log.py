"""Oracle ops for @deltalite/delta-log: what delta-rs (PyPI `deltalake`) sees in a table — snapshot state at a
version, history — and delta-rs / pyarrow writers and maintenance (write, optimize, vacuum, checkpoint) that
produce the tables our log code must read. Every expected value a delta-log test compares with comes from here.
"""

import datetime
import decimal
import base64
import json
import os


def _normalize_partition_value(value):
    """Typed partition values (as delta-rs returns them) in the JSON form the TypeScript side also builds."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        return {"micros": (value - epoch) // datetime.timedelta(microseconds=1)}
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        text = format(value, "f")
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return {"decimal": "0" if text in ("-0", "") else text}
    if isinstance(value, (bytes, bytearray)):
        return {"base64": base64.b64encode(bytes(value)).decode("ascii")}
    return {"repr": repr(value)}


def _type(alias):
    import pyarrow as pa

    if alias == "timestamp[us, tz=UTC]":
        return pa.timestamp("us", tz="UTC")
    if alias == "timestamp[us]":
        return pa.timestamp("us")
    if alias.startswith("decimal128("):
        precision, scale = alias[len("decimal128("):-1].split(",")
        return pa.decimal128(int(precision), int(scale))
    return pa.type_for_alias(alias)


def _arrays(columns, types):
    """name -> pyarrow array; values are cast from their JSON form to `types[name]` when given."""
    import pyarrow as pa

    out = {}
    for name, values in columns.items():
        if name not in types:
            out[name] = pa.array(values)
            continue
        target = _type(types[name])
        if pa.types.is_decimal(target):
            out[name] = pa.array([None if v is None else decimal.Decimal(str(v)) for v in values], type=target)
        else:
            out[name] = pa.array(values).cast(target)
    return out


def _error(error):
    return {"error": {"type": type(error).__name__, "message": str(error).split("\n")[0][:500]}}


def op_delta_snapshot(args):
    """State of a table at `version` (latest when absent) as delta-rs loads it, or {"error": ...} when it refuses."""
    import pyarrow as pa
    from deltalake import DeltaTable

    storage_options = args.get("storage_options") or None
    try:
        dt = DeltaTable(args["uri"], version=args.get("version"), storage_options=storage_options)
        actions = pa.table(dt.get_add_actions(flatten=False))
        columns = actions.column_names
        files = []
        rows = actions.select([c for c in ("path", "size_bytes", "partition") if c in columns]).to_pylist()
        for row in rows:
            part = row.get("partition") or {}
            files.append(
                {
                    "path": row["path"],
                    "size": row["size_bytes"],
                    "partitionValues": {k: _normalize_partition_value(v) for k, v in part.items()},
                }
            )
        protocol = dt.protocol()
        metadata = dt.metadata()
        return {
            "version": dt.version(),
            "files": files,
            "fileUris": dt.file_uris(),
            "schema": json.loads(dt.schema().to_json()),
            "configuration": dict(metadata.configuration),
            "partitionColumns": list(metadata.partition_columns),
            "tableId": metadata.id,
            "protocol": {
                "minReaderVersion": protocol.min_reader_version,
                "minWriterVersion": protocol.min_writer_version,
                "readerFeatures": sorted(protocol.reader_features) if protocol.reader_features else None,
                "writerFeatures": sorted(protocol.writer_features) if protocol.writer_features else None,
            },
        }
    except Exception as error:  # delta-rs refusing a table is a result, not a harness failure
        return _error(error)


def op_delta_history(args):
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=args.get("storage_options") or None)
    return dt.history(args.get("limit"))


def op_delta_write(args):
    """write_deltalake with `columns` (name -> values, optional pyarrow `types` name -> type string)."""
    import pyarrow as pa
    from deltalake import write_deltalake, DeltaTable, CommitProperties

    data = pa.table(_arrays(args["columns"], args.get("types") or {}))
    kwargs = {"mode": args.get("mode", "append")}
    if args.get("partition_by"):
        kwargs["partition_by"] = args["partition_by"]
    if args.get("configuration"):
        kwargs["configuration"] = args["configuration"]
    if args.get("no_checkpoint"):
        kwargs["commit_properties"] = CommitProperties(create_checkpoint=False)
    storage_options = args.get("storage_options") or None
    for _ in range(int(args.get("repeat", 1))):
        write_deltalake(args["uri"], data, storage_options=storage_options, **kwargs)
    return {"version": DeltaTable(args["uri"], storage_options=storage_options).version()}


def op_delta_create_checkpoint(args):
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=args.get("storage_options") or None)
    dt.create_checkpoint()
    return {"version": dt.version()}


def op_delta_optimize(args):
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=args.get("storage_options") or None)
    metrics = dt.optimize.compact()
    return {"version": dt.version(), "metrics": metrics}


def op_delta_vacuum(args):
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=args.get("storage_options") or None)
    deleted = dt.vacuum(
        retention_hours=args.get("retention_hours", 0),
        enforce_retention_duration=False,
        dry_run=bool(args.get("dry_run", False)),
    )
    return {"version": dt.version(), "deleted": sorted(deleted)}


def op_delta_delete(args):
    """DELETE with a SQL predicate (rewrites or removes files)."""
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=args.get("storage_options") or None)
    metrics = dt.delete(args.get("predicate"))
    return {"version": dt.version(), "metrics": metrics}


def op_write_parquet_file(args):
    """Writes `columns` as one Parquet file at `path` with pyarrow; returns its size in bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(_arrays(args["columns"], args.get("types") or {}))
    os.makedirs(os.path.dirname(args["path"]), exist_ok=True)
    pq.write_table(table, args["path"])
    return {"size": os.path.getsize(args["path"])}


def op_delta_read_rows(args):
    """Rows of the table at `version` (latest when absent), sorted by `sort_by`, as delta-rs reads them."""
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], version=args.get("version"), storage_options=args.get("storage_options") or None)
    table = dt.to_pyarrow_table()
    if args.get("sort_by"):
        table = table.sort_by([(c, "ascending") for c in args["sort_by"]])
    return table.to_pylist()


def op_delta_version_at(args):
    """The version delta-rs loads for a timestamp (epoch milliseconds), via load_as_version(datetime)."""
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=args.get("storage_options") or None)
    when = datetime.datetime.fromtimestamp(args["timestamp_ms"] / 1000, tz=datetime.timezone.utc)
    try:
        dt.load_as_version(when)
    except Exception as error:
        return _error(error)
    return {"version": dt.version()}


def op_delta_read_every_version(args):
    """delta-rs loads and reads every version of the table from 0 to the latest: per version its row count,
    or the error delta-rs met (a missing data file is a FileNotFoundError / 'not found' error here)."""
    from deltalake import DeltaTable

    storage_options = args.get("storage_options") or None
    latest = DeltaTable(args["uri"], storage_options=storage_options).version()
    out = []
    for version in range(0, latest + 1):
        try:
            dt = DeltaTable(args["uri"], version=version, storage_options=storage_options)
            out.append({"version": version, "rows": dt.to_pyarrow_table().num_rows})
        except Exception as error:  # a version delta-rs cannot read is the finding, not a harness failure
            out.append({"version": version, **_error(error)})
    return out
