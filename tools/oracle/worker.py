"""The oracle worker: one long-lived Python process per test run that drives delta-rs (`deltalake`) and
pyarrow on behalf of the TypeScript tests. It serves newline-delimited JSON requests over a TCP socket on
127.0.0.1 (one thread per connection), so every vitest worker shares it instead of starting Python per call.

Request:  {"id": 1, "op": "write_table", "args": {...}}
Response: {"id": 1, "ok": true, "result": ...} or {"id": 1, "ok": false, "error": {"type": ..., "message": ...}}
"""

import hashlib
import json
import os
import socketserver
import sys
import traceback

import pyarrow as pa
import pyarrow.parquet as pq


def _table_from_args(args):
    if "parquet" in args:
        return pq.read_table(args["parquet"])
    if "columns" in args:
        return pa.table(args["columns"])
    raise ValueError("data needs 'parquet' (a file path) or 'columns' (name -> list of values)")


def op_ping(_args):
    import deltalake
    import moto

    return {"deltalake": deltalake.__version__, "pyarrow": pa.__version__, "moto": moto.__version__}


def op_write_table(args):
    from deltalake import write_deltalake, DeltaTable

    data = _table_from_args(args)
    kwargs = {"mode": args.get("mode", "append")}
    if args.get("partition_by"):
        kwargs["partition_by"] = args["partition_by"]
    if args.get("configuration"):
        kwargs["configuration"] = args["configuration"]
    storage_options = args.get("storage_options") or None
    write_deltalake(args["uri"], data, storage_options=storage_options, **kwargs)
    return {"version": DeltaTable(args["uri"], storage_options=storage_options).version()}


def _s3_client(storage_options):
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=storage_options["AWS_ENDPOINT_URL"],
        region_name=storage_options.get("AWS_REGION", "us-east-1"),
        aws_access_key_id=storage_options.get("AWS_ACCESS_KEY_ID"),
        aws_secret_access_key=storage_options.get("AWS_SECRET_ACCESS_KEY"),
    )


def op_list_objects(args):
    """Every object under a table root with its size and SHA-256, read independently of deltalite."""
    uri = args["uri"]
    out = []
    if uri.startswith("s3://"):
        bucket, _, prefix = uri[len("s3://"):].partition("/")
        prefix = prefix.rstrip("/") + "/" if prefix else ""
        client = _s3_client(args["storage_options"])
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            for item in page.get("Contents", []):
                body = client.get_object(Bucket=bucket, Key=item["Key"])["Body"].read()
                out.append({"key": item["Key"][len(prefix):], "size": len(body), "sha256": hashlib.sha256(body).hexdigest()})
    else:
        root = uri[len("file://"):] if uri.startswith("file://") else uri
        for dirpath, _dirs, files in os.walk(root):
            for name in files:
                full = os.path.join(dirpath, name)
                with open(full, "rb") as f:
                    body = f.read()
                key = os.path.relpath(full, root).replace(os.sep, "/")
                out.append({"key": key, "size": len(body), "sha256": hashlib.sha256(body).hexdigest()})
    out.sort(key=lambda o: o["key"].encode("utf-8"))
    return out


def _collect_ops():
    """Ops are the `op_*` functions of this file and of every `ops_*.py` module beside it (one per area)."""
    import importlib
    import pathlib

    ops = {name[3:]: fn for name, fn in globals().items() if name.startswith("op_")}
    here = pathlib.Path(__file__).resolve().parent
    sys.path.insert(0, str(here))
    for module_path in sorted(here.glob("ops_*.py")):
        module = importlib.import_module(module_path.stem)
        for name in dir(module):
            if name.startswith("op_"):
                if name[3:] in ops:
                    raise RuntimeError(f"oracle op {name[3:]!r} defined twice ({module_path.name})")
                ops[name[3:]] = getattr(module, name)
    return ops


OPS = _collect_ops()


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        for line in self.rfile:
            if not line.strip():
                continue
            request = json.loads(line)
            try:
                op = OPS.get(request.get("op"))
                if op is None:
                    raise ValueError(f"unknown op {request.get('op')!r}; known: {sorted(OPS)}")
                response = {"id": request.get("id"), "ok": True, "result": op(request.get("args") or {})}
            except Exception as error:  # report every failure to the caller, keep serving
                response = {
                    "id": request.get("id"),
                    "ok": False,
                    "error": {"type": type(error).__name__, "message": str(error), "trace": traceback.format_exc()},
                }
            self.wfile.write((json.dumps(response) + "\n").encode("utf-8"))
            self.wfile.flush()


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    with Server(("127.0.0.1", 0), Handler) as server:
        sys.stdout.write(json.dumps({"port": server.server_address[1]}) + "\n")
        sys.stdout.flush()
        # Exit when the parent closes our stdin (the test run ended, even abnormally).
        import threading

        threading.Thread(target=server.serve_forever, daemon=True).start()
        sys.stdin.read()
        server.shutdown()


if __name__ == "__main__":
    main()
