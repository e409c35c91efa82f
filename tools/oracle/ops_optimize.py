"""Oracle ops for @deltalite/compaction: build a table history with delta-rs (appends of mixed sizes, deletes
that rewrite files, overwrites) and copy it byte for byte to several locations, so deltalite and delta-rs
compact the same files; run delta-rs `optimize.compact` / `optimize.z_order` / `restore` on one copy; and read
what a commit did (its commitInfo, removed and added files, straight from the commit JSON)."""

import json
import os
import shutil

import pyarrow as pa


def _storage(args):
    return args.get("storage_options") or None


def _append(uri, step, partition_by, configuration):
    from deltalake import write_deltalake

    rows = int(step["rows"])
    start = int(step.get("start", 0))
    parts = step.get("parts") or ["a"]
    columns = {
        "id": pa.array(range(start, start + rows), type=pa.int64()),
        "payload": pa.array([f"v{start + i}-" + "x" * int(step.get("pad", 0)) for i in range(rows)]),
    }
    if partition_by:
        columns["part"] = pa.array([parts[i % len(parts)] for i in range(rows)])
    for c in range(1, int(step.get("extra", 0)) + 1):
        columns[f"c{c}"] = pa.array([start + i * c for i in range(rows)], type=pa.int64())
    write_deltalake(
        uri,
        pa.table(columns),
        mode=step.get("mode", "append"),
        partition_by=["part"] if partition_by else None,
        configuration=configuration,
        schema_mode="merge" if step.get("merge") else None,
    )


def op_optimize_build(args):
    """args: {uris: [dir, ...], partitioned: bool, steps: [{op: "append", rows, start, parts?, pad?,
    mode?, extra? (int64 columns c1..c<extra>), merge? (schema_mode="merge")} | {op: "delete", predicate}
    | {op: "optimize", target_size?}], configuration?: {k: v}}. Replays the steps on uris[0] with delta-rs
    (ids are int64 `id`, text `payload`, string partition `part`), then copies the directory to the other
    uris. Returns {version, numFiles}."""
    from deltalake import DeltaTable

    uris = args["uris"]
    first = True
    for step in args["steps"]:
        if step["op"] == "append":
            _append(uris[0], step, args.get("partitioned"), (args.get("configuration") or None) if first else None)
            first = False
        elif step["op"] == "delete":
            DeltaTable(uris[0]).delete(step["predicate"])
        elif step["op"] == "optimize":
            DeltaTable(uris[0]).optimize.compact(target_size=step.get("target_size"))
        else:
            raise ValueError(f"unknown step {step['op']!r}")
    for uri in uris[1:]:
        shutil.copytree(uris[0], uri, dirs_exist_ok=True)
    dt = DeltaTable(uris[0])
    return {"version": dt.version(), "numFiles": len(dt.file_uris())}


def _commit(uri, version):
    """The commit JSON of `version` of a local table: commitInfo and the removed / added paths."""
    path = os.path.join(uri, "_delta_log", f"{version:020}.json")
    with open(path, encoding="utf-8") as f:
        actions = [json.loads(line) for line in f.read().split("\n") if line.strip()]
    info = next((a["commitInfo"] for a in actions if "commitInfo" in a), {})
    return {
        "commitInfo": info,
        "protocol": next((a["protocol"] for a in actions if "protocol" in a), None),
        "metaData": next((a["metaData"] for a in actions if "metaData" in a), None),
        "removed": [a["remove"] for a in actions if "remove" in a],
        "added": [a["add"] for a in actions if "add" in a],
    }


def _filters(args):
    return [tuple(f) for f in args.get("filters") or []] or None


def op_optimize_compact(args):
    """args: {uri, target_size?, filters?: [[col, op, value], ...]}. delta-rs optimize.compact; returns its
    metrics, the new version and that commit (commitInfo, removed, added) — or the version unchanged and no
    commit when nothing was compacted."""
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=_storage(args))
    before = dt.version()
    metrics = dt.optimize.compact(partition_filters=_filters(args), target_size=args.get("target_size"))
    after = DeltaTable(args["uri"], storage_options=_storage(args)).version()
    commit = _commit(args["uri"], after) if after != before else None
    return {"version": after, "metrics": metrics, "commit": commit}


def op_optimize_z_order(args):
    """args: {uri, columns: [col], filters?, target_size?}. delta-rs optimize.z_order; like optimize_compact."""
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=_storage(args))
    before = dt.version()
    metrics = dt.optimize.z_order(
        args["columns"], partition_filters=_filters(args), target_size=args.get("target_size")
    )
    after = DeltaTable(args["uri"], storage_options=_storage(args)).version()
    commit = _commit(args["uri"], after) if after != before else None
    return {"version": after, "metrics": metrics, "commit": commit}


def op_optimize_restore(args):
    """args: {uri, version} or {uri, datetime_ms}. delta-rs restore to that version or instant; returns its
    metrics, the new version and that commit (commitInfo, removed, added, protocol, metaData)."""
    from datetime import datetime, timezone

    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=_storage(args))
    if args.get("datetime_ms") is not None:
        target = datetime.fromtimestamp(int(args["datetime_ms"]) / 1000, tz=timezone.utc)
    else:
        target = int(args["version"])
    metrics = dt.restore(target)
    after = DeltaTable(args["uri"], storage_options=_storage(args)).version()
    return {"version": after, "metrics": metrics, "commit": _commit(args["uri"], after)}


def op_optimize_commit(args):
    """args: {uri, version}. The commit JSON of a local table's version (commitInfo, removed, added)."""
    return _commit(args["uri"], int(args["version"]))


def op_optimize_file_order(args):
    """args: {uri}. The live files' paths in the order delta-rs's snapshot yields them (newest commit first)."""
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=_storage(args))
    return [a["path"] for a in pa.table(dt.get_add_actions(flatten=False)).to_pylist()]


def op_optimize_bins(args):
    """args: {uri, version}. The bins of an OPTIMIZE commit of a local table, recovered from content: for each
    added file, the sorted paths of the removed files whose `id` values it holds (ids are unique per table)."""
    import pyarrow.parquet as pq
    from urllib.parse import unquote

    commit = _commit(args["uri"], int(args["version"]))

    def ids(path):
        return pq.read_table(os.path.join(args["uri"], unquote(path)), columns=["id"]).column("id").to_pylist()

    owner = {}
    for removed in commit["removed"]:
        for value in ids(removed["path"]):
            owner[value] = removed["path"]
    bins = []
    for added in commit["added"]:
        bins.append(sorted({owner[value] for value in ids(added["path"]) if value in owner}))
    return sorted(bins)


def op_optimize_read(args):
    """args: {uri, version?}. delta-rs reads the table (at `version` when given): sorted canonical rows, the
    live files' add paths (sorted), the version, protocol and metadata."""
    from deltalake import DeltaTable

    from ops_merge import _sorted
    from ops_parquet_write import canonical_rows

    dt = DeltaTable(args["uri"], version=args.get("version"), storage_options=_storage(args))
    adds = pa.table(dt.get_add_actions(flatten=False)).to_pylist()
    protocol = dt.protocol()
    metadata = dt.metadata()
    return {
        "rows": _sorted(canonical_rows(dt.to_pyarrow_table())),
        "files": sorted(a["path"] for a in adds),
        "version": dt.version(),
        "protocol": [protocol.min_reader_version, protocol.min_writer_version],
        "metadata": {
            "id": metadata.id,
            "partitionColumns": list(metadata.partition_columns),
            "configuration": dict(metadata.configuration),
            "schema": json.loads(dt.schema().to_json()),
        },
    }


def op_optimize_set_property(args):
    """args: {uri, key, value}. delta-rs alter.set_table_properties (a metaData-only commit)."""
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=_storage(args))
    dt.alter.set_table_properties({args["key"]: args["value"]})
    return {"version": DeltaTable(args["uri"], storage_options=_storage(args)).version()}


def _zorder_columns(rng, rows, start, domain):
    """Random columns of every kind the Z-order key normalises (nulls and negatives included)."""
    import datetime
    import decimal

    def maybe_null(values, share=0.05):
        return [None if rng.random() < share else v for v in values]

    letters = "abcdefghijklmnopqrstuvwxyz"
    return {
        "id": pa.array(range(start, start + rows), type=pa.int64()),
        "x": pa.array([rng.randrange(domain) for _ in range(rows)], type=pa.int64()),
        "y": pa.array([rng.randrange(domain) for _ in range(rows)], type=pa.int64()),
        "i32": pa.array(maybe_null([rng.randrange(-1000, 1000) for _ in range(rows)]), type=pa.int32()),
        "f64": pa.array(maybe_null([rng.uniform(-1e6, 1e6) for _ in range(rows)]), type=pa.float64()),
        "s": pa.array(
            maybe_null(["".join(rng.choice(letters) for _ in range(rng.randrange(0, 20))) for _ in range(rows)])
        ),
        "d": pa.array(
            maybe_null([datetime.date(2000, 1, 1) + datetime.timedelta(days=rng.randrange(-5000, 5000)) for _ in range(rows)]),
            type=pa.date32(),
        ),
        "ts": pa.array(
            maybe_null([rng.randrange(-10**15, 10**15) for _ in range(rows)]), type=pa.timestamp("us", tz="UTC")
        ),
        "dec": pa.array(
            maybe_null([decimal.Decimal(rng.randrange(-10**9, 10**9)) / 100 for _ in range(rows)]),
            type=pa.decimal128(12, 2),
        ),
        "flag": pa.array(maybe_null([rng.random() < 0.5 for _ in range(rows)]), type=pa.bool_()),
    }


def op_optimize_build_nested(args):
    """args: {uri, appends, rows, withMap}. Writes `appends` appends of `rows` rows with delta-rs: an int64 `id`,
    a list<string>, a struct<x: float64, y: string> and, with `withMap`, a map<string, int64> column."""
    from deltalake import write_deltalake

    rows = int(args["rows"])
    for i in range(int(args["appends"])):
        ids = range(i * rows, (i + 1) * rows)
        columns = {
            "id": pa.array(ids, pa.int64()),
            "tags": pa.array([[f"a{j}", f"b{j % 7}"] if j % 3 else None for j in ids], pa.list_(pa.string())),
            "pt": pa.array(
                [{"x": j * 1.5, "y": f"s{j % 11}"} for j in ids],
                pa.struct([("x", pa.float64()), ("y", pa.string())]),
            ),
        }
        if args.get("withMap"):
            columns["m"] = pa.array([[("k", j), ("l", j % 5)] for j in ids], pa.map_(pa.string(), pa.int64()))
        write_deltalake(args["uri"], pa.table(columns), mode="append")
    return {"rows": rows * int(args["appends"])}


def op_optimize_build_zorder(args):
    """args: {uris: [dir, ...], appends, rows, seed, partitions?: int, domain?: int}. Writes `appends` appends of
    `rows` random rows each with delta-rs (columns of _zorder_columns; with `partitions` > 0 a string partition
    `part` of that many values), then copies the table to the other uris. Returns {version, numFiles, rows}."""
    import random

    from deltalake import DeltaTable, write_deltalake

    rng = random.Random(int(args["seed"]))
    uris = args["uris"]
    parts = int(args.get("partitions") or 0)
    rows = int(args["rows"])
    for i in range(int(args["appends"])):
        columns = _zorder_columns(rng, rows, i * rows, int(args.get("domain") or 1_000_000))
        if parts:
            columns["part"] = pa.array([f"p{rng.randrange(parts)}" for _ in range(rows)])
        write_deltalake(uris[0], pa.table(columns), mode="append", partition_by=["part"] if parts else None)
    for uri in uris[1:]:
        shutil.copytree(uris[0], uri, dirs_exist_ok=True)
    dt = DeltaTable(uris[0])
    return {"version": dt.version(), "numFiles": len(dt.file_uris()), "rows": rows * int(args["appends"])}
