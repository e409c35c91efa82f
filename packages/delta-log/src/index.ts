/**
 * @deltalite/delta-log: the Delta transaction log — actions, schema, snapshots, commits, checkpoints,
 * cleanup, vacuum — over an ObjectStore, with Parquet through @deltalite/parquet-stream.
 */
export * from "./stats/index.js";
