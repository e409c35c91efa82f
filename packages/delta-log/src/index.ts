/**
 * @deltalite/delta-log: the Delta transaction log — actions, schema, snapshots, commits, checkpoints,
 * cleanup, vacuum — over an ObjectStore, with Parquet through @deltalite/parquet-stream.
 */
export * from "./actions.js";
export * from "./app-transaction.js";
export * from "./checkpoint-read.js";
export * from "./commit-info.js";
export * from "./commit-read.js";
export * from "./commit-write.js";
export * from "./conflict-checker.js";
export * from "./file-actions.js";
export * from "./log-path.js";
export * from "./log-requests/index.js";
export * from "./log-segment.js";
export * from "./maintenance/index.js";
export * from "./partition/index.js";
export * from "./protocol-gate.js";
export * from "./replay.js";
export * from "./request-switches.js";
export * from "./schema.js";
export * from "./set-properties.js";
export * from "./snapshot.js";
export * from "./stats/index.js";
export * from "./table-paths.js";
export * from "./table-properties.js";
export * from "./transaction.js";
export * from "./value-text.js";
