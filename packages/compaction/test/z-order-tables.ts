/**
 * Helpers of the Z-order suites: random tables of every key type built by delta-rs (ops_optimize
 * optimize_build_zorder) into a deltalite copy and a delta-rs copy, and the rows of a commit's added files
 * read back in file order with our reader together with our Z-order key of each row.
 */

import { join } from "node:path";
import { dataFileSchema, openLiveFile, readLiveFile } from "@deltalite/data-files";
import type { Snapshot } from "@deltalite/delta-log";
import { zOrderKeys } from "../src/index.js";
import type { Workspace } from "./oracle-tables.js";

export interface ZOrderTable {
  ours: string;
  theirs: string;
  rows: number;
}

export async function buildZOrderTable(
  ws: Workspace,
  name: string,
  config: { appends: number; rows: number; seed: number; partitions?: number; domain?: number },
): Promise<ZOrderTable> {
  const ours = join(ws.dir, `${name}-ours`);
  const theirs = join(ws.dir, `${name}-theirs`);
  const made = await ws.oracle.call<{ rows: number }>("optimize_build_zorder", {
    uris: [ours, theirs],
    ...config,
  });
  return { ours, theirs, rows: made.rows };
}

/** One file's rows in file order: their ids and hex keys over `columns`. */
export interface FileRows {
  path: string;
  partition: string;
  ids: bigint[];
  keys: string[];
}

/** The files at `paths` (in that order) of `snapshot`, read with our reader. */
export async function readFilesInOrder(
  snapshot: Snapshot,
  paths: readonly string[],
  columns: readonly string[],
): Promise<FileRows[]> {
  const schema = dataFileSchema(snapshot.schema, snapshot.partitionColumns);
  const indices = columns.map((c) => schema.fields.findIndex((f) => f.name === c));
  const idIndex = schema.fields.findIndex((f) => f.name === "id");
  const width = 4 * columns.length;
  const out: FileRows[] = [];
  for (const path of paths) {
    const file = snapshot.files.find((f) => f.path === path);
    if (!file) throw new Error(`${path} is not live in version ${snapshot.version}`);
    const context = { knobs: {}, signal: undefined };
    const reader = await openLiveFile(snapshot.store, file, context);
    const rows: FileRows = { path, partition: JSON.stringify(file.partitionValues), ids: [], keys: [] };
    try {
      for await (const batch of readLiveFile(reader, file, { fields: schema.fields }, context)) {
        const keys = zOrderKeys(batch, indices);
        const ids = batch.getChildAt(idIndex)!;
        for (let r = 0; r < batch.numRows; r++) {
          rows.ids.push(ids.get(r) as bigint);
          rows.keys.push(
            Array.from(keys.subarray(r * width, (r + 1) * width), (w) =>
              w.toString(16).padStart(8, "0"),
            ).join(""),
          );
        }
      }
    } finally {
      reader.close();
    }
    out.push(rows);
  }
  return out;
}

/** Consecutive rows of equal key, as `key:sorted ids` (ties may come in any order from delta-rs's sort). */
export function keyGroups(rows: FileRows): string[] {
  const groups: string[] = [];
  let i = 0;
  while (i < rows.keys.length) {
    let j = i;
    while (j < rows.keys.length && rows.keys[j] === rows.keys[i]) j++;
    const ids = rows.ids.slice(i, j).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    groups.push(`${rows.keys[i]}:${ids.join(",")}`);
    i = j;
  }
  return groups;
}

export function isSorted(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keys[i - 1]! > keys[i]!) return false;
  return true;
}
