/**
 * The log-request economy: refresh and commit probes, the commit-JSON cache, snapshot adoption, and the
 * warm-up that moves a write's first-use costs off its critical path.
 */
export { type CommitAnchor, isSameObject, type OwnLogFile } from "./anchor.js";
export { COMMIT_JSON_CACHE_LIMITS, type CommitCacheStats, CommitJsonCache } from "./commit-cache.js";
export {
  type CommitProbeOutcome,
  type LogProbeEvent,
  onLogProbe,
  type RefreshProbeOutcome,
} from "./probe-events.js";
export { type OperationOutcome, TableLog, type TableLogOptions } from "./table-log.js";
export { PROBE_TRUST_MAX_MS, probeTrustWindowMs } from "./trust.js";
export { warmUpForWrites } from "./write-warm-up.js";
