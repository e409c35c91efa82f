"""Oracle ops for @deltalite/parquet-stream's reader: pyarrow writes Parquet files over a type matrix, and
pyarrow reads any Parquet file into a canonical JSON form that the TypeScript tests compute the same way
from their Arrow output (packages/parquet-stream/test/read-canonical.ts mirrors `_canon_array`).

Canonical form, per value: null -> null; bool -> bool; int8/16/32, uint8/16/32, date32 (days) -> number;
int64/uint64, timestamps (count in the column's unit), time64 -> decimal string; float32/float64 -> "NaN" or
the IEEE bits as hex (so -0.0 and infinities stay exact); string -> str; binary -> hex; decimal -> exact
string with `scale` fraction digits; struct -> object; list -> array; map -> array of [key, value].
"""

import datetime
import decimal
import math
import random
import struct
import time

import pyarrow as pa
import pyarrow.parquet as pq


def _canon_type(t):
    if pa.types.is_struct(t):
        return "struct<" + ",".join(f"{f.name}:{_canon_type(f.type)}" for f in t) + ">"
    if pa.types.is_map(t):
        return f"map<{_canon_type(t.key_type)},{_canon_type(t.item_type)}>"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return f"list<{_canon_type(t.value_type)}>"
    if pa.types.is_timestamp(t):
        return f"timestamp({t.unit},{t.tz or ''})"
    if pa.types.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pa.types.is_fixed_size_binary(t):
        return f"fixed_binary({t.byte_width})"
    if pa.types.is_large_string(t) or pa.types.is_string(t):
        return "utf8"
    if pa.types.is_large_binary(t) or pa.types.is_binary(t):
        return "binary"
    if pa.types.is_time32(t) or pa.types.is_time64(t):
        return f"time({t.unit})"
    if pa.types.is_dictionary(t):
        return _canon_type(t.value_type)
    names = {"bool": "bool", "halffloat": "float16", "float": "float32", "double": "float64", "date32[day]": "date32", "date64[ms]": "date64"}
    return names.get(str(t), str(t))


def _decimal_string(value, scale):
    sign, digits, exponent = value.as_tuple()
    unscaled = int("".join(map(str, digits)) or "0")
    shift = exponent + scale
    unscaled = unscaled * 10**shift if shift >= 0 else unscaled // 10 ** (-shift)
    return _unscaled_string(-unscaled if sign else unscaled, scale)


def _unscaled_string(unscaled, scale):
    text = str(abs(unscaled))
    if scale > 0:
        text = text.rjust(scale + 1, "0")
        text = text[:-scale] + "." + text[-scale:]
    return ("-" if unscaled < 0 else "") + text


def _float_bits(value, fmt):
    if value is None:
        return None
    if math.isnan(value):
        return "NaN"
    return struct.pack(">" + fmt, value).hex()


def _canon_array(arr):
    """One canonical value per slot of a pyarrow Array (not chunked)."""
    t = arr.type
    n = len(arr)
    valid = arr.is_valid().to_pylist() if arr.null_count else [True] * n
    if pa.types.is_dictionary(t):
        return _canon_array(arr.dictionary_decode())
    if pa.types.is_struct(t):
        children = {t.field(j).name: _canon_array(arr.field(j)) for j in range(t.num_fields)}
        return [({k: v[i] for k, v in children.items()} if valid[i] else None) for i in range(n)]
    if pa.types.is_map(t):
        offsets = arr.offsets.to_pylist()
        keys = _canon_array(arr.keys)
        items = _canon_array(arr.items)
        return [
            ([[keys[j], items[j]] for j in range(offsets[i], offsets[i + 1])] if valid[i] else None)
            for i in range(n)
        ]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        offsets = arr.offsets.to_pylist()
        values = _canon_array(arr.values)
        return [(values[offsets[i] : offsets[i + 1]] if valid[i] else None) for i in range(n)]
    if pa.types.is_timestamp(t) or pa.types.is_time64(t) or pa.types.is_date64(t):
        return [None if v is None else str(v) for v in arr.cast(pa.int64()).to_pylist()]
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return arr.cast(pa.int32()).to_pylist()
    if pa.types.is_decimal128(t):
        raw = memoryview(arr.buffers()[1])[arr.offset * 16 : (arr.offset + n) * 16]
        return [
            _unscaled_string(int.from_bytes(raw[i * 16 : i * 16 + 16], "little", signed=True), t.scale)
            if valid[i]
            else None
            for i in range(n)
        ]
    if pa.types.is_decimal(t):
        return [None if v is None else _decimal_string(v, t.scale) for v in arr.to_pylist()]
    if pa.types.is_float16(t):
        raw = memoryview(arr.buffers()[1]).cast("H")
        return [f"f16:{raw[arr.offset + i]}" if valid[i] else None for i in range(n)]
    if pa.types.is_float32(t):
        return [_float_bits(v, "f") for v in arr.to_pylist()]
    if pa.types.is_float64(t):
        return [_float_bits(v, "d") for v in arr.to_pylist()]
    if pa.types.is_int64(t) or pa.types.is_uint64(t):
        return [None if v is None else str(v) for v in arr.to_pylist()]
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return [None if v is None else v.hex() for v in arr.to_pylist()]
    return arr.to_pylist()


def _canon_table(table):
    columns = {}
    for name in table.column_names:
        values = []
        for chunk in table.column(name).chunks:
            values.extend(_canon_array(chunk))
        columns[name] = values
    return {
        "schema": {f.name: _canon_type(f.type) for f in table.schema},
        "numRows": table.num_rows,
        "columns": columns,
    }


def op_parquet_read_canonical(args):
    """Reads a Parquet file with pyarrow (INT96 as microseconds) into the canonical form.

    args: path; columns (top-level names, optional); row_groups (indexes, optional); slices (optional list of
    [offset, length] row slices: only those rows are canonicalized, concatenated in order — for big files)."""
    pf = pq.ParquetFile(args["path"], coerce_int96_timestamp_unit="us")
    columns = args.get("columns")
    if args.get("row_groups") is not None:
        table = pf.read_row_groups(args["row_groups"], columns=columns)
    else:
        table = pf.read(columns=columns)
    num_rows = table.num_rows
    if args.get("slices") is not None:
        table = pa.concat_tables([table.slice(offset, length) for offset, length in args["slices"]])
    out = _canon_table(table)
    out["numRows"] = num_rows
    out["rowGroupRows"] = [pf.metadata.row_group(i).num_rows for i in range(pf.metadata.num_row_groups)]
    return out


def _type_matrix_table(rows, seed):
    rng = random.Random(seed)
    utc = datetime.timezone.utc
    long_ascii = "x" * 70 + "-tail"
    long_utf8 = "ünïcødé-" * 12 + "日本語🎉"
    strings = ["", "a", "plain ascii", long_ascii, long_utf8, "日本語", "🎉 emoji", "line\nbreak", None]
    floats = [0.0, -0.0, 1.5, -2.25, float("nan"), float("inf"), float("-inf"), 1e300, 5e-324, None]
    i64s = [0, 1, -1, 2**53 + 1, -(2**53) - 3, 2**63 - 1, -(2**63), None]
    dec10 = [decimal.Decimal(v) for v in ["0.00", "12345678.91", "-99999999.99", "0.01", "-0.01"]] + [None]
    dec38 = [
        decimal.Decimal(v)
        for v in [
            "0E-10",
            "1234567890123456789012345678.0123456789",
            "-9999999999999999999999999999.9999999999",
            "9007199254740993.0000000001",
            "-0.0000000001",
        ]
    ] + [None]
    ts_us = [0, 1, -1, 1_700_000_000_123_456, -62_135_596_800_000_000, 253_402_300_799_999_999, None]
    ts_ns = [0, 1, -1, 1_700_000_000_123_456_789, -9_000_000_000_000_000_000, None]

    def pick(values):
        return [values[rng.randrange(len(values))] for _ in range(rows)]

    def maybe(value, p_null=0.15):
        return None if rng.random() < p_null else value

    def struct_value():
        if rng.random() < 0.1:
            return None
        return {
            "a": maybe(rng.randrange(-1000, 1000)),
            "b": maybe(rng.choice(strings[:-1])),
            "c": maybe({"d": rng.choice(floats)}),
        }

    def list_of(make, p_null=0.1, max_len=5):
        if rng.random() < p_null:
            return None
        return [make() for _ in range(rng.randrange(0, max_len))]

    def map_value():
        if rng.random() < 0.1:
            return None
        keys = rng.sample(["k1", "k2", "ключ", "", long_ascii], rng.randrange(0, 4))
        return [(k, maybe(rng.randrange(-(2**31), 2**31))) for k in keys]

    int8 = [maybe(rng.randrange(-128, 128)) for _ in range(rows)]
    columns = {
        "id": pa.array(range(rows), pa.int32()),
        "i8": pa.array(int8, pa.int8()),
        "i16": pa.array([maybe(rng.randrange(-(2**15), 2**15)) for _ in range(rows)], pa.int16()),
        "i32": pa.array([maybe(rng.randrange(-(2**31), 2**31)) for _ in range(rows)], pa.int32()),
        "i64": pa.array(pick(i64s), pa.int64()),
        "i64_req": pa.array([rng.randrange(-(2**63), 2**63) for _ in range(rows)], pa.int64()),
        "f32": pa.array([None if v is None else struct.unpack("f", struct.pack("f", v if abs(v) < 1e38 or math.isinf(v) or math.isnan(v) else 3e38))[0] for v in pick(floats)], pa.float32()),
        "f64": pa.array(pick(floats), pa.float64()),
        "f64_req": pa.array([rng.choice(floats[:-1]) for _ in range(rows)], pa.float64()),
        "b": pa.array([maybe(rng.random() < 0.5) for _ in range(rows)], pa.bool_()),
        "s": pa.array(pick(strings), pa.string()),
        "s_req": pa.array([rng.choice(strings[:-1]) for _ in range(rows)], pa.string()),
        "bin": pa.array([None if v is None else v.encode("utf-8") + bytes([0, 255]) for v in pick(strings)], pa.binary()),
        "fixed": pa.array([maybe(bytes(rng.randrange(256) for _ in range(4))) for _ in range(rows)], pa.binary(4)),
        "d": pa.array([maybe(rng.randrange(-800_000, 2_900_000)) for _ in range(rows)], pa.date32()),
        "ts_us_utc": pa.array(pick(ts_us), pa.timestamp("us", tz="UTC")),
        "ts_us": pa.array(pick(ts_us), pa.timestamp("us")),
        "ts_ns_utc": pa.array(pick(ts_ns), pa.timestamp("ns", tz="UTC")),
        "ts_ns": pa.array(pick(ts_ns), pa.timestamp("ns")),
        "ts_ms_utc": pa.array([None if v is None else v // 1000 for v in pick(ts_us)], pa.timestamp("ms", tz="UTC")),
        "dec5_1": pa.array([maybe(decimal.Decimal(rng.randrange(-99999, 100000)).scaleb(-1)) for _ in range(rows)], pa.decimal128(5, 1)),
        "dec10_2": pa.array(pick(dec10), pa.decimal128(10, 2)),
        "dec18_4": pa.array([maybe(decimal.Decimal(rng.randrange(-(10**18) + 1, 10**18)).scaleb(-4)) for _ in range(rows)], pa.decimal128(18, 4)),
        "dec38_10": pa.array(pick(dec38), pa.decimal128(38, 10)),
        "st": pa.array(
            [struct_value() for _ in range(rows)],
            pa.struct([("a", pa.int32()), ("b", pa.string()), ("c", pa.struct([("d", pa.float64())]))]),
        ),
        "li": pa.array([list_of(lambda: rng.choice(i64s)) for _ in range(rows)], pa.list_(pa.int64())),
        "ls": pa.array([list_of(lambda: rng.choice(strings)) for _ in range(rows)], pa.list_(pa.string())),
        "ll": pa.array([list_of(lambda: list_of(lambda: maybe(rng.randrange(100)))) for _ in range(rows)], pa.list_(pa.list_(pa.int32()))),
        "m": pa.array([map_value() for _ in range(rows)], pa.map_(pa.string(), pa.int32())),
        "lst": pa.array(
            [list_of(lambda: maybe({"x": maybe(rng.randrange(10)), "y": maybe(rng.choice(strings[:-1]))})) for _ in range(rows)],
            pa.list_(pa.struct([("x", pa.int32()), ("y", pa.string())])),
        ),
        "ts_in_list": pa.array([list_of(lambda: rng.choice(ts_ns)) for _ in range(rows)], pa.list_(pa.timestamp("ns", tz="UTC"))),
        "u8": pa.array([maybe(rng.randrange(256)) for _ in range(rows)], pa.uint8()),
        "u16": pa.array([maybe(rng.randrange(2**16)) for _ in range(rows)], pa.uint16()),
        "u32": pa.array([maybe(rng.choice([0, 1, 2**31, 2**32 - 1])) for _ in range(rows)], pa.uint32()),
        "u64": pa.array([maybe(rng.choice([0, 1, 2**63, 2**64 - 1])) for _ in range(rows)], pa.uint64()),
        # float16 bit patterns of 0.0, -0.0, 1.5, -2.0, 65504, inf, NaN (no numpy here: built as uint16 bits)
        "f16": pa.array(
            [maybe(rng.choice([0x0000, 0x8000, 0x3E00, 0xC000, 0x7BFF, 0x7C00, 0x7E00])) for _ in range(rows)],
            pa.uint16(),
        ).view(pa.float16()),
        "t_ms": pa.array([maybe(rng.randrange(86_400_000)) for _ in range(rows)], pa.time32("ms")),
        "t_us": pa.array([maybe(rng.randrange(86_400_000_000)) for _ in range(rows)], pa.time64("us")),
        "t_ns": pa.array([maybe(rng.randrange(86_400_000_000_000)) for _ in range(rows)], pa.time64("ns")),
        "dec_in_struct": pa.array(
            [maybe({"v": rng.choice(dec38)}) for _ in range(rows)], pa.struct([("v", pa.decimal128(38, 10))])
        ),
    }
    schema = pa.schema(
        [
            pa.field(name, arr.type, nullable=not name.endswith("_req") and name != "id")
            for name, arr in columns.items()
        ]
    )
    return pa.Table.from_arrays(list(columns.values()), schema=schema)


def op_parquet_write_type_matrix(args):
    """Writes the type matrix with pyarrow (no ARROW:schema, so readers see only the Parquet schema).

    args: path; rows (default 500); seed; row_group_size (default 128); compression (default snappy);
    data_page_version ("1.0" | "2.0"); use_dictionary (bool); store_decimal_as_integer (bool);
    data_page_size (bytes); column_encoding ({column: encoding}, needs use_dictionary false)."""
    table = _type_matrix_table(int(args.get("rows", 500)), args.get("seed", 7))
    pq.write_table(
        table,
        args["path"],
        row_group_size=int(args.get("row_group_size", 128)),
        compression=args.get("compression", "snappy"),
        data_page_version=args.get("data_page_version", "1.0"),
        use_dictionary=args.get("use_dictionary", True),
        store_decimal_as_integer=args.get("store_decimal_as_integer", False),
        data_page_size=args.get("data_page_size"),
        column_encoding=args.get("column_encoding"),
        store_schema=False,
    )
    md = pq.ParquetFile(args["path"]).metadata
    return {"numRows": md.num_rows, "numRowGroups": md.num_row_groups}


def op_parquet_write_bench_file(args):
    """Writes a wide-ish benchmark file: id int64, day string (30 values), val 16-hex string, amount double,
    all nullable with a few nulls. args: path, rows, row_group_size, compression."""
    import pyarrow.compute as pc

    rows = int(args["rows"])
    ids = pa.array(range(rows), pa.int64())
    day = pc.binary_join_element_wise(pa.scalar("2026-01-"), pc.cast(pc.add(pc.bit_wise_and(ids, 15), 10), pa.string()), "")
    val = pc.utf8_slice_codeunits(pc.cast(pc.multiply(ids, 2654435761), pa.string()), 0, 16)
    amount = pc.multiply(pc.cast(ids, pa.float64()), 0.5)
    table = pa.table({"id": ids, "day": day, "val": val, "amount": amount})
    pq.write_table(
        table,
        args["path"],
        row_group_size=int(args.get("row_group_size", 131072)),
        compression=args.get("compression", "snappy"),
        store_schema=False,
    )
    return {"numRows": rows}


def op_parquet_read_timing(args):
    """Times pyarrow reading a whole file into an Arrow table (median of `runs`). args: path, runs, columns."""
    timings = []
    cpu = []
    for _ in range(int(args.get("runs", 3))):
        start, cpu_start = time.perf_counter(), time.process_time()
        table = pq.read_table(args["path"], columns=args.get("columns"), use_threads=args.get("use_threads", True))
        timings.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu_start)
    timings.sort()
    cpu.sort()
    return {
        "seconds": timings[len(timings) // 2],
        "cpuSeconds": cpu[len(cpu) // 2],
        "numRows": table.num_rows,
        "nbytes": table.nbytes,
    }


def op_parquet_column_chunks(args):
    """Byte ranges of every column chunk as pyarrow reads them from the footer: per row group, a list of
    {path, start, end, dictionaryPageOffset, dataPageOffset}; plus the footer length. args: path."""
    pf = pq.ParquetFile(args["path"])
    md = pf.metadata
    groups = []
    for g in range(md.num_row_groups):
        chunks = []
        for c in range(md.num_columns):
            col = md.row_group(g).column(c)
            start = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
            chunks.append(
                {
                    "path": col.path_in_schema,
                    "start": start,
                    "end": start + col.total_compressed_size,
                    "dictionaryPageOffset": col.dictionary_page_offset,
                    "dataPageOffset": col.data_page_offset,
                }
            )
        groups.append({"numRows": md.row_group(g).num_rows, "chunks": chunks})
    return {"rowGroups": groups, "footerBytes": md.serialized_size}
