"""Oracle ops for deltalite's table scan: what delta-rs (`DeltaTable(uri, version).to_pyarrow_table()`) and
pyarrow read, encoded as JSON rows with the SAME rules as deltalite's §7 JSON encoding
(packages/deltalite/src/json/encode.ts), computed here independently from the raw Arrow buffers:

null -> null; bool -> bool; 8/16/32-bit ints -> number; 64-bit ints -> number when |v| <= 2^53-1, else a
decimal string; float/double -> number (float32 as the shortest decimal that round-trips to the same float32),
NaN / inf / -inf -> "NaN" / "Infinity" / "-Infinity"; decimal -> exact string with `scale` fraction digits;
string -> str; binary -> base64; date -> "YYYY-MM-DD"; timestamp -> ISO 8601 with 6 fraction digits (9 for
ns), "Z" when the type has a time zone; struct -> object; list -> array; map -> object when keys are strings,
else an array of {"key", "value"}.

Types are described as canonical strings (utf8 for string/large_string/string_view, list for large lists...).
"""

import base64
import datetime
import decimal
import json
import random
import re
import struct

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

_SAFE = 2**53 - 1
_INTEGER_TEXT = re.compile(r"^-?[0-9]+$")


def _type_name(t):
    if pa.types.is_dictionary(t):
        return _type_name(t.value_type)
    if pa.types.is_struct(t):
        return "struct<" + ",".join(f"{f.name}:{_type_name(f.type)}" for f in t) + ">"
    if pa.types.is_map(t):
        return f"map<{_type_name(t.key_type)},{_type_name(t.item_type)}>"
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t):
        return f"list<{_type_name(t.value_type)}>"
    if pa.types.is_timestamp(t):
        return f"timestamp({t.unit},{t.tz or ''})"
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "utf8"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return "binary"
    if pa.types.is_fixed_size_binary(t):
        return f"fixed_binary({t.byte_width})"
    names = {"bool": "bool", "halffloat": "float16", "float": "float32", "double": "float64", "date32[day]": "date32"}
    if pa.types.is_time32(t) or pa.types.is_time64(t):
        return f"time({t.unit})"
    return names.get(str(t), str(t))


def _civil_from_days(days):
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (1 if month <= 2 else 0), month, day


def _date_text(days):
    year, month, day = _civil_from_days(days)
    if year < 0:
        y = "-" + str(-year).rjust(4, "0")
    elif year > 9999:
        y = "+" + str(year)
    else:
        y = str(year).rjust(4, "0")
    return f"{y}-{month:02d}-{day:02d}"


_PER_SECOND = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}


def _timestamp_text(count, unit, utc):
    per_second = _PER_SECOND[unit]
    days, rest = divmod(count, per_second * 86400)
    seconds, frac = divmod(rest, per_second)
    digits = 9 if unit == "ns" else 6
    frac = frac * (10**digits // per_second)
    h, m, s = seconds // 3600, (seconds % 3600) // 60, seconds % 60
    return f"{_date_text(days)}T{h:02d}:{m:02d}:{s:02d}.{str(frac).rjust(digits, '0')}" + ("Z" if utc else "")


def _float(v, single):
    if v != v:
        return "NaN"
    if v == float("inf"):
        return "Infinity"
    if v == float("-inf"):
        return "-Infinity"
    if single and v != 0:
        for p in range(1, 10):
            c = float(f"{v:.{p}g}")
            if struct.unpack("<f", struct.pack("<f", c))[0] == v:
                return c
    return v


def _int64(v):
    return v if -_SAFE <= v <= _SAFE else str(v)


def _decimal_text(unscaled, scale):
    text = str(abs(unscaled))
    if scale > 0:
        text = text.rjust(scale + 1, "0")
        text = text[:-scale] + "." + text[-scale:]
    return ("-" if unscaled < 0 else "") + text


def _json_values(arr):
    """One JSON value per slot of a pyarrow Array (not chunked)."""
    t = arr.type
    n = len(arr)
    valid = arr.is_valid().to_pylist() if arr.null_count else [True] * n
    if pa.types.is_dictionary(t):
        return _json_values(arr.dictionary_decode())
    if pa.types.is_struct(t):
        children = [(t.field(j).name, _json_values(arr.field(j))) for j in range(t.num_fields)]
        return [({k: v[i] for k, v in children} if valid[i] else None) for i in range(n)]
    if pa.types.is_map(t):
        offsets = arr.offsets.to_pylist()
        keys = _json_values(arr.keys)
        items = _json_values(arr.items)
        string_keys = pa.types.is_string(t.key_type) or pa.types.is_large_string(t.key_type)
        out = []
        for i in range(n):
            if not valid[i]:
                out.append(None)
            elif string_keys:
                out.append({keys[j]: items[j] for j in range(offsets[i], offsets[i + 1])})
            else:
                out.append([{"key": keys[j], "value": items[j]} for j in range(offsets[i], offsets[i + 1])])
        return out
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        offsets = arr.offsets.to_pylist()
        values = _json_values(arr.values)
        return [(values[offsets[i] : offsets[i + 1]] if valid[i] else None) for i in range(n)]
    if pa.types.is_timestamp(t):
        counts = arr.cast(pa.int64()).to_pylist()
        return [None if c is None else _timestamp_text(c, t.unit, bool(t.tz)) for c in counts]
    if pa.types.is_time32(t) or pa.types.is_time64(t):
        counts = arr.cast(pa.int64() if pa.types.is_time64(t) else pa.int32()).to_pylist()
        return [None if c is None else _timestamp_text(c, t.unit, False)[11:] for c in counts]
    if pa.types.is_date32(t):
        return [None if d is None else _date_text(d) for d in arr.cast(pa.int32()).to_pylist()]
    if pa.types.is_date64(t):
        return [None if d is None else _date_text(d // 86_400_000) for d in arr.cast(pa.int64()).to_pylist()]
    if pa.types.is_decimal128(t) and t.scale == 0:
        texts = arr.cast(pa.string()).to_pylist()
        if all(v is None or _INTEGER_TEXT.match(v) for v in texts):
            return texts
    if pa.types.is_decimal128(t):
        raw = memoryview(arr.buffers()[1])[arr.offset * 16 : (arr.offset + n) * 16]
        return [
            _decimal_text(int.from_bytes(raw[i * 16 : i * 16 + 16], "little", signed=True), t.scale) if valid[i] else None
            for i in range(n)
        ]
    if pa.types.is_float32(t):
        return [None if v is None else _float(v, True) for v in arr.to_pylist()]
    if pa.types.is_float16(t):
        return [None if v is None else _float(float(v), False) for v in arr.to_pylist()]
    if pa.types.is_float64(t):
        return [None if v is None else _float(v, False) for v in arr.to_pylist()]
    if pa.types.is_int64(t) or pa.types.is_uint64(t):
        return [None if v is None else _int64(v) for v in arr.to_pylist()]
    if (
        pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
        or pa.types.is_fixed_size_binary(t)
        or pa.types.is_binary_view(t)
    ):
        return [None if v is None else base64.b64encode(v).decode("ascii") for v in arr.to_pylist()]
    return arr.to_pylist()


def _json_table(table):
    columns = []
    for name in table.column_names:
        values = []
        for chunk in table.column(name).chunks:
            values.extend(_json_values(chunk))
        columns.append(values)
    names = table.column_names
    rows = [{names[c]: columns[c][i] for c in range(len(names))} for i in range(table.num_rows)]
    return {"fields": [{"name": f.name, "type": _type_name(f.type)} for f in table.schema], "rows": rows}


def _scalar(value, t):
    """A filter operand in its §7 JSON form as a pyarrow scalar of the column's type."""
    if pa.types.is_floating(t):
        special = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
        return pa.scalar(special.get(value, value), pa.float64()).cast(t)
    if pa.types.is_integer(t):
        return pa.scalar(int(value), t)
    if pa.types.is_decimal(t):
        return pa.scalar(decimal.Decimal(str(value)))
    if pa.types.is_date32(t):
        return pa.scalar(datetime.date.fromisoformat(value), t)
    if pa.types.is_timestamp(t):
        return pa.scalar(value).cast(t)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return pa.scalar(base64.b64decode(value), t)
    return pa.scalar(value, t)


def _expression(conditions, schema):
    expr = None
    for cond in conditions:
        field = pc.field(cond["column"])
        t = schema.field(cond["column"]).type
        if pa.types.is_dictionary(t):
            t = t.value_type
        op = cond["op"]
        if op == "isNull":
            e = field.is_null()
        elif op == "isNotNull":
            e = ~field.is_null()
        elif op == "in":
            e = field.isin(pa.array([_scalar(v, t).as_py() for v in cond["value"]], type=t))
        else:
            v = _scalar(cond["value"], t)
            e = {
                "eq": field == v,
                "ne": field != v,
                "lt": field < v,
                "le": field <= v,
                "gt": field > v,
                "ge": field >= v,
            }[op]
        expr = e if expr is None else expr & e
    return expr


def op_scan_delta(args):
    """delta-rs's scan of a table as JSON rows, or {"error": ...} when it refuses the table.

    args: uri; version (optional); columns (optional); filter (optional, deltalite's conditions with operands
    in their §7 JSON form, applied as a pyarrow expression to delta-rs's rows); storage_options."""
    from deltalake import DeltaTable

    try:
        dt = DeltaTable(args["uri"], version=args.get("version"), storage_options=args.get("storage_options") or None)
        table = dt.to_pyarrow_table()
    except Exception as error:  # delta-rs refusing a table is a result
        return {"error": {"type": type(error).__name__, "message": str(error).split("\n")[0][:500]}}
    if args.get("filter"):
        table = table.filter(_expression(args["filter"], table.schema))
    if args.get("columns") is not None:
        table = table.select(args["columns"])
    if args.get("ipc_path"):
        # Big tables: the rows go back as an Arrow IPC stream file (JSON-encoding a million rows here is slow).
        with pa.OSFile(args["ipc_path"], "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        return {"fields": [{"name": f.name, "type": _type_name(f.type)} for f in table.schema], "numRows": table.num_rows}
    return _json_table(table)


def op_scan_read_file(args):
    """A data file as JSON rows: format "parquet" (pyarrow.parquet) or "arrow" (an Arrow IPC stream)."""
    fmt = args.get("format", "parquet")
    if fmt == "parquet":
        table = pq.read_table(args["path"])
    elif fmt == "arrow":
        with pa.OSFile(args["path"], "rb") as f:
            table = pa.ipc.open_stream(f).read_all()
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return _json_table(table)


def op_scan_make_table(args):
    """A delta-rs table with many small files for pruning tests: partitioned by `region` (eu, us, ap);
    `appends` appends (default 3), append k holding ids k*1000 .. k*1000+49 in every region, a date `day` of
    2026-01-(k+1), a string `name` "n<id>", an always-null-in-even-appends `note`; plus one append whose names
    are 70-byte strings starting with "zz" (a truncated max in delta-rs's stats). args: uri, storage_options."""
    from deltalake import write_deltalake

    uri = args["uri"]
    appends = int(args.get("appends", 3))
    rng = random.Random(11)
    for k in range(appends + 1):
        ids, regions, days, names, notes, amounts = [], [], [], [], [], []
        for region in ("eu", "us", "ap"):
            for i in range(50):
                ident = k * 1000 + i
                ids.append(ident)
                regions.append(region)
                days.append(datetime.date(2026, 1, k + 1))
                if k == appends:
                    names.append("zz" + "y" * 66 + f"{i:02d}")
                else:
                    names.append(f"n{ident:05d}")
                notes.append(None if k % 2 == 0 else f"note {i}")
                amounts.append(rng.random() * 100)
        table = pa.table(
            {
                "id": pa.array(ids, pa.int64()),
                "region": pa.array(regions, pa.string()),
                "day": pa.array(days, pa.date32()),
                "name": pa.array(names, pa.string()),
                "note": pa.array(notes, pa.string()),
                "amount": pa.array(amounts, pa.float64()),
            }
        )
        write_deltalake(
            uri, table, mode="append", partition_by=["region"], storage_options=args.get("storage_options") or None
        )
    return {"appends": appends + 1}



def op_scan_files_with_matches(args):
    """Data files (paths relative to the table root, decoded) holding at least one row that satisfies `filter`,
    as delta-rs's pyarrow dataset sees them (partition values included). args: uri, filter, version,
    storage_options."""
    import urllib.parse

    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], version=args.get("version"), storage_options=args.get("storage_options") or None)
    dataset = dt.to_pyarrow_dataset()
    expr = _expression(args["filter"], dataset.schema)
    root = args["uri"].removeprefix("s3://").rstrip("/") + "/"
    out = []
    for fragment in dataset.get_fragments():
        if fragment.to_table(schema=dataset.schema, filter=expr).num_rows > 0:
            path = fragment.path
            path = path[len(root):] if path.startswith(root) else path
            out.append(urllib.parse.unquote(path))
    return sorted(out)


def op_scan_make_evolved_table(args):
    """A delta-rs table whose schema grew: v0 writes id, s struct<x>; v1 appends with schema_mode="merge" adding
    a nested field s.y, a list column tags and a timestamp column ts. Old files lack them. args: uri."""
    from deltalake import write_deltalake

    uri = args["uri"]
    first = pa.table(
        {
            "id": pa.array([1, 2, 3], pa.int64()),
            "s": pa.array([{"x": 1}, None, {"x": 3}], pa.struct([("x", pa.int32())])),
        }
    )
    write_deltalake(uri, first, mode="append")
    utc = datetime.timezone.utc
    second = pa.table(
        {
            "id": pa.array([4, 5], pa.int64()),
            "s": pa.array([{"x": 4, "y": "four"}, {"x": None, "y": None}], pa.struct([("x", pa.int32()), ("y", pa.string())])),
            "tags": pa.array([["a", None], []], pa.list_(pa.string())),
            "ts": pa.array([datetime.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=utc), None], pa.timestamp("us", tz="UTC")),
        }
    )
    write_deltalake(uri, second, mode="append", schema_mode="merge")
    return {"versions": 2}
