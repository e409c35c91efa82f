/**
 * `missingColumns` at ingest: the table columns each source batch lacks — never the primary-key columns
 * (a source without one is refused on its own, ingest.ts) nor the partition column (rows need its value;
 * without it every row has a NULL partition value, which is refused) — and what the mode makes of them:
 * `"null"` nothing (alignment null-fills them), `"error"` refuses a source that lacks any, with kind
 * `schema_mismatch` naming them, before anything is written, `"keep"` hands the per-batch lists on to the
 * rewrite (fill-from-target.ts).
 */
import { DeltaLiteSchemaMismatchError } from "@deltalite/errors";
import type { RecordBatch, Schema } from "apache-arrow";
import type { TableShape } from "./shape.js";
import type { UpsertOptions } from "./types.js";

/**
 * Per source batch, the columns a replaced row keeps from its target row (`"keep"`), else undefined;
 * throws for `"error"` when a batch (an empty one too: its schema is the source's) lacks a column.
 */
export function columnsToKeep(
  batches: readonly RecordBatch[],
  table: Schema,
  shape: TableShape,
  options: Pick<UpsertOptions, "missingColumns" | "primaryKeys">,
  label: string,
): string[][] | undefined {
  const mode = options.missingColumns ?? "null";
  if (mode === "null") return undefined;
  const required = new Set([
    ...options.primaryKeys,
    ...(shape.partitionColumn ? [shape.partitionColumn] : []),
  ]);
  const lacking = batches.map((batch) => {
    const present = new Set(batch.schema.fields.map((f) => f.name));
    return table.fields.map((f) => f.name).filter((name) => !required.has(name) && !present.has(name));
  });
  if (mode === "error") refuseMissing(lacking, label);
  return lacking;
}

function refuseMissing(lacking: readonly string[][], label: string): void {
  const missing = [...new Set(lacking.flat())];
  if (missing.length === 0) return;
  const s = missing.length > 1 ? "s" : "";
  throw new DeltaLiteSchemaMismatchError(
    `${label}: the source lacks the table column${s} ${missing.join(", ")} (missingColumns "error"); ` +
      `add ${missing.length > 1 ? "them" : "it"} to the source, or pass missingColumns "null" (NULL in replaced rows) ` +
      `or "keep" (replaced rows keep the table's values)`,
  );
}
