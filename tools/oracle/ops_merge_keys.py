"""Oracle ops for @deltalite/merge-engine's key equality: which source rows delta-rs MERGE matches to which
target rows, for any key types (floats with -0.0 / NaN / infinities, decimals, binary, timestamps, composite
keys with NULLs). The TypeScript tests compute the same relation from the canonical key encoding.
"""

import os
import shutil
import tempfile

import pyarrow as pa
import pyarrow.ipc as ipc


def _read_ipc(path):
    with open(path, "rb") as source:
        return ipc.open_file(source).read_all()


def _merge_once(target, source, keys, target_files=1):
    """MERGE `source` into a fresh table holding `target` (written as `target_files` appends, so files
    carry their own min/max stats); returns the result's (__tid, __sid) rows."""
    from deltalake import DeltaTable, write_deltalake

    root = tempfile.mkdtemp(prefix="deltalite-merge-keys-")
    try:
        step = max(1, -(-target.num_rows // max(1, target_files)))
        for start in range(0, max(target.num_rows, 1), step):
            write_deltalake(root, target.slice(start, step), mode="append")
        predicate = " AND ".join(f't."{k}" = s."{k}"' for k in keys)
        files = len(DeltaTable(root).file_uris())
        (
            DeltaTable(root)
            .merge(source, predicate, source_alias="s", target_alias="t")
            .when_matched_update(updates={"__sid": "s.__sid"})
            .when_not_matched_insert_all()
            .execute()
        )
        return files, DeltaTable(root).to_pyarrow_table(columns=["__tid", "__sid"]).to_pylist()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def op_merge_key_matches(args):
    """args: {target: IPC path, source: IPC path, keys: [column names], target_files?: int (default 1)}. Both tables hold the key columns
    (same names and types). The target gets a row id `__tid`, the source a row id `__sid`; the target is
    written with write_deltalake and the source merged into it with predicate `t.k = s.k AND ...`,
    `when_matched_update(__sid = s.__sid)` and `when_not_matched_insert_all`.

    delta-rs 1.6.6 refuses a MERGE in which one target row matches several source rows; then each source
    row is merged on its own into a fresh copy of the target (mode "per_row"), so the result is still the
    whole join relation.

    Returns {"matches": [[tid, sid], ...] sorted, "inserted": [sid, ...] sorted, "mode": "batch"|"per_row",
    "target_files": number of data files the target table had}."""
    keys = args["keys"]
    target = _read_ipc(args["target"]).select(keys)
    source = _read_ipc(args["source"]).select(keys)
    target = target.append_column("__tid", pa.array(range(target.num_rows), pa.int64()))
    target = target.append_column("__sid", pa.nulls(target.num_rows, pa.int64()))
    source = source.append_column("__tid", pa.nulls(source.num_rows, pa.int64()))
    source = source.append_column("__sid", pa.array(range(source.num_rows), pa.int64()))
    files = int(args.get("target_files", 1))
    written = 0
    mode = "batch"
    try:
        written, rows = _merge_once(target, source, keys, files)
    except Exception as error:  # deltalake raises a generic DeltaError; branch on its documented message
        if "multiple source rows" not in str(error):
            raise
        mode = "per_row"
        rows = []
        for sid in range(source.num_rows):
            written, merged = _merge_once(target, source.slice(sid, 1), keys, files)
            rows.extend(r for r in merged if r["__sid"] is not None)
    matches, inserted = set(), set()
    for row in rows:
        tid, sid = row["__tid"], row["__sid"]
        if tid is not None and sid is not None:
            matches.add((tid, sid))
        elif sid is not None:
            inserted.add(sid)
    return {
        "matches": sorted(list(m) for m in matches),
        "inserted": sorted(inserted),
        "mode": mode,
        "target_files": written,
    }


def op_xxh64_reference(args):
    """args: {hex: [hex strings of byte inputs], seed: decimal string}. XXH64 of each input from a Python
    implementation written from the xxHash specification, independent of both the TypeScript code and the
    @node-rs/xxhash native library. Returns decimal strings."""
    seed = int(args["seed"]) & _M64
    return [str(_xxh64(bytes.fromhex(h), seed)) for h in args["hex"]]


_M64 = (1 << 64) - 1
_P1, _P2, _P3, _P4, _P5 = (
    0x9E3779B185EBCA87,
    0xC2B2AE3D27D4EB4F,
    0x165667B19E3779F9,
    0x85EBCA77C2B2AE63,
    0x27D4EB2F165667C5,
)


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & _M64


def _round(acc, lane):
    acc = (acc + lane * _P2) & _M64
    return (_rotl(acc, 31) * _P1) & _M64


def _merge(acc, val):
    acc ^= _round(0, val)
    return (acc * _P1 + _P4) & _M64


def _xxh64(data, seed):
    n = len(data)
    i = 0
    if n >= 32:
        v1 = (seed + _P1 + _P2) & _M64
        v2 = (seed + _P2) & _M64
        v3 = seed
        v4 = (seed - _P1) & _M64
        while i + 32 <= n:
            v1 = _round(v1, int.from_bytes(data[i : i + 8], "little"))
            v2 = _round(v2, int.from_bytes(data[i + 8 : i + 16], "little"))
            v3 = _round(v3, int.from_bytes(data[i + 16 : i + 24], "little"))
            v4 = _round(v4, int.from_bytes(data[i + 24 : i + 32], "little"))
            i += 32
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _M64
        for v in (v1, v2, v3, v4):
            h = _merge(h, v)
    else:
        h = (seed + _P5) & _M64
    h = (h + n) & _M64
    while i + 8 <= n:
        h ^= _round(0, int.from_bytes(data[i : i + 8], "little"))
        h = (_rotl(h, 27) * _P1 + _P4) & _M64
        i += 8
    if i + 4 <= n:
        h ^= (int.from_bytes(data[i : i + 4], "little") * _P1) & _M64
        h = (_rotl(h, 23) * _P2 + _P3) & _M64
        i += 4
    while i < n:
        h ^= (data[i] * _P5) & _M64
        h = (_rotl(h, 11) * _P1) & _M64
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _M64
    h ^= h >> 29
    h = (h * _P3) & _M64
    h ^= h >> 32
    return h


def op_merge_keys_write_target(args):
    """args: {ipc: Arrow IPC file path, uri: local table path}. write_deltalake of the table (one data file),
    so the TypeScript side can read the key columns back through its own Parquet reader. Returns the data
    files as [{path (relative to the table root), size}]."""
    from deltalake import DeltaTable, write_deltalake

    table = _read_ipc(args["ipc"])
    write_deltalake(args["uri"], table, mode="overwrite")
    out = []
    for uri in DeltaTable(args["uri"]).file_uris():
        local = uri[len("file://"):] if uri.startswith("file://") else uri
        out.append({"path": os.path.relpath(local, args["uri"]), "size": os.path.getsize(local)})
    return sorted(out, key=lambda f: f["path"])
