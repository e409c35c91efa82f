/**
 * `TableLog`: the log side of a long-lived table handle — how it refreshes its snapshot before an operation
 * (the refresh probe, or a LIST), the scope an operation runs in (its commit-JSON cache; the commits it lands)
 * and the snapshot it keeps afterwards: with `DELTALITE_ADOPT_COMMIT_SNAPSHOT` on, the one derived from its
 * own newest commit (no LIST, no read-back); otherwise whatever the caller's `settle` gives (today's
 * post-commit refresh). The next operation still refreshes before it plans. Each switch read per operation.
 */
import type { CheckpointPrefetchBudget } from "../checkpoint-prefetch.js";
import { requestSwitchOn } from "../request-switches.js";
import type { Snapshot } from "../snapshot.js";
import { CommitJsonCache } from "./commit-cache.js";
import { LogOperation, runLogOperation } from "./operation.js";
import { reportLogProbe } from "./probe-events.js";
import { refreshWithProbe } from "./refresh-probe.js";
import type { RefreshTrust } from "./trust.js";

export interface TableLogOptions {
  /** When the snapshot the handle starts from was listed (epoch ms); default now. */
  listedAt?: number | undefined;
  /** The process buffered budget the commit-JSON cache reserves from (none: bounded by its own limits only). */
  budget?: (() => CheckpointPrefetchBudget | undefined) | undefined;
}

/** What an operation returned, the snapshot the handle keeps, and the time spent refreshing and settling. */
export interface OperationOutcome<T> {
  result: T;
  snapshot: Snapshot;
  refreshMs: number;
  settleMs: number;
}

/** A handle's log state: its refresh trust, and the scope and adoption of each of its operations. */
export class TableLog {
  readonly #trust: RefreshTrust;
  readonly #budget: (() => CheckpointPrefetchBudget | undefined) | undefined;
  /** The version the last refresh found current by probe (no LIST), if it did. */
  #probedCurrent: number | undefined;

  constructor(options: TableLogOptions = {}) {
    this.#trust = { listedAt: options.listedAt ?? Date.now(), forceList: false, distrusted: false };
    this.#budget = options.budget;
  }

  /** The latest snapshot after `base`: by probe or LIST as the switches and trust rules say. */
  async refresh(base: Snapshot, signal?: AbortSignal): Promise<Snapshot> {
    this.#probedCurrent = undefined;
    if (!requestSwitchOn("probeRefresh")) return base.reload(signal ? { signal } : {});
    const sentAt = Date.now();
    const { snapshot, outcome, listed } = await refreshWithProbe(base, this.#trust, signal);
    reportLogProbe({ probe: "refresh", outcome });
    if (listed) {
      this.#trust.listedAt = sentAt;
      this.#trust.forceList = false;
    }
    if (outcome === "current") this.#probedCurrent = snapshot.version;
    return snapshot;
  }

  /**
   * Refreshes from `base`, runs `body` on the latest snapshot inside an operation scope, and returns the
   * snapshot to keep: the adopted own commit, else `settle(latest, result)`. A failing `body` propagates
   * (the handle keeps `base`).
   */
  async operate<T>(
    base: Snapshot,
    signal: AbortSignal | undefined,
    body: (latest: Snapshot) => Promise<T>,
    settle: (latest: Snapshot, result: T) => Snapshot | Promise<Snapshot>,
  ): Promise<OperationOutcome<T>> {
    const cache = requestSwitchOn("commitJsonCache") ? new CommitJsonCache(this.#budget?.()) : undefined;
    const operation = new LogOperation(base.store, cache);
    return runLogOperation(operation, async () => {
      let started = performance.now();
      const latest = await this.refresh(base, signal);
      const refreshMs = performance.now() - started;
      let result: T;
      try {
        result = await body(latest);
      } finally {
        this.#learn(operation, latest);
      }
      started = performance.now();
      const own = operation.newestOwnCommit();
      const snapshot =
        own && requestSwitchOn("adoptCommitSnapshot") ? own.snapshot : await settle(latest, result);
      return { result, snapshot, refreshMs, settleMs: performance.now() - started };
    });
  }

  /** What the operation teaches the trust rules: own checkpoint-boundary commits, a 404 that proved wrong. */
  #learn(operation: LogOperation, latest: Snapshot): void {
    if (operation.ownCommits.some((c) => c.checkpointDue)) this.#trust.forceList = true;
    const probed = this.#probedCurrent;
    if (probed === latest.version && operation.lostRaces.includes(probed + 1)) this.#trust.distrusted = true;
  }
}
