"""Oracle op exposing the SCD2 reference model (scd2_model.py) to the TypeScript tests: it owns the JSON
contract, i.e. decoding typed rows from JSON into pyarrow tables and encoding the model's result back.

Op `scd2_model_apply`, args:
    {"table":   {"schema": {column: type, ...}, "partition_columns": [name, ...], "rows": [row, ...]},
     "batch":   {"schema": {column: type, ...}, "rows": [row, ...]},
     "options": {"keyColumns": [...], "orderColumn": ..., "validFromColumn": ..., "validToColumn": ...,
                 "partitionColumn": ..., "currentPartition": ..., "tieBreakColumn"?: ...}}
Options may also be spelled in snake_case (key_columns, ...); any other option name is a contract error.
`table.rows` is the table's whole content, each row with its partition value.

Types are pyarrow's spelling: bool, int8..int64, uint8..uint64, float / float32, double / float64, string,
large_string, binary, date32, decimal128(p, s), timestamp[s|ms|us] or timestamp[us, tz=<zone>] (a zone name
or an offset such as +02:00), and dictionary<values=T, indices=I> (pyarrow's `str(type)`, with or without
", ordered=0"). A row is an object from column name to value; a column missing from a row is null; a name
outside the schema is a contract error.

Values: integers as JSON numbers or decimal strings (int64 beyond 2^53); floats as numbers or "NaN",
"Infinity", "-Infinity"; decimals as strings; binary as base64; dates "YYYY-MM-DD"; timestamps as ISO 8601
text with at most 6 fraction digits: with an offset ("Z" or "+hh:mm") for a zoned column, which may differ
from the column's zone (the value is the instant), and without one for a naive column.

Result, on success: {"rows": [row, ...], "stats": {"rowsIn", "rowsDeduped", "rowsReread", "rowsBackwards",
"versionsOpened", "versionsClosed", "chainRowsClosed", "committed"}}; rows use the table's schema and the
encoding above, timestamps of zoned columns written in UTC as "YYYY-MM-DDTHH:MM:SS.ffffffZ" and naive ones
without the "Z"; row order carries no meaning. On a call the seed refuses: {"error": {"kind": ..., "message":
...}} with the deltalite error kind. A malformed request or a table that is not a well-formed history table
fails the op itself (the worker's ok: false).
"""

import base64
import datetime as dt
import decimal
import math
import re

import pyarrow as pa

from scd2_model import STAT_NAMES, Scd2ModelError, apply

_OPTION_NAMES = {
    "keyColumns": "key_columns",
    "orderColumn": "order_column",
    "validFromColumn": "valid_from_column",
    "validToColumn": "valid_to_column",
    "partitionColumn": "partition_column",
    "currentPartition": "current_partition",
    "tieBreakColumn": "tie_break_column",
}


def op_scd2_model_apply(args):
    table = decode_table(args["table"])
    batch = decode_table(args["batch"])
    options = decode_options(args.get("options") or {})
    options["table_partition_columns"] = list(args["table"].get("partition_columns") or [])
    try:
        result, stats = apply(table, batch, options)
    except Scd2ModelError as error:
        return {"error": {"kind": error.kind, "message": str(error)}}
    return {"rows": encode_rows(result), "stats": {_camel(name): stats[name] for name in STAT_NAMES}}


def decode_options(options):
    decoded = {}
    for name, value in options.items():
        snake = _OPTION_NAMES.get(name, name)
        if snake not in _OPTION_NAMES.values():
            raise ValueError(f"unknown scd2 model option {name!r}; known: {sorted(_OPTION_NAMES)}")
        decoded[snake] = value
    return decoded


def _camel(snake):
    head, *rest = snake.split("_")
    return head + "".join(part.capitalize() for part in rest)


# ---- types ----------------------------------------------------------------------------------------------

_TIMESTAMP = re.compile(r"^timestamp\[(s|ms|us)(?:, tz=(.+))?\]$")
_DECIMAL = re.compile(r"^decimal128\((\d+), ?(\d+)\)$")
_DICTIONARY = re.compile(r"^dictionary<values=(.+), indices=(\w+)(?:, ordered=0)?>$")


def parse_type(text):
    if match := _TIMESTAMP.match(text):
        return pa.timestamp(match[1], tz=match[2])
    if match := _DECIMAL.match(text):
        return pa.decimal128(int(match[1]), int(match[2]))
    if match := _DICTIONARY.match(text):
        return pa.dictionary(parse_type(match[2]), parse_type(match[1]))
    return pa.type_for_alias(text)


# ---- decoding -------------------------------------------------------------------------------------------


def decode_table(spec):
    schema = pa.schema([(name, parse_type(text)) for name, text in spec["schema"].items()])
    rows = spec.get("rows") or []
    for index, row in enumerate(rows):
        unknown = set(row) - set(schema.names)
        if unknown:
            raise ValueError(f"row {index} has columns outside the schema: {sorted(unknown)}")
    arrays = [decode_column([row.get(f.name) for row in rows], f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def decode_column(values, kind):
    if pa.types.is_dictionary(kind):
        plain = decode_column(values, kind.value_type)
        return plain.dictionary_encode().cast(kind)
    return pa.array([None if v is None else decode_value(v, kind) for v in values], type=kind)


def decode_value(value, kind):
    if pa.types.is_integer(kind):
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ValueError(f"{value!r} is not an integer for {kind}")
        return int(value)
    if pa.types.is_floating(kind):
        return float(value) if isinstance(value, str) else value  # float("NaN"), float("-Infinity")
    if pa.types.is_decimal(kind):
        return decimal.Decimal(value)
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
        return base64.b64decode(value, validate=True)
    if pa.types.is_date(kind):
        return dt.date.fromisoformat(value)
    if pa.types.is_timestamp(kind):
        return decode_timestamp(value, kind)
    return value


def decode_timestamp(text, kind):
    fraction = re.search(r"\.(\d+)", text)
    if fraction and len(fraction[1]) > 6:
        raise ValueError(f"timestamp {text!r} has more than microsecond precision")
    value = dt.datetime.fromisoformat(text)
    if (value.tzinfo is None) != (kind.tz is None):
        needs = "an offset" if kind.tz is not None else "no offset"
        raise ValueError(f"timestamp {text!r} needs {needs} for {kind}")
    return value


# ---- encoding -------------------------------------------------------------------------------------------


def encode_rows(table):
    kinds = {f.name: f.type for f in table.schema}
    return [{name: encode_value(value, kinds[name]) for name, value in row.items()} for row in table.to_pylist()]


def encode_value(value, kind):
    if value is None:
        return None
    if pa.types.is_dictionary(kind):
        return encode_value(value, kind.value_type)
    if isinstance(value, bool) or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if abs(value) <= 2**53 - 1 else str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return value if math.isfinite(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            return value.isoformat(timespec="microseconds")
        return value.astimezone(dt.timezone.utc).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"
    if isinstance(value, dt.date):
        return value.isoformat()
    raise ValueError(f"no JSON encoding for {kind}")
