"""Oracle ops for exactly-once batches and deletes: delta-rs 1.6.6 `DeltaTable.transaction_version(app_id)`,
writes / MERGEs / deletes that carry a `Transaction(app_id, version)` through `CommitProperties`, and
delta-rs `delete(predicate)` with its metrics and the commit it made (or that it made none). The MERGE with
a delete flag is op_merge_delta_rs (ops_merge.py, `delete_column`)."""

import pyarrow.ipc as ipc


def _read_ipc(path):
    with open(path, "rb") as source:
        return ipc.open_file(source).read_all()


def _commit_properties(args):
    from deltalake import CommitProperties, Transaction

    txn = args.get("txn")
    if not txn:
        return None
    return CommitProperties(app_transactions=[Transaction(txn["appId"], int(txn["version"]))])


def op_txn_version(args):
    """args: {uri, app_id, storage_options?}. delta-rs's `transaction_version(app_id)` (None when absent)."""
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=args.get("storage_options") or None)
    return {"version": dt.version(), "txnVersion": dt.transaction_version(args["app_id"])}


def op_txn_write(args):
    """args: {uri, data: IPC path, txn: {appId, version}, mode?, partition_by?}. write_deltalake carrying the
    txn. Returns {version}."""
    from deltalake import DeltaTable, write_deltalake

    write_deltalake(
        args["uri"],
        _read_ipc(args["data"]),
        mode=args.get("mode", "append"),
        partition_by=args.get("partition_by") or None,
        commit_properties=_commit_properties(args),
    )
    return {"version": DeltaTable(args["uri"]).version()}


def op_delete_delta_rs(args):
    """args: {uri, predicate?: SQL text, txn?}. delta-rs delete; returns {committed, version, metrics,
    commitInfo (of the new commit, or None), removed: [paths], added: [paths]} — the file actions of the
    commit, read from its JSON."""
    import json
    import os

    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"])
    before = dt.version()
    metrics = dt.delete(args.get("predicate"), commit_properties=_commit_properties(args))
    after = DeltaTable(args["uri"]).version()
    out = {"committed": after > before, "version": after, "metrics": metrics, "commitInfo": None}
    out["removed"], out["added"] = [], []
    if after > before:
        path = os.path.join(args["uri"], "_delta_log", f"{after:020d}.json")
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                action = json.loads(line)
                if "commitInfo" in action:
                    out["commitInfo"] = action["commitInfo"]
                elif "remove" in action:
                    out["removed"].append(action["remove"]["path"])
                elif "add" in action:
                    out["added"].append(action["add"]["path"])
    out["removed"].sort()
    out["added"].sort()
    return out


def op_cdf_rows(args):
    """args: {uri, starting_version?: int (default 0), ending_version?}. delta-rs `load_cdf` as sorted
    canonical rows without `_commit_timestamp` (columns by name: the table's, `_change_type`,
    `_commit_version`), and the same rows without `_commit_version` (`changes`)."""
    import json

    import pyarrow as pa
    from deltalake import DeltaTable

    from ops_parquet_write import canonical_rows

    dt = DeltaTable(args["uri"])
    kwargs = {"starting_version": int(args.get("starting_version", 0))}
    if args.get("ending_version") is not None:
        kwargs["ending_version"] = int(args["ending_version"])
    table = pa.table(dt.load_cdf(**kwargs).read_all())
    names = [f.name for f in dt.schema().fields] + ["_change_type", "_commit_version"]
    rows = canonical_rows(table.select(names))
    key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
    changes = [{k: v for k, v in r.items() if k != "_commit_version"} for r in rows]
    return {"rows": sorted(rows, key=key), "changes": sorted(changes, key=key)}
