"""Oracle ops for maintenance (vacuum modes, history) as delta-rs performs them."""


def op_maintenance_vacuum(args):
    """delta-rs VACUUM with explicit mode: returns the paths it deletes (or would, in a dry run)."""
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=args.get("storage_options") or None)
    deleted = dt.vacuum(
        retention_hours=args.get("retention_hours"),
        enforce_retention_duration=bool(args.get("enforce", False)),
        dry_run=bool(args.get("dry_run", True)),
        full=bool(args.get("full", False)),
    )
    return {"version": dt.version(), "deleted": sorted(deleted)}


def op_maintenance_history(args):
    from deltalake import DeltaTable

    dt = DeltaTable(args["uri"], storage_options=args.get("storage_options") or None)
    return [
        {k: v for k, v in entry.items() if k in ("version", "operation", "operationParameters", "operationMetrics")}
        for entry in dt.history(args.get("limit"))
    ]
