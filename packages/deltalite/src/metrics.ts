/**
 * deltalite's metrics through the OpenTelemetry API: the original deltalite's instrument names and static labels, and the
 * recorders `DeltaLiteTable.upsert` and `DeltaLiteTable.historyUpsert` call (the history upsert's own
 * `deltalite_history_*` instruments). The API is a no-op until the application registers a MeterProvider, so an application without one pays for nothing but the no-op calls. Labels are bounded:
 * no table URL, path or message ever becomes an attribute. Recording never throws into the caller.
 */

import { createRequire } from "node:module";
import { onCheckpointPrefetch, onLogProbe } from "@deltalite/delta-log";
import { ERROR_KINDS, type ErrorKind, isDeltaLiteError } from "@deltalite/errors";
import type { PruneStrategy, UpsertOptions, UpsertStats } from "@deltalite/merge-engine";
import type { HistoryUpsertStats } from "@deltalite/scd2-history";
import { type Counter, type Histogram, type Meter, metrics, ValueType } from "@opentelemetry/api";

/** The instrumentation scope (meter name) of every deltalite instrument. */
export const DELTALITE_METER_NAME = "deltalite";

/** The instrument names (the original deltalite's, Prometheus-style). */
export const DELTALITE_METRIC_NAMES = {
  upserts: "deltalite_upserts_total",
  upsertDuration: "deltalite_upsert_duration_seconds",
  filesAdded: "deltalite_files_added_total",
  filesRemoved: "deltalite_files_removed_total",
  filesCarriedOver: "deltalite_files_carried_over_total",
  filesProbed: "deltalite_files_probed_total",
  probeCacheHits: "deltalite_files_probe_cached_total",
  rowsUpdated: "deltalite_rows_updated_total",
  rowsInserted: "deltalite_rows_inserted_total",
  rowsCopied: "deltalite_rows_copied_total",
  columnsRelaxed: "deltalite_columns_relaxed_total",
  logMaintenanceFailures: "deltalite_log_maintenance_failures_total",
  checkpointPrefetch: "deltalite_checkpoint_prefetch_total",
  refreshProbe: "deltalite_refresh_probe_total",
  commitProbe: "deltalite_commit_probe_total",
} as const;

/** The history upsert's instruments (its calls only; failures of its post-commit maintenance count above). */
export const DELTALITE_HISTORY_METRIC_NAMES = {
  historyUpserts: "deltalite_history_upserts_total",
  historyUpsertDuration: "deltalite_history_upsert_duration_seconds",
  historyVersionsOpened: "deltalite_history_versions_opened_total",
  historyVersionsClosed: "deltalite_history_versions_closed_total",
} as const;

export type DeltaLiteMetricName = (typeof DELTALITE_METRIC_NAMES)[keyof typeof DELTALITE_METRIC_NAMES];

/** Bucket boundaries (seconds) advised for the upsert duration histogram: 5 ms to 10 min. */
export const UPSERT_DURATION_BUCKETS_SECONDS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
];

/** The `prune_strategy` label: the strategy the call asked for (default probe), "invalid" for anything else. */
export type PruneStrategyLabel = PruneStrategy | "invalid";

/** The `error_kind` label: a DeltaLiteError kind, "none" on success, "unknown" for any other throwable. */
export type ErrorKindLabel = ErrorKind | "none" | "unknown";

interface UpsertInstruments {
  upserts: Counter;
  upsertDuration: Histogram;
  filesAdded: Counter;
  filesRemoved: Counter;
  filesCarriedOver: Counter;
  filesProbed: Counter;
  probeCacheHits: Counter;
  rowsUpdated: Counter;
  rowsInserted: Counter;
  rowsCopied: Counter;
  columnsRelaxed: Counter;
  logMaintenanceFailures: Counter;
  historyUpserts: Counter;
  historyUpsertDuration: Histogram;
  historyVersionsOpened: Counter;
  historyVersionsClosed: Counter;
  checkpointPrefetch: Counter;
  refreshProbe: Counter;
  commitProbe: Counter;
}

/**
 * Instruments per Meter, created once on first use. The meter is looked up on every record: the API has
 * no proxy for metrics, so instruments made before the application registers its provider would stay
 * no-ops forever. A provider's `getMeter` returns the same Meter for the same scope, so this is a lookup.
 */
const instrumentsByMeter = new WeakMap<Meter, UpsertInstruments>();
let meterVersion: string | undefined;

function packageVersion(): string {
  if (meterVersion === undefined) {
    try {
      const manifest = createRequire(import.meta.url)("../package.json") as { version?: unknown };
      meterVersion = typeof manifest.version === "string" ? manifest.version : "";
    } catch {
      meterVersion = "";
    }
  }
  return meterVersion;
}

function createInstruments(meter: Meter): UpsertInstruments {
  const counter = (name: string, description: string, unit: string): Counter =>
    meter.createCounter(name, { description, unit, valueType: ValueType.INT });
  const n = { ...DELTALITE_METRIC_NAMES, ...DELTALITE_HISTORY_METRIC_NAMES };
  return {
    upserts: counter(n.upserts, "Upsert calls, by outcome, prune strategy and error kind.", "{upsert}"),
    upsertDuration: meter.createHistogram(n.upsertDuration, {
      description: "Wall-clock duration of upsert calls (snapshot refreshes included).",
      unit: "s",
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: [...UPSERT_DURATION_BUCKETS_SECONDS] },
    }),
    filesAdded: counter(n.filesAdded, "Data files added by upserts.", "{file}"),
    filesRemoved: counter(n.filesRemoved, "Data files removed (rewritten) by upserts.", "{file}"),
    filesCarriedOver: counter(
      n.filesCarriedOver,
      "Candidate files upserts left untouched (pruned by stats or without a key hit).",
      "{file}",
    ),
    filesProbed: counter(n.filesProbed, "Candidate files whose key columns the probe read.", "{file}"),
    probeCacheHits: counter(
      n.probeCacheHits,
      "Candidate files the probe decided from the probe cache without a read.",
      "{file}",
    ),
    rowsUpdated: counter(n.rowsUpdated, "Target rows replaced by upserts.", "{row}"),
    rowsInserted: counter(n.rowsInserted, "Source rows inserted by upserts.", "{row}"),
    rowsCopied: counter(n.rowsCopied, "Unchanged rows copied while rewriting files.", "{row}"),
    columnsRelaxed: counter(
      n.columnsRelaxed,
      "Non-nullable columns relaxed to nullable before an upsert.",
      "{column}",
    ),
    logMaintenanceFailures: counter(
      n.logMaintenanceFailures,
      "Post-commit log maintenance failures (the commit itself is durable).",
      "{failure}",
    ),
    historyUpserts: counter(n.historyUpserts, "History upsert calls, by outcome and error kind.", "{call}"),
    historyUpsertDuration: meter.createHistogram(n.historyUpsertDuration, {
      description: "Wall-clock duration of history upsert calls (snapshot refreshes included).",
      unit: "s",
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: [...UPSERT_DURATION_BUCKETS_SECONDS] },
    }),
    historyVersionsOpened: counter(
      n.historyVersionsOpened,
      "Open versions written by history upserts.",
      "{row}",
    ),
    historyVersionsClosed: counter(
      n.historyVersionsClosed,
      "Open versions history upserts closed (moved to their month partition).",
      "{row}",
    ),
    checkpointPrefetch: counter(
      n.checkpointPrefetch,
      "Checkpoint files a table load read whole (fetched) or by range reads (too_large, budget_exhausted).",
      "{file}",
    ),
    refreshProbe: counter(
      n.refreshProbe,
      "Handle refreshes, by how they learned the latest version (current, new_commits, replaced, unknown, listed, no_anchor).",
      "{refresh}",
    ),
    commitProbe: counter(
      n.commitProbe,
      "Anchor checks before a handle's commit put (current, replaced, unknown, no_anchor).",
      "{commit}",
    ),
  };
}

function instruments(): UpsertInstruments {
  const meter = metrics.getMeter(DELTALITE_METER_NAME, packageVersion());
  let found = instrumentsByMeter.get(meter);
  if (!found) {
    found = createInstruments(meter);
    instrumentsByMeter.set(meter, found);
  }
  return found;
}

export function pruneStrategyLabel(
  options: Pick<UpsertOptions, "pruneStrategy"> | undefined,
): PruneStrategyLabel {
  const strategy: unknown = options?.pruneStrategy ?? "probe";
  return strategy === "probe" || strategy === "stats" || strategy === "none" ? strategy : "invalid";
}

export function errorKindLabel(error: unknown): ErrorKindLabel {
  if (!isDeltaLiteError(error)) return "unknown";
  const kind: unknown = error.kind;
  return (ERROR_KINDS as readonly unknown[]).includes(kind) ? (kind as ErrorKind) : "unknown";
}

function recordSuccess(options: UpsertOptions | undefined, stats: UpsertStats, seconds: number): void {
  const i = instruments();
  const prune_strategy = pruneStrategyLabel(options);
  i.upserts.add(1, { outcome: "ok", prune_strategy, error_kind: "none" });
  i.upsertDuration.record(seconds, { outcome: "ok", prune_strategy });
  i.filesAdded.add(stats.filesAdded);
  i.filesRemoved.add(stats.filesRemoved);
  i.filesCarriedOver.add(stats.filesCarriedOver);
  i.filesProbed.add(stats.filesProbed);
  i.probeCacheHits.add(stats.filesProbeCached);
  i.rowsUpdated.add(stats.rowsUpdated);
  i.rowsInserted.add(stats.rowsInserted);
  i.rowsCopied.add(stats.rowsCopied);
  i.columnsRelaxed.add(stats.columnsRelaxed);
  // The merge engine reports one maintenanceError for the checkpoint and the log cleanup that follows it.
  if (stats.maintenanceError !== undefined) i.logMaintenanceFailures.add(1, { op: "checkpoint" });
}

function recordFailure(options: UpsertOptions | undefined, error: unknown, seconds: number): void {
  const i = instruments();
  const prune_strategy = pruneStrategyLabel(options);
  i.upserts.add(1, { outcome: "error", prune_strategy, error_kind: errorKindLabel(error) });
  i.upsertDuration.record(seconds, { outcome: "error", prune_strategy });
}

let checkpointPrefetchObserved = false;

/**
 * Counts every checkpoint prefetch decision of a table load in `deltalite_checkpoint_prefetch_total{outcome}`
 * (fetched, too_large, budget_exhausted). Idempotent: the listener is registered once per process.
 */
export function observeCheckpointPrefetches(): void {
  if (checkpointPrefetchObserved) return;
  checkpointPrefetchObserved = true;
  onCheckpointPrefetch((outcome) => instruments().checkpointPrefetch.add(1, { outcome }));
}

let logProbesObserved = false;

/**
 * Counts the log-request probes of table handles: `deltalite_refresh_probe_total{outcome}` per refresh and
 * `deltalite_commit_probe_total{outcome}` per guarded commit. Idempotent: registered once per process.
 */
export function observeLogProbes(): void {
  if (logProbesObserved) return;
  logProbesObserved = true;
  onLogProbe((event) => {
    const i = instruments();
    (event.probe === "refresh" ? i.refreshProbe : i.commitProbe).add(1, { outcome: event.outcome });
  });
}

/**
 * Runs one upsert and records its metrics: on success from the returned stats, on failure the outcome,
 * error kind and duration. The upsert's result or error passes through unchanged; a failure inside
 * recording (a misbehaving provider, say) is swallowed.
 */
export function observeUpsert<S extends UpsertStats>(
  options: UpsertOptions | undefined,
  run: () => Promise<S>,
): Promise<S> {
  return observeCall(
    run,
    (stats, seconds) => recordSuccess(options, stats, seconds),
    (error, seconds) => recordFailure(options, error, seconds),
  );
}

/** The history upsert's metrics: calls and duration by outcome, versions opened and closed, maintenance failures. */
export function observeHistoryUpsert<S extends HistoryUpsertStats>(run: () => Promise<S>): Promise<S> {
  return observeCall(
    run,
    (stats, seconds) => {
      const i = instruments();
      i.historyUpserts.add(1, { outcome: "ok", error_kind: "none" });
      i.historyUpsertDuration.record(seconds, { outcome: "ok" });
      i.historyVersionsOpened.add(stats.versionsOpened);
      i.historyVersionsClosed.add(stats.versionsClosed);
      if (stats.maintenanceError !== undefined) i.logMaintenanceFailures.add(1, { op: "checkpoint" });
    },
    (error, seconds) => {
      const i = instruments();
      i.historyUpserts.add(1, { outcome: "error", error_kind: errorKindLabel(error) });
      i.historyUpsertDuration.record(seconds, { outcome: "error" });
    },
  );
}

/** Runs `run` and records through the callbacks; the result or error passes through, recording never throws. */
async function observeCall<S>(
  run: () => Promise<S>,
  onSuccess: (stats: S, seconds: number) => void,
  onFailure: (error: unknown, seconds: number) => void,
): Promise<S> {
  const started = performance.now();
  let stats: S;
  try {
    stats = await run();
  } catch (error) {
    try {
      onFailure(error, (performance.now() - started) / 1000);
    } catch {
      // Metrics never fail a call.
    }
    throw error;
  }
  try {
    onSuccess(stats, (performance.now() - started) / 1000);
  } catch {
    // Metrics never fail a call.
  }
  return stats;
}
