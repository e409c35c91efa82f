/**
 * What the change-read suites share: our `readChanges` collected into an Arrow IPC file and canonicalised
 * by the oracle (ops_changes.py) in the shape delta-rs `load_cdf` and Spark's `readChangeFeed` are given in
 * there — sorted canonical rows with `_change_type` and `_commit_version`, timestamps left out.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import type { Oracle } from "@deltalite/tools/oracle";
import { type RecordBatch, Table, tableToIPC } from "apache-arrow";
import { type ChangeRange, type ChangesOptions, readChanges } from "../src/index.js";

export interface CanonicalChanges {
  rows: Record<string, unknown>[];
  changes: Record<string, unknown>[];
  count: number;
  error?: { type: string; message: string };
}

let files = 0;

/** Our change read of the local table at `root`, canonicalised by the oracle. */
export async function ourChanges(
  oracle: Oracle,
  dir: string,
  root: string,
  range: ChangeRange,
  options: ChangesOptions = {},
): Promise<CanonicalChanges & { batches: RecordBatch[] }> {
  const feed = readChanges(await Snapshot.open(new LocalFileStore(root)), range, options);
  const plan = await feed.plan();
  const batches: RecordBatch[] = [];
  for await (const batch of feed) batches.push(batch);
  const path = join(dir, `changes-${files++}.arrow`);
  await writeFile(path, tableToIPC(new Table(plan.schema, batches), "file"));
  const canonical = await oracle.call<CanonicalChanges>("changes_canonical", { ipc: path });
  return { ...canonical, batches };
}

/** delta-rs `load_cdf` of `root` over a version range. */
export function theirChanges(
  oracle: Oracle,
  root: string,
  range: {
    starting_version?: number;
    ending_version?: number;
    starting_timestamp?: string;
    ending_timestamp?: string;
    columns?: string[];
  },
): Promise<CanonicalChanges> {
  return oracle.call<CanonicalChanges>("changes_load_cdf", { uri: root, ...range });
}
