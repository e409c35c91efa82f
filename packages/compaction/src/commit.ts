/**
 * One OPTIMIZE commit of rewritten bins through delta-log's one commit path: a `dataChange: false` Remove of
 * every input file and the bins' `dataChange: false` Adds, delta-rs's operationParameters (`targetSize`,
 * `predicate`, and Z-order's `zOrderBy`) and operationMetrics, and a read set of exactly the input files — so a concurrent append
 * never conflicts, while a concurrent removal of an input is a retryable conflict the caller settles by
 * dropping that bin (see compact.ts). A protocol or metadata change by a winner is a non-retryable
 * `DeltaLiteCommitConflictError` from the commit path itself.
 */
import {
  type Action,
  type CommitResult,
  commitTransaction,
  defaultMaintenanceHooks,
  removeForFile,
  type Snapshot,
} from "@deltalite/delta-log";
import { operationMetricsOf } from "./metrics.js";
import type { BinRewrite } from "./rewrite-bin.js";
import type { CompactOptions, OptimizeMetrics } from "./types.js";

export interface OptimizeCommitInput {
  rewrites: readonly BinRewrite[];
  metrics: OptimizeMetrics;
  targetFileSize: number;
  predicate: readonly string[];
  /** Further operationParameters (Z-order's `zOrderBy`). */
  operationParameters?: Record<string, string> | undefined;
  options: CompactOptions;
  signal: AbortSignal | undefined;
}

export function optimizeActions(rewrites: readonly BinRewrite[]): Action[] {
  const deletionTimestamp = Date.now();
  const removes: Action[] = [];
  const adds: Action[] = [];
  for (const rewrite of rewrites) {
    for (const file of rewrite.bin.files) {
      removes.push({ remove: removeForFile(file, { deletionTimestamp, dataChange: false }) });
    }
    for (const add of rewrite.adds) adds.push({ add });
  }
  return [...removes, ...adds];
}

export function commitOptimize(snapshot: Snapshot, input: OptimizeCommitInput): Promise<CommitResult> {
  const { options } = input;
  return commitTransaction(snapshot, optimizeActions(input.rewrites), {
    operation: "OPTIMIZE",
    operationParameters: {
      predicate: JSON.stringify(input.predicate),
      targetSize: String(input.targetFileSize),
      ...input.operationParameters,
    },
    operationMetrics: operationMetricsOf(input.metrics),
    commitMetadata: options.commitMetadata,
    read: { kind: "files", paths: input.rewrites.flatMap((r) => r.bin.files.map((f) => f.path)) },
    maxRetries: options.commitMaxRetries,
    hooks: options.hooks ?? defaultMaintenanceHooks(),
    signal: input.signal,
  });
}
