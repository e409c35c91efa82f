"""Unit tests of the SCD2 reference model (scd2_model.py) and its oracle op (ops_scd2.py): one focused test per
rule of the seed's "History upsert" section and per settled reading, the refusals, and multi-batch sequences
whose expected rows are worked out by hand here (never computed by the model).

Run: tools/oracle/.venv/bin/python -m pytest tools/oracle/test_scd2_model.py
"""

import datetime as dt

import pyarrow as pa
import pytest

from ops_scd2 import op_scd2_model_apply
from scd2_model import Scd2ModelError, Scd2PreconditionError, apply

UTC = dt.timezone.utc
TS = pa.timestamp("us", tz="UTC")
TABLE = pa.schema([("tenant", pa.string()), ("id", pa.int64()), ("seq", pa.int64()), ("vf", TS), ("vt", TS),
                   ("p", pa.string()), ("v", pa.string())])  # fmt: skip
SOURCE = pa.schema([("tenant", pa.string()), ("id", pa.int64()), ("seq", pa.int64()), ("vf", TS), ("v", pa.string())])
OPTIONS = {
    "key_columns": ["tenant", "id"],
    "order_column": "seq",
    "valid_from_column": "vf",
    "valid_to_column": "vt",
    "partition_column": "p",
    "current_partition": "current",
}


def ts(text):
    """An instant from ISO text; without an offset it means UTC."""
    value = dt.datetime.fromisoformat(text)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def src(tenant, id_, seq, vf, v=None):
    return {"tenant": tenant, "id": id_, "seq": seq, "vf": ts(vf), "v": v}


def row(tenant, id_, seq, vf, vt, p, v=None):
    return {"tenant": tenant, "id": id_, "seq": seq, "vf": ts(vf), "vt": ts(vt) if vt else None, "p": p, "v": v}


def run(table_rows, batch_rows, schema=TABLE, source_schema=SOURCE, **options):
    table = pa.Table.from_pylist(table_rows, schema=schema)
    batch = pa.Table.from_pylist(batch_rows, schema=source_schema)
    result, stats = apply(table, batch, {**OPTIONS, **options})
    return result.to_pylist(), stats


def canon(rows):
    """Rows as an order-free comparable list (instants in UTC text, so zones compare by instant)."""

    def value(v):
        return v.astimezone(UTC).isoformat() if isinstance(v, dt.datetime) else repr(v)

    return sorted(tuple((k, value(v)) for k, v in sorted(r.items())) for r in rows)


def assert_rows(actual, expected):
    assert canon(actual) == canon(expected)


def counters(stats, **expected):
    base = dict.fromkeys(
        ["rows_in", "rows_deduped", "rows_reread", "rows_backwards", "versions_opened", "versions_closed",
         "chain_rows_closed"], 0)  # fmt: skip
    return {**base, "committed": True, **expected} == stats


def refused(kind, table_rows, batch_rows, **kwargs):
    with pytest.raises(Scd2ModelError) as caught:
        run(table_rows, batch_rows, **kwargs)
    assert caught.value.kind == kind, str(caught.value)
    return str(caught.value)


# ---- the partitions (seed l.80) --------------------------------------------------------------------------


def test_a_new_key_opens_one_row_in_the_current_partition():
    rows, stats = run([], [src("a", 1, 1, "2024-01-05T10:00", "x")])
    assert_rows(rows, [row("a", 1, 1, "2024-01-05T10:00", None, "current", "x")])
    assert counters(stats, rows_in=1, versions_opened=1)


@pytest.mark.parametrize(
    ("valid_to", "month"),
    [
        ("2024-02-01T00:00:00+00:00", "2024-02"),  # exactly at a month's start: that month
        ("2024-01-31T23:59:59.999999+00:00", "2024-01"),
        ("2024-02-01T00:30:00+01:00", "2024-01"),  # 23:30 UTC on Jan 31
        ("2023-12-31T23:30:00-01:00", "2024-01"),  # 00:30 UTC on Jan 1: the year turns in UTC
        ("2024-03-01T00:00:00+14:00", "2024-02"),
    ],
)
def test_a_closed_row_lands_in_the_utc_month_of_its_valid_to(valid_to, month):
    table = [row("a", 1, 1, "2023-06-01T00:00", None, "current")]
    rows, stats = run(table, [src("a", 1, 2, valid_to)])
    closed = [r for r in rows if r["vt"] is not None]
    assert len(closed) == 1 and closed[0]["p"] == month and closed[0]["vt"] == ts(valid_to)
    assert counters(stats, rows_in=1, versions_opened=1, versions_closed=1)


# ---- rule 1: collapse ------------------------------------------------------------------------------------

TB_SOURCE = pa.schema([*SOURCE, ("tb", pa.int32())])


def tb(tenant, id_, seq, vf, v, tie):
    return {**src(tenant, id_, seq, vf, v), "tb": tie}


def test_rule1_same_order_value_collapses_to_the_highest_tie_break():
    batch = [tb("a", 1, 5, "2024-01-01", "low", 1), tb("a", 1, 5, "2024-01-02", "high", 9),
             tb("a", 1, 5, "2024-01-03", "mid", 4)]  # fmt: skip
    rows, stats = run([], batch, source_schema=TB_SOURCE, tie_break_column="tb")
    assert_rows(rows, [row("a", 1, 5, "2024-01-02", None, "current", "high")])  # tb is not a table column
    assert counters(stats, rows_in=3, rows_deduped=2, versions_opened=1)


def test_rule1_an_equal_tie_break_goes_to_the_later_row():
    batch = [tb("a", 1, 5, "2024-01-01", "first", 7), tb("a", 1, 5, "2024-01-02", "second", 7),
             tb("a", 1, 5, "2024-01-03", "lower", 3)]  # fmt: skip
    rows, _ = run([], batch, source_schema=TB_SOURCE, tie_break_column="tb")
    assert_rows(rows, [row("a", 1, 5, "2024-01-02", None, "current", "second")])


def test_rule1_without_a_tie_break_column_the_later_row_wins():
    batch = [src("a", 1, 5, "2024-01-01", "first"), src("a", 1, 5, "2024-01-02", "last")]
    rows, stats = run([], batch)
    assert_rows(rows, [row("a", 1, 5, "2024-01-02", None, "current", "last")])
    assert counters(stats, rows_in=2, rows_deduped=1, versions_opened=1)


def test_rule1_a_null_tie_break_ranks_below_every_value():
    batch = [tb("a", 1, 5, "2024-01-01", "valued", -100), tb("a", 1, 5, "2024-01-02", "null", None)]
    rows, _ = run([], batch, source_schema=TB_SOURCE, tie_break_column="tb")
    assert_rows(rows, [row("a", 1, 5, "2024-01-01", None, "current", "valued")])


def test_rule1_collapses_per_key_only():
    batch = [src("a", 1, 5, "2024-01-01", "a1"), src("a", 2, 5, "2024-01-01", "a2")]
    rows, stats = run([], batch)
    assert len(rows) == 2 and stats["rows_deduped"] == 0


def test_the_tie_break_column_is_written_when_the_table_has_it():
    schema = pa.schema([*TABLE, ("tb", pa.int64())])
    batch = [tb("a", 1, 5, "2024-01-01", "x", 2), tb("a", 1, 5, "2024-01-02", "y", 8)]
    rows, _ = run([], batch, schema=schema, source_schema=TB_SOURCE, tie_break_column="tb")
    assert_rows(rows, [{**row("a", 1, 5, "2024-01-02", None, "current", "y"), "tb": 8}])


def test_a_timestamp_tie_break_orders_by_instant():
    schema = pa.schema([*SOURCE, ("tb", pa.timestamp("us", tz="+05:00"))])
    batch = [{**src("a", 1, 5, "2024-01-01", "later-wall-clock"), "tb": ts("2024-01-01T06:00+05:00")},  # 01:00Z
             {**src("a", 1, 5, "2024-01-02", "later-instant"), "tb": ts("2024-01-01T02:00+00:00")}]  # fmt: skip
    rows, _ = run([], batch, source_schema=schema, tie_break_column="tb")
    assert [r["v"] for r in rows] == ["later-instant"]


# ---- rule 2: strictly newer than the open row ------------------------------------------------------------


def test_rule2_equal_is_reread_lower_is_backwards_higher_is_kept():
    table = [row("a", 1, 10, "2024-01-10", None, "current", "open")]
    batch = [src("a", 1, 10, "2024-01-10", "again"), src("a", 1, 4, "2024-01-04", "old"),
             src("a", 1, 12, "2024-01-12", "new")]  # fmt: skip
    rows, stats = run(table, batch)
    assert_rows(rows, [row("a", 1, 10, "2024-01-10", "2024-01-12", "2024-01", "open"),
                       row("a", 1, 12, "2024-01-12", None, "current", "new")])  # fmt: skip
    assert counters(stats, rows_in=3, rows_reread=1, rows_backwards=1, versions_opened=1, versions_closed=1)


def test_rule2_compares_with_the_open_row_only_not_closed_history():
    table = [row("a", 1, 5, "2024-01-05", "2024-01-20", "2024-01", "old"),
             row("a", 1, 20, "2024-01-20", None, "current", "open")]  # fmt: skip
    rows, stats = run(table, [src("a", 1, 7, "2024-01-07", "between")])  # above history, below the open row
    assert_rows(rows, table)
    assert counters(stats, rows_in=1, rows_backwards=1, committed=False)


def test_rule2_a_key_without_an_open_row_keeps_every_collapsed_row():
    batch = [src("a", 1, 3, "2024-01-03"), src("a", 1, 1, "2024-01-01"), src("a", 1, 2, "2024-01-02")]
    rows, stats = run([], batch)
    assert len(rows) == 3
    assert counters(stats, rows_in=3, versions_opened=1, chain_rows_closed=2)


def test_collapse_runs_before_the_comparison_with_the_open_row():
    table = [row("a", 1, 10, "2024-01-10", None, "current", "open")]
    batch = [src("a", 1, 10, "2024-01-10", "r1"), src("a", 1, 10, "2024-01-10", "r2"),
             src("a", 1, 8, "2024-01-08"), src("a", 1, 8, "2024-01-08"), src("a", 1, 8, "2024-01-08")]  # fmt: skip
    rows, stats = run(table, batch)
    assert_rows(rows, table)
    assert counters(stats, rows_in=5, rows_deduped=3, rows_reread=1, rows_backwards=1, committed=False)


# ---- rules 3 and 4: the chain and closing the open row ---------------------------------------------------


def test_rule3_kept_rows_chain_by_order_value_and_the_newest_stays_open():
    batch = [src("a", 1, 30, "2024-03-15", "c"), src("a", 1, 10, "2024-01-15", "a"), src("a", 1, 20, "2024-02-15", "b")]
    rows, stats = run([], batch)
    assert_rows(rows, [row("a", 1, 10, "2024-01-15", "2024-02-15", "2024-02", "a"),
                       row("a", 1, 20, "2024-02-15", "2024-03-15", "2024-03", "b"),
                       row("a", 1, 30, "2024-03-15", None, "current", "c")])  # fmt: skip
    assert counters(stats, rows_in=3, versions_opened=1, chain_rows_closed=2)


def test_rule3_takes_valid_from_as_given_even_when_it_does_not_rise_with_the_order():
    batch = [src("a", 1, 1, "2024-05-01", "first"), src("a", 1, 2, "2024-04-01", "second")]
    rows, _ = run([], batch)
    assert_rows(rows, [row("a", 1, 1, "2024-05-01", "2024-04-01", "2024-04", "first"),
                       row("a", 1, 2, "2024-04-01", None, "current", "second")])  # fmt: skip


def test_rule4_the_open_row_closes_at_the_first_kept_valid_from_and_moves():
    table = [row("a", 1, 1, "2023-12-01", None, "current", "open")]
    batch = [src("a", 1, 3, "2024-02-10", "b"), src("a", 1, 2, "2024-01-10", "a")]
    rows, stats = run(table, batch)
    assert_rows(rows, [row("a", 1, 1, "2023-12-01", "2024-01-10", "2024-01", "open"),
                       row("a", 1, 2, "2024-01-10", "2024-02-10", "2024-02", "a"),
                       row("a", 1, 3, "2024-02-10", None, "current", "b")])  # fmt: skip
    assert counters(stats, rows_in=2, versions_opened=1, versions_closed=1, chain_rows_closed=1)


def test_keys_that_keep_nothing_leave_their_open_row_and_other_keys_untouched():
    table = [row("a", 1, 5, "2024-01-05", None, "current", "a"), row("b", 1, 5, "2024-01-05", None, "current", "b")]
    rows, stats = run(table, [src("a", 1, 5, "2024-01-05"), src("b", 1, 6, "2024-01-06", "b2")])
    assert_rows(rows, [table[0], row("b", 1, 5, "2024-01-05", "2024-01-06", "2024-01", "b"),
                       row("b", 1, 6, "2024-01-06", None, "current", "b2")])  # fmt: skip
    assert counters(stats, rows_in=2, rows_reread=1, versions_opened=1, versions_closed=1)


def test_table_columns_the_source_lacks_are_written_null():
    narrow = pa.schema([f for f in SOURCE if f.name != "v"])
    rows, _ = run([], [{"tenant": "a", "id": 1, "seq": 1, "vf": ts("2024-01-01")}], source_schema=narrow)
    assert rows[0]["v"] is None


# ---- key identity (l.82, l.95) ---------------------------------------------------------------------------


def test_keys_match_null_safely():
    table = [row(None, 1, 1, "2024-01-01", None, "current", "null-tenant"),
             row("x", 1, 1, "2024-01-01", None, "current")]  # fmt: skip
    rows, stats = run(table, [src(None, 1, 2, "2024-01-02", "next")])
    assert_rows(rows, [row(None, 1, 1, "2024-01-01", "2024-01-02", "2024-01", "null-tenant"), table[1],
                       row(None, 1, 2, "2024-01-02", None, "current", "next")])  # fmt: skip
    assert stats["versions_closed"] == 1


def test_key_columns_are_cast_to_the_table_types_before_matching():
    source = pa.schema([("tenant", pa.large_string()), ("id", pa.int16()), ("seq", pa.int32()),
                        ("vf", pa.timestamp("ms", tz="America/New_York")), ("v", pa.string())])  # fmt: skip
    table = [row("a", 7, 1, "2024-01-01", None, "current")]
    rows, stats = run(table, [src("a", 7, 2, "2024-01-02T05:00:00-05:00")], source_schema=source)
    assert stats["versions_closed"] == 1
    assert_rows(rows, [row("a", 7, 1, "2024-01-01", "2024-01-02T10:00", "2024-01"),
                       row("a", 7, 2, "2024-01-02T10:00", None, "current")])  # fmt: skip


def test_float_keys_follow_arrow_row_identity():
    schema = pa.schema([("k", pa.float64()), ("seq", pa.int64()), ("vf", TS), ("vt", TS), ("p", pa.string())])
    source = pa.schema([("k", pa.float64()), ("seq", pa.int64()), ("vf", TS)])
    open_row = {"vf": ts("2024-01-01"), "vt": None, "p": "current", "seq": 1}
    table = [{"k": 0.0, **open_row}, {"k": float("nan"), **open_row}]
    batch = [{"k": -0.0, "seq": 2, "vf": ts("2024-01-02")}, {"k": float("nan"), "seq": 2, "vf": ts("2024-01-02")}]
    rows, stats = run(table, batch, schema=schema, source_schema=source, key_columns=["k"])
    # NaN matched NaN (its open row closed); -0.0 is a new key beside 0.0, whose open row stays open.
    described = sorted((repr(r["k"]), r["seq"], r["vt"] is None) for r in rows)
    assert described == [("-0.0", 2, True), ("0.0", 1, True), ("nan", 1, False), ("nan", 2, True)]
    assert counters(stats, rows_in=2, versions_opened=2, versions_closed=1)


def test_timestamp_order_values_compare_as_instants():
    keys = [("tenant", pa.string()), ("id", pa.int64())]
    source = pa.schema([*keys, ("seq", pa.timestamp("us", tz="+02:00")), ("vf", TS)])
    schema = pa.schema([*keys, ("seq", TS), ("vf", TS), ("vt", TS), ("p", pa.string())])
    table = [{"tenant": "a", "id": 1, "seq": ts("2024-01-01T10:00"), "vf": ts("2024-01-01"), "vt": None,
              "p": "current"}]  # fmt: skip
    batch = [{"tenant": "a", "id": 1, "seq": ts("2024-01-01T12:00+02:00"), "vf": ts("2024-01-02")},  # = 10:00Z
             {"tenant": "a", "id": 1, "seq": ts("2024-01-01T12:00:00.000001+02:00"),
              "vf": ts("2024-01-03")}]  # fmt: skip
    rows, stats = run(table, batch, schema=schema, source_schema=source)
    assert counters(stats, rows_in=2, rows_reread=1, versions_opened=1, versions_closed=1)


def test_order_values_in_a_zone_with_daylight_saving_compare_as_instants():
    ny = pa.timestamp("us", tz="America/New_York")
    schema = pa.schema([("id", pa.int64()), ("seq", ny), ("vf", TS), ("vt", TS), ("p", pa.string())])
    source = pa.schema([("id", pa.int64()), ("seq", ny), ("vf", TS)])
    # The clocks fall back on 2024-11-03: 01:30 EDT (05:30Z) comes before 01:10 EST (06:10Z).
    batch = [{"id": 1, "seq": ts("2024-11-03T01:10-05:00"), "vf": ts("2024-11-03T06:10")},
             {"id": 1, "seq": ts("2024-11-03T01:30-04:00"), "vf": ts("2024-11-03T05:30")}]  # fmt: skip
    rows, _ = run([], batch, schema=schema, source_schema=source, key_columns=["id"])
    open_rows = [r for r in rows if r["vt"] is None]
    assert [r["seq"].timestamp() for r in open_rows] == [ts("2024-11-03T06:10").timestamp()]  # not == across zones


def test_zoned_valid_to_columns_take_their_month_in_utc():
    plus5 = pa.timestamp("us", tz="+05:00")
    schema = pa.schema([("id", pa.int64()), ("seq", pa.int64()), ("vf", plus5), ("vt", plus5), ("p", pa.string())])
    source = pa.schema([("id", pa.int64()), ("seq", pa.int64()), ("vf", plus5)])
    table = [{"id": 1, "seq": 1, "vf": ts("2024-01-01"), "vt": None, "p": "current"}]
    batch = [{"id": 1, "seq": 2, "vf": ts("2024-02-01T03:00+05:00")}]  # 2024-01-31T22:00Z
    rows, _ = run(table, batch, schema=schema, source_schema=source, key_columns=["id"])
    assert sorted(r["p"] for r in rows) == ["2024-01", "current"]


# ---- refusals (l.80, l.89, SPEC §7) ----------------------------------------------------------------------


def test_a_source_carrying_valid_to_or_the_partition_column_is_refused():
    for extra in [("vt", TS), ("p", pa.string())]:
        schema = pa.schema([*SOURCE, extra])
        refused("generic", [], [{**src("a", 1, 1, "2024-01-01"), extra[0]: None}], source_schema=schema)


def test_a_null_order_value_or_valid_from_is_refused_naming_the_row():
    message = refused("generic", [], [src("a", 1, 1, "2024-01-01"), {**src("a", 1, 1, "2024-01-01"), "seq": None}])
    assert "'seq'" in message and "row 1" in message
    refused("generic", [], [{**src("a", 1, 1, "2024-01-01"), "vf": None}])


@pytest.mark.parametrize(
    ("partitions", "p_type"),
    [([], pa.string()), (["p", "v"], pa.string()), (["v"], pa.string()), (["p"], pa.int32())],
)
def test_a_table_not_partitioned_by_exactly_a_string_partition_column_is_unsupported(partitions, p_type):
    schema = pa.schema([f if f.name != "p" else pa.field("p", p_type) for f in TABLE])
    refused("unsupported", [], [src("a", 1, 1, "2024-01-01")], schema=schema, table_partition_columns=partitions)


@pytest.mark.parametrize("tie_type", [pa.string(), pa.bool_(), pa.binary(), pa.list_(pa.int32())])
def test_a_tie_break_column_that_is_not_fixed_width_is_refused(tie_type):
    source = pa.schema([*SOURCE, ("tb", tie_type)])
    refused("invalid_argument", [], [src("a", 1, 1, "2024-01-01")], source_schema=source, tie_break_column="tb")


@pytest.mark.parametrize("tie_type", [pa.int8(), pa.uint64(), pa.float32(), pa.decimal128(9, 2), pa.date32(), TS])
def test_fixed_width_tie_break_types_are_accepted(tie_type):
    source = pa.schema([*SOURCE, ("tb", tie_type)])
    _, stats = run([], [src("a", 1, 1, "2024-01-01")], source_schema=source, tie_break_column="tb")
    assert stats["committed"] is True


def test_source_columns_that_do_not_fit_the_table_are_schema_mismatch():
    missing_key = pa.schema([f for f in SOURCE if f.name != "id"])
    refused("schema_mismatch", [], [{"tenant": "a", "seq": 1, "vf": ts("2024-01-01")}], source_schema=missing_key)
    extra = pa.schema([*SOURCE, ("surprise", pa.int64())])
    refused("schema_mismatch", [], [src("a", 1, 1, "2024-01-01")], source_schema=extra)
    as_text = pa.schema([("id", pa.string()) if f.name == "id" else f for f in SOURCE])
    refused("schema_mismatch", [], [{**src("a", 1, 1, "2024-01-01"), "id": "1"}], source_schema=as_text)
    fractional = pa.schema([("id", pa.float64()) if f.name == "id" else f for f in SOURCE])
    refused("schema_mismatch", [], [{**src("a", 1, 1, "2024-01-01"), "id": 1.5}], source_schema=fractional)
    naive = pa.schema([("vf", pa.timestamp("us")) if f.name == "vf" else f for f in SOURCE])
    naive_row = {**src("a", 1, 1, "2024-01-01"), "vf": dt.datetime(2024, 1, 1)}
    refused("schema_mismatch", [], [naive_row], source_schema=naive)
    narrowing = pa.schema([("id", pa.int64()) if f.name == "id" else f for f in SOURCE])
    narrow_table = pa.schema([("id", pa.int32()) if f.name == "id" else f for f in TABLE])
    refused("schema_mismatch", [], [src("a", 1, 1, "2024-01-01")], schema=narrow_table, source_schema=narrowing)


def test_integral_floats_cast_to_integer_keys():
    integral = pa.schema([("id", pa.float64()) if f.name == "id" else f for f in SOURCE])
    rows, _ = run([], [{**src("a", 1, 1, "2024-01-01"), "id": 3.0}], source_schema=integral)
    assert rows[0]["id"] == 3


def test_bad_options_are_invalid_argument():
    refused("invalid_argument", [], [src("a", 1, 1, "2024-01-01")], key_columns=["tenant", "nope"])
    refused("invalid_argument", [], [src("a", 1, 1, "2024-01-01")], key_columns=[])
    refused("invalid_argument", [], [src("a", 1, 1, "2024-01-01")], order_column="ord")
    refused("invalid_argument", [], [src("a", 1, 1, "2024-01-01")], tie_break_column="absent")
    refused("invalid_argument", [], [src("a", 1, 1, "2024-01-01")], current_partition=None)


def test_a_malformed_history_table_is_a_precondition_error_not_a_model_answer():
    two_open = [row("a", 1, 1, "2024-01-01", None, "current"), row("a", 1, 2, "2024-01-02", None, "current")]
    with pytest.raises(Scd2PreconditionError):
        run(two_open, [])
    misplaced = [row("a", 1, 1, "2024-01-01", "2024-02-01", "2024-01")]
    with pytest.raises(Scd2PreconditionError):
        run(misplaced, [])


# ---- multi-batch sequences, worked by hand ---------------------------------------------------------------


def test_sequence_with_null_key_parts_rereads_and_backwards_rows():
    # batch 1: two keys, one with a null tenant; key (None, 2) gets a two-row chain across a year boundary.
    t1, s1 = run([], [src("t", 1, 100, "2023-12-20T08:00", "t1-a"), src(None, 2, 5, "2023-12-31T23:00-02:00", "n-b"),
                       src(None, 2, 4, "2023-12-31T12:00", "n-a")])  # fmt: skip
    expected1 = [row("t", 1, 100, "2023-12-20T08:00", None, "current", "t1-a"),
                 row(None, 2, 4, "2023-12-31T12:00", "2024-01-01T01:00", "2024-01", "n-a"),
                 row(None, 2, 5, "2024-01-01T01:00", None, "current", "n-b")]  # fmt: skip
    assert_rows(t1, expected1)
    assert counters(s1, rows_in=3, versions_opened=2, chain_rows_closed=1)

    # batch 2: (t,1) re-read and a newer version; (None,2) backwards; a new key (None, None).
    t2, s2 = run(t1, [src("t", 1, 100, "2023-12-20T08:00", "t1-a"), src("t", 1, 101, "2024-02-01T00:00+00:00", "t1-b"),
                       src(None, 2, 4, "2023-12-31T12:00"), src(None, None, 1, "2024-02-02", "nn")])  # fmt: skip
    expected2 = [row("t", 1, 100, "2023-12-20T08:00", "2024-02-01T00:00", "2024-02", "t1-a"),
                 row("t", 1, 101, "2024-02-01T00:00", None, "current", "t1-b"),
                 expected1[1], expected1[2],
                 row(None, None, 1, "2024-02-02", None, "current", "nn")]  # fmt: skip
    assert_rows(t2, expected2)
    assert counters(s2, rows_in=4, rows_reread=1, rows_backwards=1, versions_opened=2, versions_closed=1)

    # batch 3: the same input again keeps nothing: no commit, same content.
    t3, s3 = run(t2, [src("t", 1, 101, "2024-02-01T00:00", "t1-b"), src(None, None, 1, "2024-02-02", "nn")])
    assert_rows(t3, expected2)
    assert counters(s3, rows_in=2, rows_reread=2, committed=False)


def test_sequence_where_earlier_closed_versions_stay_and_duplicates_collapse():
    t1, _ = run([], [src("k", 1, 1, "2024-01-10", "v1")])
    # batch 2: three rows at seq 2 (the later one wins), one at seq 3.
    t2, s2 = run(t1, [src("k", 1, 2, "2024-02-10", "v2-early"), src("k", 1, 3, "2024-03-10", "v3"),
                       src("k", 1, 2, "2024-02-11", "v2-late")])  # fmt: skip
    expected2 = [row("k", 1, 1, "2024-01-10", "2024-02-11", "2024-02", "v1"),
                 row("k", 1, 2, "2024-02-11", "2024-03-10", "2024-03", "v2-late"),
                 row("k", 1, 3, "2024-03-10", None, "current", "v3")]  # fmt: skip
    assert_rows(t2, expected2)
    assert counters(s2, rows_in=3, rows_deduped=1, versions_opened=1, versions_closed=1, chain_rows_closed=1)
    # batch 3: one newer row; every earlier closed version stays where it is.
    t3, s3 = run(t2, [src("k", 1, 9, "2024-04-01T00:00:00+02:00", "v9")])
    expected3 = [expected2[0], expected2[1],
                 row("k", 1, 3, "2024-03-10", "2024-03-31T22:00", "2024-03", "v3"),
                 row("k", 1, 9, "2024-03-31T22:00", None, "current", "v9")]  # fmt: skip
    assert_rows(t3, expected3)
    assert counters(s3, rows_in=1, versions_opened=1, versions_closed=1)


# ---- the op's JSON contract (ops_scd2.py) ----------------------------------------------------------------


def test_the_op_decodes_and_encodes_the_json_contract():
    schema = {"k": "int64", "b": "binary", "seq": "int64", "vf": "timestamp[us, tz=UTC]",
              "vt": "timestamp[us, tz=UTC]", "p": "string", "f": "double"}  # fmt: skip
    big = str(2**62)
    args = {
        "table": {"schema": schema, "partition_columns": ["p"],
                  "rows": [{"k": big, "b": "AAE=", "seq": 1, "vf": "2024-01-01T00:00:00Z", "p": "cur", "f": "NaN"}]},
        "batch": {"schema": {"k": "int64", "b": "binary", "seq": "int32", "vf": "timestamp[us, tz=+02:00]",
                             "f": "double"},
                  "rows": [{"k": big, "b": "AAE=", "seq": 2, "vf": "2024-02-01T01:00:00+02:00", "f": "-Infinity"}]},
        "options": {"keyColumns": ["k", "b"], "orderColumn": "seq", "validFromColumn": "vf", "validToColumn": "vt",
                    "partitionColumn": "p", "currentPartition": "cur"},
    }  # fmt: skip
    result = op_scd2_model_apply(args)
    assert sorted(result["rows"], key=lambda r: r["seq"]) == [
        {"k": big, "b": "AAE=", "seq": 1, "vf": "2024-01-01T00:00:00.000000Z", "vt": "2024-01-31T23:00:00.000000Z",
         "p": "2024-01", "f": "NaN"},
        {"k": big, "b": "AAE=", "seq": 2, "vf": "2024-01-31T23:00:00.000000Z", "vt": None, "p": "cur",
         "f": "-Infinity"},
    ]  # fmt: skip
    assert result["stats"] == {"rowsIn": 1, "rowsDeduped": 0, "rowsReread": 0, "rowsBackwards": 0, "versionsOpened": 1,
                               "versionsClosed": 1, "chainRowsClosed": 0, "committed": True}  # fmt: skip


def test_the_op_returns_refusals_as_a_kind():
    args = {
        "table": {"schema": {"k": "int64", "vf": "timestamp[us]", "vt": "timestamp[us]", "p": "string"},
                  "partition_columns": [], "rows": []},
        "batch": {"schema": {"k": "int64", "vf": "timestamp[us]"}, "rows": [{"k": 1, "vf": "2024-01-01T00:00:00"}]},
        "options": {"key_columns": ["k"], "order_column": "k", "valid_from_column": "vf", "valid_to_column": "vt",
                    "partition_column": "p", "current_partition": "cur"},
    }  # fmt: skip
    assert op_scd2_model_apply(args)["error"]["kind"] == "unsupported"


def test_the_op_rejects_malformed_requests():
    base = {"table": {"schema": {"k": "int64"}, "rows": []}, "batch": {"schema": {"k": "int64"}, "rows": []}}
    with pytest.raises(ValueError, match="unknown scd2 model option"):
        op_scd2_model_apply({**base, "options": {"keyColums": ["k"]}})
    zoned = {"t": "timestamp[us, tz=UTC]"}
    with pytest.raises(ValueError, match="needs an offset"):
        op_scd2_model_apply({**base, "batch": {"schema": zoned, "rows": [{"t": "2024-01-01T00:00"}]}})
    with pytest.raises(ValueError, match="microsecond"):
        op_scd2_model_apply({**base, "batch": {"schema": zoned, "rows": [{"t": "2024-01-01T00:00:00.1234567Z"}]}})
