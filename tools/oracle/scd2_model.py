"""The SCD2 reference model: the expected content of a history table and the content-defined counters of
`HistoryUpsertStats` after one `historyUpsert` call, computed from the table's rows and one batch. It is
written from the seed's text alone (seeds/deltalite-readme.txt, "History upsert", lines 78-93) and issue 11's
"Readings settled here", never from the TypeScript implementation, so the differential suite can compare the
two. Pure Python over pyarrow tables; no delta-rs.

    apply(table, batch, options) -> (new_table, stats)

`table` is the whole current content (every row, with its partition value) as a `pyarrow.Table` whose schema
is the Delta table's; `batch` is the source as a `pyarrow.Table`; `options` is a dict with key_columns,
order_column, valid_from_column, valid_to_column, partition_column, current_partition, optional
tie_break_column and optional table_partition_columns (the Delta table's partition columns; default
[partition_column]). `new_table` has the table's schema (row order carries no meaning: untouched rows, then
the closed former open rows, then the batch's new rows). `stats` holds rows_in, rows_deduped, rows_reread,
rows_backwards, versions_opened, versions_closed, chain_rows_closed and committed. A call the seed refuses
raises `Scd2ModelError` whose `kind` is the deltalite error kind; a table that is not a well-formed history
table raises `Scd2PreconditionError` (the model covers only tables a correct writer could have produced).

Readings (the seed line each rests on; "issue" = issue 11's "Readings settled here"):
 1. Order of the rules (issue): collapse (rule 1, l.84) runs before the comparison with the open row (rule 2,
    l.85), so rows_in = rows_deduped + rows_reread + rows_backwards + kept rows.
 2. "The later row" (l.84, issue) is the later one in the source's row order.
 3. Rule 2 (l.85, issue) compares with the key's open row only; a key without an open row keeps every
    collapsed row. Closed history rows of a key are never read.
 4. Key identity (l.82, issue): key parts compared null-safely (null matches null), after casting the source
    key columns to the table's types. Non-null values are equal when their arrow-row encodings are (l.95 says
    history_upsert matches keys as key_buckets encodes them): floats by IEEE total order, so -0.0 != 0.0 and
    NaN == NaN; timestamps as instants, whatever their zone spelling or offset.
 5. "Same order value", "highest tie-break", "strictly greater" (l.84-85): the natural order of the type after
    the cast to the table's type; floats by IEEE total order, timestamps as instants, strings by code point
    (= UTF-8 byte order), binary by bytes.
 6. Null tie-break values (l.84 is silent): a null ranks below every non-null value; two nulls are equal, so
    the later row wins.
 7. The chain (l.86): kept rows are chained in ascending order value; "next" is the next higher order value
    and "the newest" the highest. "The first kept row" (l.87) is the lowest kept order value. valid_from values
    are taken as they are (no check that they rise with the order value).
 8. Counters (l.93): versions_closed = open rows closed (rule 4); chain_rows_closed = kept rows written closed
    (rule 3); versions_opened (the seed gives no gloss) = kept rows written open, i.e. one per key that keeps a
    row. So kept rows = versions_opened + chain_rows_closed.
 9. Partitions (l.80): an open row gets current_partition; a closed row gets strftime(valid_to, "%Y-%m") of
    its valid_to in UTC (issue: UTC whatever the process's zone; an instant exactly at a month's start belongs
    to that month). A timestamp without zone is read as UTC wall time.
10. committed (l.89) is true exactly when the call keeps a row. The nullability relax writes no content, so
    it is not modelled.
11. Source columns (l.89 and SPEC §7 "Source casts"): the source must carry every key column, the order column
    and the valid-from column (else schema_mismatch, as SPEC §7 says for a missing primary-key column); it
    must not carry valid_to_column or partition_column (generic, l.89). Table columns the source lacks are
    written null. A source column the table lacks, other than the tie-break column, is schema_mismatch (the
    seed gives history_upsert no schema evolution). Casts follow SPEC §7: identity, dictionary -> value type,
    integral floats -> integers, narrower -> wider integers, Utf8 <-> LargeUtf8, timestamp units and zones
    without loss (tz-aware to tz-aware, naive to naive); anything else is schema_mismatch.
12. tie_break_column (l.89): a source column of a fixed-width type (integer, float, decimal, date, time,
    timestamp, duration; not boolean, which Arrow bit-packs, nor any variable-width or nested type), else
    invalid_argument (the seed names no class; a bad option is invalid_argument by house rule). It is written
    (cast to the table's type) only when the table has that column, and dropped otherwise.
13. The table (l.80): partitioned by exactly [partition_column], a string (Utf8 or LargeUtf8) column, else
    unsupported. valid_from_column and valid_to_column must be timestamp columns of one type in the table, and
    every option must name an existing column, else invalid_argument (model restriction: the seed implies the
    types through strftime and "closes at the next kept row's valid_from").
14. Checks run in this order, first failure wins: the options (invalid_argument); the table's partitioning
    (unsupported); the option columns in the table and the valid-from/valid-to types (invalid_argument); a
    source carrying valid_to_column or partition_column (generic); a source lacking a key, order or valid-from
    column, then source columns the table lacks (schema_mismatch); the tie-break column's presence and type
    (invalid_argument); the casts (schema_mismatch); nulls in the order, then the valid-from column (generic,
    l.89, naming the first bad row). Only then the rules run. A refused call changes nothing.
"""

import datetime as dt
import struct
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc


class Scd2ModelError(Exception):
    """A call the seed refuses; `kind` is the deltalite error kind (generic, unsupported, schema_mismatch,
    invalid_argument)."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class Scd2PreconditionError(ValueError):
    """The input table is not a history table a correct writer could have produced."""


@dataclass(frozen=True)
class Options:
    key_columns: tuple
    order_column: str
    valid_from_column: str
    valid_to_column: str
    partition_column: str
    current_partition: str
    tie_break_column: str | None
    table_partition_columns: tuple


STAT_NAMES = (
    "rows_in",
    "rows_deduped",
    "rows_reread",
    "rows_backwards",
    "versions_opened",
    "versions_closed",
    "chain_rows_closed",
    "committed",
)


def apply(table, batch, options):
    """One historyUpsert call: (new table content, content-defined stats). See the module docstring."""
    opts = parse_options(options)
    check_table_shape(table.schema, opts)
    source = prepare_source(batch, table.schema, opts)
    table_rows = table.to_pylist()
    check_history_table(table_rows, table.schema, opts)
    return run_rules(table_rows, source.to_pylist(), table.schema, source.schema, opts)


# ---- options --------------------------------------------------------------------------------------------


def parse_options(options):
    required = ("key_columns", "order_column", "valid_from_column", "valid_to_column", "partition_column")
    for name in (*required, "current_partition"):
        if options.get(name) is None:
            raise Scd2ModelError("invalid_argument", f"option {name} is required")
    keys = options["key_columns"]
    if isinstance(keys, str) or not keys or not all(isinstance(k, str) for k in keys):
        raise Scd2ModelError("invalid_argument", "key_columns must be a non-empty list of column names")
    if len(set(keys)) != len(keys):
        raise Scd2ModelError("invalid_argument", f"key_columns names a column twice: {list(keys)}")
    for name in (*required[1:], "current_partition"):
        if not isinstance(options[name], str):
            raise Scd2ModelError("invalid_argument", f"option {name} must be a string")
    tie_break = options.get("tie_break_column")
    if tie_break is not None and not isinstance(tie_break, str):
        raise Scd2ModelError("invalid_argument", "option tie_break_column must be a string")
    partition_columns = options.get("table_partition_columns")
    if partition_columns is None:
        partition_columns = [options["partition_column"]]
    return Options(
        key_columns=tuple(keys),
        order_column=options["order_column"],
        valid_from_column=options["valid_from_column"],
        valid_to_column=options["valid_to_column"],
        partition_column=options["partition_column"],
        current_partition=options["current_partition"],
        tie_break_column=tie_break,
        table_partition_columns=tuple(partition_columns),
    )


# ---- table shape ----------------------------------------------------------------------------------------


def check_table_shape(schema, opts):
    names = schema.names
    if list(opts.table_partition_columns) != [opts.partition_column]:
        raise Scd2ModelError(
            "unsupported",
            f"the table is partitioned by {list(opts.table_partition_columns)}, not by exactly "
            f"[{opts.partition_column!r}]",
        )
    part_type = schema.field(opts.partition_column).type if opts.partition_column in names else None
    if part_type not in (pa.string(), pa.large_string()):
        raise Scd2ModelError("unsupported", f"partition column {opts.partition_column!r} is {part_type}, not a string")
    for role in ("order_column", "valid_from_column", "valid_to_column"):
        _require_table_column(schema, getattr(opts, role), role)
    for key in opts.key_columns:
        _require_table_column(schema, key, "key_columns")
    valid_from = schema.field(opts.valid_from_column).type
    valid_to = schema.field(opts.valid_to_column).type
    if not pa.types.is_timestamp(valid_to) or valid_from != valid_to:
        raise Scd2ModelError(
            "invalid_argument",
            f"valid_from_column ({valid_from}) and valid_to_column ({valid_to}) must be timestamps of one type",
        )


def _require_table_column(schema, name, role):
    if name not in schema.names:
        raise Scd2ModelError("invalid_argument", f"{role}: the table has no column {name!r}")


# ---- source ---------------------------------------------------------------------------------------------


def prepare_source(batch, table_schema, opts):
    """Checks the source's columns and casts every one the table has to the table's type."""
    names = batch.schema.names
    for forbidden in (opts.valid_to_column, opts.partition_column):
        if forbidden in names:
            raise Scd2ModelError("generic", f"the source must not carry {forbidden!r}: historyUpsert sets it")
    for required in (*opts.key_columns, opts.order_column, opts.valid_from_column):
        if required not in names:
            raise Scd2ModelError("schema_mismatch", f"the source has no column {required!r}")
    extra = [n for n in names if n not in table_schema.names and n != opts.tie_break_column]
    if extra:
        raise Scd2ModelError("schema_mismatch", f"the table has no column {extra[0]!r} (from the source)")
    if opts.tie_break_column is not None:
        check_tie_break_type(batch.schema, opts.tie_break_column)
    columns = []
    for name in names:
        column = batch.column(name).combine_chunks()
        if name in table_schema.names:
            column = cast_exact(column, table_schema.field(name).type, name)
        columns.append(column)
    source = pa.table(columns, names=names)
    for name in (opts.order_column, opts.valid_from_column):
        nulls = source.column(name).is_null().to_pylist()
        if any(nulls):
            raise Scd2ModelError("generic", f"null {name!r} in source row {nulls.index(True)}")
    return source


def check_tie_break_type(schema, name):
    if name not in schema.names:
        raise Scd2ModelError("invalid_argument", f"tie_break_column: the source has no column {name!r}")
    kind = schema.field(name).type
    fixed = (
        pa.types.is_integer(kind)
        or pa.types.is_floating(kind)
        or pa.types.is_decimal(kind)
        or pa.types.is_date(kind)
        or pa.types.is_time(kind)
        or pa.types.is_timestamp(kind)
        or pa.types.is_duration(kind)
    )
    if not fixed:
        raise Scd2ModelError("invalid_argument", f"tie_break_column {name!r} is {kind}, not a fixed-width type")


def cast_exact(column, target, name):
    """SPEC §7's source casts: only casts that are exact for every value; anything else is schema_mismatch."""
    source = column.type
    if source == target:
        return column
    if pa.types.is_dictionary(source):
        return cast_exact(column.dictionary_decode(), target, name)
    if not _cast_allowed(source, target):
        raise Scd2ModelError("schema_mismatch", f"column {name!r}: the source's {source} does not cast to {target}")
    try:
        return column.cast(target, safe=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        raise Scd2ModelError("schema_mismatch", f"column {name!r}: {error}") from error


def _cast_allowed(source, target):
    if pa.types.is_integer(source) and pa.types.is_integer(target):
        return _integer_widens(source, target)
    if pa.types.is_floating(source) and pa.types.is_integer(target):
        return True  # the safe cast refuses a fractional or out-of-range value
    strings = (pa.string(), pa.large_string())
    if source in strings and target in strings:
        return True
    if pa.types.is_timestamp(source) and pa.types.is_timestamp(target):
        return (source.tz is None) == (target.tz is None)  # the safe cast refuses a lossy unit change
    return False


def _integer_widens(source, target):
    signed_source, signed_target = pa.types.is_signed_integer(source), pa.types.is_signed_integer(target)
    if signed_source == signed_target:
        return target.bit_width >= source.bit_width
    return signed_target and target.bit_width > source.bit_width


# ---- value identity and order ---------------------------------------------------------------------------

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def identity(value):
    """A hashable, totally ordered stand-in for one non-null value (readings 4 and 5); None stays None."""
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return value
    if isinstance(value, float):
        bits = struct.unpack(">q", struct.pack(">d", value))[0]
        return bits if bits >= 0 else bits ^ 0x7FFF_FFFF_FFFF_FFFF
    if isinstance(value, dt.datetime):
        return epoch_micros(value)
    return value  # date, time, timedelta, Decimal: Python's order is the type's order


def epoch_micros(value):
    aware = value if value.tzinfo is not None else value.replace(tzinfo=dt.timezone.utc)
    delta = aware - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def month_partitions(instants):
    """strftime(valid_to, "%Y-%m") in UTC for each instant, as pyarrow computes it (reading 9)."""
    if not instants:
        return []
    micros = pa.array([epoch_micros(v) for v in instants], pa.int64())
    return pc.strftime(micros.cast(pa.timestamp("us", tz="UTC")), format="%Y-%m").to_pylist()


# ---- the input table ------------------------------------------------------------------------------------


def check_history_table(rows, schema, opts):
    """Every open row in current_partition, at most one per key, every closed row in its month partition."""
    months = month_partitions([r[opts.valid_to_column] for r in rows if r[opts.valid_to_column] is not None])
    month_of = iter(months)
    open_keys = set()
    for index, row in enumerate(rows):
        is_open = row[opts.valid_to_column] is None
        expected = opts.current_partition if is_open else next(month_of)
        if row[opts.partition_column] != expected:
            raise Scd2PreconditionError(f"table row {index} sits in {row[opts.partition_column]!r}, not {expected!r}")
        if is_open:
            key = key_of(row, opts)
            if key in open_keys:
                raise Scd2PreconditionError(f"table row {index}: a second open row for key {key}")
            if row[opts.order_column] is None or row[opts.valid_from_column] is None:
                raise Scd2PreconditionError(f"table row {index}: an open row with a null order or valid-from")
            open_keys.add(key)


def key_of(row, opts):
    return tuple(identity(row[k]) for k in opts.key_columns)


# ---- the rules ------------------------------------------------------------------------------------------


def run_rules(table_rows, source_rows, table_schema, source_schema, opts):
    stats = dict.fromkeys(STAT_NAMES, 0)
    stats["rows_in"] = len(source_rows)
    collapsed = collapse(source_rows, opts)  # rule 1
    stats["rows_deduped"] = len(source_rows) - sum(len(rows) for rows in collapsed.values())
    open_rows = {key_of(row, opts): i for i, row in enumerate(table_rows) if row[opts.valid_to_column] is None}
    closed_open_rows, new_rows = [], []
    for key, candidates in collapsed.items():
        open_index = open_rows.get(key)
        kept = keep_newer(candidates, table_rows[open_index] if open_index is not None else None, opts, stats)  # rule 2
        if not kept:
            continue
        new_rows.extend(chain(kept, table_schema, opts, stats))  # rule 3
        if open_index is not None:  # rule 4
            closed_open_rows.append((open_index, kept[0][opts.valid_from_column]))
    untouched = set(range(len(table_rows))) - {i for i, _ in closed_open_rows}
    result = [table_rows[i] for i in sorted(untouched)]
    result.extend(close_open_row(table_rows[i], valid_to, opts) for i, valid_to in closed_open_rows)
    stats["versions_closed"] = len(closed_open_rows)
    result.extend(new_rows)
    stats["committed"] = bool(new_rows)
    assign_month_partitions(result, opts)
    return pa.Table.from_pylist(result, schema=table_schema), stats


def collapse(source_rows, opts):
    """Rule 1: per key and order value, the row with the highest tie-break; the later row on a tie.
    Returns key -> collapsed rows, keys in first-appearance order."""
    best = {}
    for position, row in enumerate(source_rows):
        group = (key_of(row, opts), identity(row[opts.order_column]))
        rank = (tie_break_rank(row, opts), position)
        if group not in best or rank > best[group][0]:
            best[group] = (rank, row)
    by_key = {}
    for (key, _order), (_rank, row) in best.items():
        by_key.setdefault(key, []).append(row)
    return by_key


def tie_break_rank(row, opts):
    if opts.tie_break_column is None:
        return (0,)
    value = row[opts.tie_break_column]
    return (0,) if value is None else (1, identity(value))


def keep_newer(candidates, open_row, opts, stats):
    """Rule 2: the collapsed rows with an order value strictly above the open row's, in ascending order."""
    ordered = sorted(candidates, key=lambda row: identity(row[opts.order_column]))
    if open_row is None:
        return ordered
    bar = identity(open_row[opts.order_column])
    stats["rows_reread"] += sum(1 for row in ordered if identity(row[opts.order_column]) == bar)
    stats["rows_backwards"] += sum(1 for row in ordered if identity(row[opts.order_column]) < bar)
    return [row for row in ordered if identity(row[opts.order_column]) > bar]


def chain(kept, table_schema, opts, stats):
    """Rule 3: each kept row closes at the next one's valid_from; the newest stays open."""
    rows = []
    for index, source_row in enumerate(kept):
        row = {name: source_row.get(name) for name in table_schema.names}
        is_newest = index == len(kept) - 1
        row[opts.valid_to_column] = None if is_newest else kept[index + 1][opts.valid_from_column]
        rows.append(row)
    stats["versions_opened"] += 1
    stats["chain_rows_closed"] += len(kept) - 1
    return rows


def close_open_row(row, valid_to, opts):
    closed = dict(row)
    closed[opts.valid_to_column] = valid_to
    return closed


def assign_month_partitions(rows, opts):
    closed = [row for row in rows if row[opts.valid_to_column] is not None]
    for row, month in zip(closed, month_partitions([row[opts.valid_to_column] for row in closed]), strict=True):
        row[opts.partition_column] = month
    for row in rows:
        if row[opts.valid_to_column] is None:
            row[opts.partition_column] = opts.current_partition
