/**
 * Test helpers of the compaction suites: one oracle connection and temp folder per suite, tables built by
 * delta-rs (ops_optimize.optimize_build) and copied byte for byte to a deltalite copy and a delta-rs copy,
 * and the removed files of a commit grouped by partition.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll } from "vitest";

export type BuildStep =
  | {
      op: "append";
      rows: number;
      start: number;
      parts?: string[];
      pad?: number;
      mode?: "append" | "overwrite";
      /** Extra nullable int64 columns c1..c<extra> in these rows (new ones join the table's schema). */
      extra?: number;
      /** Write with delta-rs `schema_mode="merge"` (columns added, missing ones read as null). */
      merge?: boolean;
    }
  | { op: "delete"; predicate: string }
  | { op: "optimize"; target_size?: number };

/**
 * Step `i` of a history as an append of `rows` rows that adds the table's `columns`-th extra column (delta-rs
 * merge mode), into one to three of `parts` by the step's index.
 */
export function addColumnStep(i: number, rows: number, columns: number, parts: readonly string[]): BuildStep {
  const into = parts.slice(0, 1 + (i % parts.length));
  return { op: "append", rows, start: i * 10_000, parts: into, extra: columns, merge: true };
}

export interface OracleCommit {
  protocol?: Record<string, unknown> | null;
  metaData?: Record<string, unknown> | null;
  commitInfo: Record<string, unknown> & {
    operation?: string;
    operationParameters?: Record<string, string>;
    operationMetrics?: Record<string, unknown>;
  };
  removed: {
    path: string;
    partitionValues?: Record<string, string | null>;
    size: number;
    dataChange: boolean;
  }[];
  added: {
    path: string;
    partitionValues: Record<string, string | null>;
    size: number;
    dataChange: boolean;
  }[];
}

export interface Workspace {
  readonly oracle: Oracle;
  readonly dir: string;
  /** Builds a table with delta-rs at `<dir>/<name>-ours` and copies it to `<dir>/<name>-theirs`. */
  build(
    name: string,
    steps: BuildStep[],
    partitioned: boolean,
    configuration?: Record<string, string>,
  ): Promise<{ ours: string; theirs: string }>;
}

export function workspace(prefix: string): Workspace {
  const ws = {
    oracle: undefined as unknown as Oracle,
    dir: "",
    async build(
      name: string,
      steps: BuildStep[],
      partitioned: boolean,
      configuration?: Record<string, string>,
    ) {
      const ours = join(ws.dir, `${name}-ours`);
      const theirs = join(ws.dir, `${name}-theirs`);
      await ws.oracle.call("optimize_build", { uris: [ours, theirs], steps, partitioned, configuration });
      return { ours, theirs };
    },
  };
  beforeAll(async () => {
    ws.oracle = await connectOracle();
    ws.dir = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    ws.oracle?.close();
    if (ws.dir) await rm(ws.dir, { recursive: true, force: true });
  });
  return ws;
}

export function openLocal(path: string): Promise<Snapshot> {
  return Snapshot.open(new LocalFileStore(path));
}

/** partition id → sorted removed paths. */
export function removedByPartition(
  removed: readonly { path: string; partitionValues?: Record<string, string | null> | null }[],
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of removed) {
    const id = JSON.stringify(r.partitionValues ?? {});
    out[id] = [...(out[id] ?? []), r.path];
  }
  for (const list of Object.values(out)) list.sort();
  return out;
}
