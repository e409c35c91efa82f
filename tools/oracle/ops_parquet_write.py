"""Oracle ops for the Parquet writer and Add stats (parquet-stream write/, delta-log stats/).

- `parquet_type_matrix`: writes an Arrow IPC file holding every Delta primitive type and nested shapes, with
  nulls, NaN, +-inf, -0.0, empty / long / non-ASCII strings (seeded), for the TypeScript side to read.
- `parquet_canonical`: pyarrow reads Parquet files (local or S3) and returns their rows in canonical JSON,
  plus row-group facts from the footer.
- `delta_read_parquet`: wraps Parquet files in a one-commit Delta table and reads it with delta-rs's own
  engine (DataFusion / arrow-rs, not pyarrow datasets), rows in canonical JSON.
- `delta_write_stats`: write_deltalake of an Arrow IPC file to a fresh local table; the parsed `stats` of
  every Add action.
"""

import datetime
import decimal
import json
import math
import os
import random
import shutil
import tempfile
import uuid

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
EPOCH = datetime.datetime(1970, 1, 1)
EPOCH_DATE = datetime.date(1970, 1, 1)


# ---------------------------------------------------------------------------------------------- canonical JSON


def _canon_float(value):
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0 and math.copysign(1.0, value) < 0:
        return "-0"
    return value


def canon(value, typ):
    """One value in the canonical JSON both sides compute (int64 and decimals as strings, timestamps as
    integer microseconds in a string, dates as day numbers, binary as hex, maps as [key, value] pairs)."""
    if value is None:
        return None
    if pa.types.is_struct(typ):
        return {typ.field(i).name: canon(value.get(typ.field(i).name), typ.field(i).type) for i in range(typ.num_fields)}
    if pa.types.is_map(typ):
        return [[canon(k, typ.key_type), canon(v, typ.item_type)] for k, v in value]
    if pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_list_view(typ) or pa.types.is_large_list_view(typ):
        return [canon(v, typ.value_type) for v in value]
    if pa.types.is_timestamp(typ):
        if typ.unit != "us":
            raise ValueError(f"canonical form handles microsecond timestamps only, got {typ}")
        if isinstance(value, int):
            return str(value)
        base = EPOCH_UTC if value.tzinfo is not None else EPOCH
        return str((value - base) // datetime.timedelta(microseconds=1))
    if pa.types.is_date32(typ):
        return (value - EPOCH_DATE).days
    if pa.types.is_decimal(typ):
        return format(value, "f")
    if pa.types.is_floating(typ):
        return _canon_float(value)
    if pa.types.is_int64(typ):
        return str(value)
    if pa.types.is_integer(typ) or pa.types.is_boolean(typ):
        return value
    if pa.types.is_string(typ) or pa.types.is_large_string(typ) or pa.types.is_string_view(typ):
        return value
    if pa.types.is_binary(typ) or pa.types.is_large_binary(typ) or pa.types.is_binary_view(typ):
        return value.hex()
    raise ValueError(f"no canonical form for {typ}")


def canonical_rows(table):
    columns = [(field.name, field.type, table.column(field.name).to_pylist()) for field in table.schema]
    return [{name: canon(values[i], typ) for name, typ, values in columns} for i in range(table.num_rows)]


# ---------------------------------------------------------------------------------------------- storage


def _s3_client(storage_options):
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=storage_options["AWS_ENDPOINT_URL"],
        region_name=storage_options.get("AWS_REGION", "us-east-1"),
        aws_access_key_id=storage_options.get("AWS_ACCESS_KEY_ID"),
        aws_secret_access_key=storage_options.get("AWS_SECRET_ACCESS_KEY"),
    )


def _open_parquet(location, storage_options):
    """A pq.ParquetFile over a local path or an s3://bucket/key object (fetched whole with boto3)."""
    if location.startswith("s3://"):
        bucket, _, key = location[len("s3://"):].partition("/")
        body = _s3_client(storage_options).get_object(Bucket=bucket, Key=key)["Body"].read()
        return pq.ParquetFile(pa.BufferReader(body))
    return pq.ParquetFile(location)


def op_parquet_canonical(args):
    """args: {files: [path or s3://...], storage_options?}. Rows of all files in order, plus footer facts."""
    storage_options = args.get("storage_options") or {}
    rows = []
    files = []
    for location in args["files"]:
        pf = _open_parquet(location, storage_options)
        table = pf.read()
        rows.extend(canonical_rows(table))
        md = pf.metadata
        files.append(
            {
                "num_rows": md.num_rows,
                "created_by": md.created_by,
                "row_groups": [
                    {"num_rows": md.row_group(i).num_rows, "total_byte_size": md.row_group(i).total_byte_size}
                    for i in range(md.num_row_groups)
                ],
                "encodings": sorted(
                    {
                        str(md.row_group(i).column(j).encodings)
                        for i in range(md.num_row_groups)
                        for j in range(md.num_columns)
                    }
                ),
                "compression": sorted(
                    {md.row_group(i).column(j).compression for i in range(md.num_row_groups) for j in range(md.num_columns)}
                ),
                "schema": str(pf.schema_arrow),
            }
        )
    return {"rows": rows, "files": files}


def op_delta_read_parquet(args):
    """args: {dir, files: [{path (relative to dir), size}]}. Writes a one-commit Delta log naming the files
    (schema from the first file) and reads the table with delta-rs's engine; rows in canonical JSON."""
    from deltalake import DeltaTable, QueryBuilder, Schema

    root = args["dir"]
    first = pq.ParquetFile(os.path.join(root, args["files"][0]["path"]))
    arrow_schema = first.schema_arrow
    delta_schema = Schema.from_arrow(arrow_schema)
    features = []
    if any(pa.types.is_timestamp(f.type) and f.type.tz is None for f in arrow_schema):
        features.append("timestampNtz")
    protocol = (
        {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": features, "writerFeatures": features}
        if features
        else {"minReaderVersion": 1, "minWriterVersion": 2}
    )
    actions = [
        {"protocol": protocol},
        {
            "metaData": {
                "id": str(uuid.uuid4()),
                "format": {"provider": "parquet", "options": {}},
                "schemaString": delta_schema.to_json(),
                "partitionColumns": [],
                "configuration": {},
                "createdTime": 0,
            }
        },
    ]
    for f in args["files"]:
        actions.append(
            {
                "add": {
                    "path": f["path"],
                    "partitionValues": {},
                    "size": f["size"],
                    "modificationTime": 0,
                    "dataChange": True,
                }
            }
        )
    log_dir = os.path.join(root, "_delta_log")
    os.makedirs(log_dir, exist_ok=True)
    with open(os.path.join(log_dir, "00000000000000000000.json"), "w") as out:
        out.write("\n".join(json.dumps(a) for a in actions))
    dt = DeltaTable(root)
    reader = QueryBuilder().register("t", dt).execute("SELECT * FROM t")
    table = pa.table(pa.RecordBatchReader.from_stream(reader))
    return {"rows": canonical_rows(table.select(arrow_schema.names)), "num_rows": table.num_rows}


# ---------------------------------------------------------------------------------------------- stats


def op_delta_write_stats(args):
    """args: {ipc: Arrow IPC file path, configuration?, partition_by?}. write_deltalake to a fresh local
    table (one file for unpartitioned data) and return every Add's parsed stats with its partition values."""
    from deltalake import DeltaTable, write_deltalake

    with open(args["ipc"], "rb") as source:
        table = ipc.open_file(source).read_all()
    root = tempfile.mkdtemp(prefix="deltalite-stats-")
    try:
        kwargs = {"mode": "overwrite"}
        if args.get("configuration"):
            kwargs["configuration"] = args["configuration"]
        if args.get("partition_by"):
            kwargs["partition_by"] = args["partition_by"]
        write_deltalake(root, table, **kwargs)
        DeltaTable(root)  # the table loads
        adds = []
        for name in sorted(os.listdir(os.path.join(root, "_delta_log"))):
            if not name.endswith(".json"):
                continue
            with open(os.path.join(root, "_delta_log", name)) as log:
                for line in log:
                    action = json.loads(line)
                    if "add" in action:
                        adds.append(
                            {
                                "stats": json.loads(action["add"]["stats"]),
                                "stats_text": action["add"]["stats"],
                                "partitionValues": action["add"]["partitionValues"],
                            }
                        )
        return adds
    finally:
        shutil.rmtree(root, ignore_errors=True)


# ---------------------------------------------------------------------------------------------- type matrix

_ALPHABET = ["a", "b", "z", "é", "ß", "中", "😀", " ", "~", "\u007f"]


def _text(rng):
    kind = rng.random()
    if kind < 0.1:
        return ""
    if kind < 0.3:
        # longer than 64 bytes, often multi-byte near the cut
        return "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(40, 90)))
    return "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 12)))


def _maybe(rng, make, null_rate=0.15):
    return None if rng.random() < null_rate else make()


def type_matrix(rows, seed, wide_columns=0):
    rng = random.Random(seed)
    special_f = [float("nan"), float("inf"), float("-inf"), -0.0, 0.0]

    def flt():
        return rng.choice(special_f) if rng.random() < 0.2 else rng.uniform(-1e6, 1e6)

    def ts():
        return rng.randint(-(10**15), 4 * 10**15)

    def dec(precision, scale):
        digits = rng.randint(1, precision)
        unscaled = rng.randint(-(10**digits) + 1, 10**digits - 1)
        return decimal.Decimal(unscaled).scaleb(-scale)

    cols = {
        "byte_col": (pa.int8(), lambda: rng.randint(-128, 127)),
        "short_col": (pa.int16(), lambda: rng.randint(-32768, 32767)),
        "int_col": (pa.int32(), lambda: rng.randint(-(2**31), 2**31 - 1)),
        "long_col": (pa.int64(), lambda: rng.randint(-(2**63), 2**63 - 1)),
        "float_col": (pa.float32(), flt),
        "double_col": (pa.float64(), flt),
        "bool_col": (pa.bool_(), lambda: rng.random() < 0.5),
        "string_col": (pa.string(), lambda: _text(rng)),
        "binary_col": (pa.binary(), lambda: bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 80)))),
        "date_col": (pa.date32(), lambda: EPOCH_DATE + datetime.timedelta(days=rng.randint(-200000, 200000))),
        "ts_col": (pa.timestamp("us", tz="UTC"), ts),
        "ts_ntz_col": (pa.timestamp("us"), ts),
        "dec_10_2": (pa.decimal128(10, 2), lambda: dec(10, 2)),
        "dec_38_10": (pa.decimal128(38, 10), lambda: dec(38, 10)),
    }
    struct_type = pa.struct(
        [
            ("a", pa.int32()),
            ("s", pa.string()),
            ("inner", pa.struct([("x", pa.float64()), ("ts", pa.timestamp("us", tz="UTC"))])),
        ]
    )
    list_type = pa.list_(pa.int64())
    map_type = pa.map_(pa.string(), pa.int32())
    list_struct_type = pa.list_(pa.struct([("k", pa.string()), ("v", pa.float64())]))

    arrays = {}
    for name, (typ, make) in cols.items():
        values = [_maybe(rng, make) for _ in range(rows)]
        if typ in (pa.timestamp("us", tz="UTC"), pa.timestamp("us")):
            arrays[name] = pa.array(values, pa.int64()).cast(typ)
        else:
            arrays[name] = pa.array(values, typ)
    arrays["struct_col"] = pa.array(
        [
            _maybe(
                rng,
                lambda: {
                    "a": _maybe(rng, lambda: rng.randint(-1000, 1000)),
                    "s": _maybe(rng, lambda: _text(rng)),
                    "inner": _maybe(
                        rng, lambda: {"x": _maybe(rng, flt), "ts": _maybe(rng, lambda: datetime.datetime.fromtimestamp(rng.randint(0, 2 * 10**9), datetime.timezone.utc))}
                    ),
                },
            )
            for _ in range(rows)
        ],
        struct_type,
    )
    arrays["list_col"] = pa.array(
        [_maybe(rng, lambda: [_maybe(rng, lambda: rng.randint(-(2**40), 2**40)) for _ in range(rng.randint(0, 4))]) for _ in range(rows)],
        list_type,
    )
    arrays["map_col"] = pa.array(
        [_maybe(rng, lambda: [(f"k{j}", _maybe(rng, lambda: rng.randint(0, 99))) for j in range(rng.randint(0, 3))]) for _ in range(rows)],
        map_type,
    )
    arrays["list_struct_col"] = pa.array(
        [
            _maybe(rng, lambda: [_maybe(rng, lambda: {"k": _text(rng), "v": flt()}) for _ in range(rng.randint(0, 3))])
            for _ in range(rows)
        ],
        list_struct_type,
    )
    for i in range(wide_columns):
        arrays[f"w{i:02d}"] = pa.array([_maybe(rng, lambda: rng.randint(0, 10**6)) for _ in range(rows)], pa.int64())
    return pa.table(arrays)


def op_parquet_type_matrix(args):
    """args: {out, rows?, seed?, wide_columns?, columns? (subset, in order)}. Writes the type matrix as an Arrow
    IPC file; returns its canonical rows as pyarrow sees them."""
    table = type_matrix(int(args.get("rows", 200)), int(args.get("seed", 1)), int(args.get("wide_columns", 0)))
    if args.get("partition_column"):
        # a constant first column, for partitioned writes that yield one file
        table = table.add_column(0, args["partition_column"], pa.array(["p1"] * table.num_rows, pa.string()))
    if args.get("columns"):
        table = table.select(args["columns"])
    with pa.OSFile(args["out"], "wb") as sink:
        with ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
    return {"rows": canonical_rows(table), "names": table.schema.names}


def edge_table():
    """Stats edge cases: all-null columns and struct leaves, -0.0, NaN-only, f32 widening, int64 extremes,
    scale-0 decimals, sub-millisecond / negative / ms / ns timestamps, long ASCII and multi-byte strings."""
    return pa.table(
        {
            "all_null": pa.array([None, None, None], pa.int32()),
            "st": pa.array(
                [{"a": None, "b": 1}, {"a": None, "b": 2}, None], pa.struct([("a", pa.int32()), ("b", pa.int32())])
            ),
            "st_null_leaf": pa.array([{"a": None}, None, {"a": None}], pa.struct([("a", pa.string())])),
            "zeros": pa.array([-0.0, 0.0, None], pa.float64()),
            "neg_zero_only": pa.array([-0.0, -0.0, -0.0], pa.float64()),
            "nan_only": pa.array([float("nan"), float("nan"), None]),
            "nan_and_one": pa.array([float("nan"), 1.5, -2.25]),
            "inf_f32": pa.array([float("inf"), 0.5, float("-inf")], pa.float32()),
            "f32": pa.array([0.1, None, -3.4e38], pa.float32()),
            "int64_extremes": pa.array([2**62 + 1, -(2**63), 2**53 + 1], pa.int64()),
            "dec0": pa.array([1234, None, -99999], pa.decimal128(5, 0)),
            "dec18": pa.array([decimal.Decimal("123456789012.345678"), decimal.Decimal("-0.000001"), None], pa.decimal128(18, 6)),
            "ts_us": pa.array([0, -1, 1_000_999], pa.timestamp("us", tz="UTC")),
            "ts_ms_ntz": pa.array([1500, -1500, None], pa.timestamp("ms")),
            "ts_ns": pa.array([1500, 1_999_999, None], pa.timestamp("ns", tz="UTC")),
            "ascii_long": pa.array(["a" * 100, "z" * 100 + "y", "m"]),
            "multibyte_long": pa.array(["😀" * 20, "é" * 40, "\U0010ffff" * 17]),
            "max_char": pa.array(["\U0010ffff" * 16 + "a", "b", None]),
            "empty_str": pa.array(["", "", None]),
            "date_edges": pa.array([datetime.date(1, 1, 1), datetime.date(9999, 12, 31), datetime.date(1969, 12, 31)]),
            "bin": pa.array([b"\x00", None, b"\xff" * 70]),
        }
    )


def op_parquet_edge_table(args):
    """args: {out}. Writes edge_table() as an Arrow IPC file; returns its canonical rows."""
    table = edge_table()
    with pa.OSFile(args["out"], "wb") as sink:
        with ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
    return {"rows": canonical_rows(table.select([n for n in table.schema.names if n not in ("ts_ms_ntz", "ts_ns")]))}


def _diff(path, expected, actual, out):
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in actual:
                out.append({"path": path + [key], "delta_rs": expected[key], "ours": "<missing>"})
            elif key not in expected:
                out.append({"path": path + [key], "delta_rs": "<missing>", "ours": actual[key]})
            else:
                _diff(path + [key], expected[key], actual[key], out)
        return
    same = type(expected) is type(actual) and expected == actual
    if isinstance(expected, float) and isinstance(actual, float):
        same = expected == actual and math.copysign(1.0, expected) == math.copysign(1.0, actual)
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)) and not isinstance(expected, bool):
        # serde prints 1.0 for a float that is whole; JS prints 1: equal numbers (and signs) are equal
        same = not isinstance(actual, bool) and expected == actual and math.copysign(1.0, expected) == math.copysign(1.0, actual)
    if not same:
        out.append({"path": path, "delta_rs": repr(expected), "ours": repr(actual)})


def op_stats_diff(args):
    """args: {delta_rs: stats JSON text or object, ours: stats JSON text}. Exact structural comparison in
    Python (int64 exact, -0.0 distinct from 0.0); returns the list of differences."""
    expected = args["delta_rs"]
    if isinstance(expected, str):
        expected = json.loads(expected)
    actual = json.loads(args["ours"])
    out = []
    _diff([], expected, actual, out)
    return out
