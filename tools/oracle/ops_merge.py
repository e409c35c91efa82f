"""Oracle ops for the upsert (@deltalite/merge-engine upsert): create a starting table with delta-rs (copied
byte for byte to several locations, so deltalite and delta-rs start from the same files), run delta-rs MERGE
with the predicate of SPEC §7 (`t.part = s.part AND t.k = s.k ...` on a partitioned table, the keys alone
otherwise; `when_matched_update_all` + `when_not_matched_insert_all`), and read a table back as sorted
canonical rows (ops_parquet_write.canonical_rows) with its Delta schema."""

import json
import shutil

import pyarrow as pa
import pyarrow.ipc as ipc

from ops_parquet_write import canonical_rows


def _read_ipc(path):
    with open(path, "rb") as source:
        return ipc.open_file(source).read_all()


def _sorted(rows):
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))


def op_merge_create(args):
    """args: {uris: [dir, ...], data: IPC path, partition_by?: [col], appends?: int (default 1),
    configuration?: {k: v}}. Writes `data` to uris[0] with write_deltalake as `appends` appends (one
    file per append and partition, so files carry their own stats), then copies the table directory to the
    other uris. Returns {version, numFiles}."""
    from deltalake import DeltaTable, write_deltalake

    uris = args["uris"]
    table = _read_ipc(args["data"])
    appends = max(1, int(args.get("appends", 1)))
    step = max(1, -(-table.num_rows // appends))
    partition_by = args.get("partition_by") or None
    configuration = args.get("configuration") or None
    first = True
    for start in range(0, max(table.num_rows, 1), step):
        write_deltalake(
            uris[0],
            table.slice(start, step),
            mode="append",
            partition_by=partition_by,
            configuration=configuration if first else None,
        )
        first = False
    for uri in uris[1:]:
        shutil.copytree(uris[0], uri, dirs_exist_ok=True)
    dt = DeltaTable(uris[0])
    return {"version": dt.version(), "numFiles": len(dt.file_uris())}


def merge_predicate(keys, partition_key):
    columns = ([partition_key] if partition_key else []) + [k for k in keys if k != partition_key]
    return " AND ".join(f't."{c}" = s."{c}"' for c in columns)


def op_merge_delta_rs(args):
    """args: {uri, source: IPC path, keys: [col], partition_key?: col, delete_column?: col, txn?: {appId,
    version}}. delta-rs MERGE of the source into the table (see module comment). A source that lacks table
    columns is merged as delta-rs does it: the update sets only the source's columns (matched rows keep the
    rest), the insert leaves the rest NULL — the reference for the upsert's missingColumns "keep". With
    `delete_column` (a boolean source column): `when_matched_delete` where it is true, then
    `when_matched_update_all` and `when_not_matched_insert_all` (where it is not true) without it — the
    reference for the upsert's `deleteColumn`. `txn` is committed as a delta-rs Transaction. Returns
    {version, metrics}."""
    from deltalake import CommitProperties, DeltaTable, Transaction

    source = _read_ipc(args["source"])
    dt = DeltaTable(args["uri"])
    txn = args.get("txn")
    properties = (
        CommitProperties(app_transactions=[Transaction(txn["appId"], int(txn["version"]))]) if txn else None
    )
    merger = dt.merge(
        source,
        merge_predicate(args["keys"], args.get("partition_key")),
        source_alias="s",
        target_alias="t",
        commit_properties=properties,
    )
    flag = args.get("delete_column")
    if flag:
        column = f's."{flag}"'
        merger = (
            merger.when_matched_delete(predicate=f"{column} = true")
            .when_matched_update_all(except_cols=[flag])
            .when_not_matched_insert_all(predicate=f"{column} IS NOT TRUE", except_cols=[flag])
        )
    else:
        merger = merger.when_matched_update_all().when_not_matched_insert_all()
    metrics = merger.execute()
    return {"version": DeltaTable(args["uri"]).version(), "metrics": metrics}


def op_merge_read(args):
    """args: {uri, storage_options?}. delta-rs reads the whole table: sorted canonical rows (columns in schema order), the
    Delta schema JSON, version, the live files' paths and partition values, and the last commitInfo."""
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=args.get("storage_options") or None)
    names = [f.name for f in dt.schema().fields]
    table = dt.to_pyarrow_table()
    adds = pa.table(dt.get_add_actions(flatten=False)).to_pylist()
    return {
        "rows": _sorted(canonical_rows(table.select(names))),
        "schema": json.loads(dt.schema().to_json()),
        "version": dt.version(),
        "files": sorted(a["path"] for a in adds),
        "commitInfo": dt.history(1)[0],
    }


def op_merge_files_holding(args):
    """args: {uri, column, values: [...]}. The add paths (as the log holds them) of the live files whose
    `column` contains any of `values`, each file read with pyarrow."""
    import os
    import urllib.parse

    import pyarrow.parquet as pq
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"])
    wanted = set(args["values"])
    out = []
    for add in pa.table(dt.get_add_actions(flatten=False)).to_pylist():
        path = add["path"]
        local = os.path.join(args["uri"], urllib.parse.unquote(path))
        values = pq.read_table(local, columns=[args["column"]]).column(0).to_pylist()
        if wanted.intersection(values):
            out.append(path)
    return sorted(out)
