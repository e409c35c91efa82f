/** Checkpoint writing, expired-log cleanup and vacuum: the maintenance that follows commits. */
export {
  type CheckpointResult,
  type CheckpointSource,
  checkpointRows,
  checkpointSchema,
  type WriteCheckpointOptions,
  writeCheckpoint,
} from "./checkpoint-write.js";
export { cleanupExpiredLogs, defaultMaintenanceHooks } from "./hooks.js";
export {
  DEFAULT_DELETED_FILE_RETENTION_MS,
  DEFAULT_LOG_RETENTION_MS,
  intervalProperty,
  parseIntervalMs,
} from "./interval.js";
export { type LogCleanupPlan, planLogCleanup } from "./log-cleanup.js";
export { type VacuumOptions, type VacuumResult, vacuum } from "./vacuum.js";
export {
  isHiddenPath,
  planVacuum,
  type VacuumInput,
  type VacuumPlan,
  vacuumRetentionMs,
} from "./vacuum-plan.js";
