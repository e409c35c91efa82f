/**
 * Reads a checkpoint's actions: classic single-file and multi-part Parquet checkpoints, and v2
 * checkpoints (UUID-named JSON or Parquet, or classic-named with a `checkpointMetadata` row) whose
 * `sidecar` actions point at Parquet/JSON files under `_delta_log/_sidecars/`. Parquet goes through
 * @deltalite/parquet-stream; int64 values come back as bigint and are turned into safe numbers here. Parquet
 * files are read whole in one GET each (the parts of a multi-part checkpoint in parallel) when the checkpoint
 * prefetch takes them (checkpoint-prefetch.ts), else with range reads.
 */
import { DeltaLiteError, isDeltaLiteError } from "@deltalite/errors";
import type { ObjectMeta, ObjectStore } from "@deltalite/object-store";
import { readParquetObjects } from "@deltalite/parquet-stream";
import { ACTION_KEYS, type ParsedAction, parseCommit, type SidecarAction, toAction } from "./actions.js";
import { CheckpointPrefetch } from "./checkpoint-prefetch.js";
import { SIDECARS_PREFIX } from "./log-path.js";
import type { CheckpointRef } from "./log-segment.js";
import { decodeLogPath } from "./table-paths.js";

export {
  type CheckpointPrefetchBudget,
  type CheckpointPrefetchOutcome,
  onCheckpointPrefetch,
  reserveWithoutWaiting,
  useCheckpointPrefetchBudget,
} from "./checkpoint-prefetch.js";

/** Every action of the checkpoint, sidecars expanded (sidecar actions themselves are dropped). */
export async function readCheckpoint(
  store: ObjectStore,
  checkpoint: CheckpointRef,
  table: string,
  signal?: AbortSignal,
): Promise<ParsedAction[]> {
  const prefetch = new CheckpointPrefetch(store);
  try {
    const actions = await readActionFiles(prefetch, checkpoint.files, table, signal);
    const sidecars = actions.filter((a): a is { sidecar: SidecarAction } => "sidecar" in a);
    if (sidecars.length === 0) return actions;
    const out = actions.filter((a) => !("sidecar" in a));
    const metas = sidecars.map(
      ({ sidecar }): ObjectMeta => ({
        key: `${SIDECARS_PREFIX}${decodeLogPath(sidecar.path, table)}`,
        size: sidecar.sizeInBytes,
        etag: undefined,
        lastModified: sidecar.modificationTime,
      }),
    );
    out.push(...(await readActionFiles(prefetch, metas, table, signal)));
    return out;
  } finally {
    prefetch.release();
  }
}

/** The actions of `files` in order; the prefetched ones are fetched together before the first is parsed. */
async function readActionFiles(
  prefetch: CheckpointPrefetch,
  files: readonly ObjectMeta[],
  table: string,
  signal: AbortSignal | undefined,
): Promise<ParsedAction[]> {
  const stores = prefetch.storesFor(files, signal);
  const actions: ParsedAction[] = [];
  for (const [i, file] of files.entries()) {
    actions.push(...(await readActionFile(stores[i]!, file, table, signal)));
  }
  return actions;
}

async function readActionFile(
  store: ObjectStore,
  file: ObjectMeta,
  table: string,
  signal: AbortSignal | undefined,
): Promise<ParsedAction[]> {
  const where = `${table}/${file.key}`;
  try {
    if (file.key.endsWith(".json")) return parseCommit(await store.get(file.key, { signal }), where);
    const rows = await readParquetObjects(store, file.key, { size: file.size, signal });
    const out: ParsedAction[] = [];
    for (const row of rows) {
      for (const key of ACTION_KEYS) {
        const value = row[key];
        if (value === null || value === undefined) continue;
        out.push(toAction({ [key]: fromParquet(value, `${where} ${key}`) }, where));
      }
    }
    return out;
  } catch (error) {
    if (isDeltaLiteError(error)) throw error;
    throw new DeltaLiteError(
      "corrupt_log",
      `checkpoint file ${where} is unreadable: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/** Parquet-decoded values as JSON-like values: bigint → number (must be safe), Date → epoch ms. */
function fromParquet(value: unknown, where: string): unknown {
  if (typeof value === "bigint") {
    const n = Number(value);
    if (!Number.isSafeInteger(n))
      throw new DeltaLiteError("corrupt_log", `${where}: integer ${value} is not safe`);
    return n;
  }
  if (value instanceof Date) return value.getTime();
  if (Array.isArray(value)) return value.map((v) => fromParquet(v, where));
  if (value instanceof Uint8Array) return value;
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = fromParquet(v, where);
    return out;
  }
  return value;
}
