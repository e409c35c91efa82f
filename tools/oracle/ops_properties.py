"""Oracle ops for table properties: delta-rs's `alter.set_table_properties` and how delta-rs reads a table's
configuration, protocol and newest commitInfo back."""


def _table(args):
    from deltalake import DeltaTable

    return DeltaTable(args["uri"], storage_options=args.get("storage_options") or None)


def op_props_set(args):
    """args: {uri, properties: {key: value}, raise_if_not_exists?: bool (default true)}. One delta-rs
    SET TBLPROPERTIES commit; returns the new version."""
    dt = _table(args)
    dt.alter.set_table_properties(args["properties"], raise_if_not_exists=bool(args.get("raise_if_not_exists", True)))
    return {"version": _table(args).version()}


def op_props_read(args):
    """delta-rs's view of the table: version, `metadata().configuration`, the protocol (features sorted) and
    the newest commit's operation and operationParameters."""
    dt = _table(args)
    protocol = dt.protocol()
    newest = dt.history(1)[0]
    return {
        "version": dt.version(),
        "configuration": dict(dt.metadata().configuration),
        "protocol": {
            "minReaderVersion": protocol.min_reader_version,
            "minWriterVersion": protocol.min_writer_version,
            "readerFeatures": None if protocol.reader_features is None else sorted(protocol.reader_features),
            "writerFeatures": None if protocol.writer_features is None else sorted(protocol.writer_features),
        },
        "operation": newest.get("operation"),
        "operationParameters": newest.get("operationParameters"),
    }
