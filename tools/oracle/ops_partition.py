"""Oracle ops for partition values and data-file paths: how delta-rs lays out a partitioned write."""

import datetime
import decimal
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq

_TYPES = {
    "string": pa.string(),
    "byte": pa.int8(),
    "short": pa.int16(),
    "integer": pa.int32(),
    "long": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "boolean": pa.bool_(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us", tz="UTC"),
    "timestamp_ntz": pa.timestamp("us"),
    "binary": pa.binary(),
}


def _arrow_type(name):
    if name.startswith("decimal("):
        p, s = name[len("decimal("):-1].split(",")
        return pa.decimal128(int(p), int(s))
    return _TYPES[name]


def _value(name, v):
    """JSON-friendly encodings: floats as strings ('NaN', 'inf', '-0'), dates as day counts,
    timestamps as microsecond counts, decimals as strings, binary as hex."""
    if v is None:
        return None
    if name in ("float", "double"):
        return float(v)
    if name == "date":
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=v)
    if name.startswith("timestamp"):
        dt = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=v)
        return dt.replace(tzinfo=datetime.timezone.utc) if name == "timestamp" else dt
    if name.startswith("decimal("):
        return decimal.Decimal(v)
    if name == "binary":
        return bytes.fromhex(v)
    return v


def op_partition_layout(args):
    """Writes one row per value with delta-rs, partitioned by that value; returns each Add's path and
    partitionValues with the row indexes its file holds, and every data file's key on disk."""
    from deltalake import write_deltalake

    uri, type_name = args["uri"], args["type"]
    values = [_value(type_name, v) for v in args["values"]]
    table = pa.table({"p": pa.array(values, _arrow_type(type_name)), "x": pa.array(range(len(values)), pa.int64())})
    write_deltalake(uri, table, partition_by=["p"])
    adds = []
    with open(os.path.join(uri, "_delta_log", "00000000000000000000.json")) as f:
        for line in f:
            action = json.loads(line)
            if "add" in action:
                adds.append(action["add"])
    files = []
    for dirpath, _dirs, names in os.walk(uri):
        for name in names:
            if name.endswith(".parquet"):
                files.append(os.path.relpath(os.path.join(dirpath, name), uri))
    out = []
    for add in adds:
        from urllib.parse import unquote

        rows = pq.ParquetFile(os.path.join(uri, unquote(add["path"]))).read().column("x").to_pylist()
        out.append({"path": add["path"], "partitionValues": add["partitionValues"], "rows": rows})
    return {"adds": out, "files": sorted(files)}
