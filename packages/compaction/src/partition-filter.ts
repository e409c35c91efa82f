/**
 * The `partitions` option resolved against the table: every column must be a partition column (else
 * `invalid_argument` with a "did you mean"), values are normalised by the column's type (so `"01"` matches
 * an int partition `1`), a file matches when every column's value is one of the wanted ones, and the
 * filter renders as delta-rs records it in `operationParameters.predicate` (`part = 'a'`, `k IN ('a', 'b')`).
 */
import { parsePartitionValue, type Snapshot, serializePartitionValue } from "@deltalite/delta-log";
import { DeltaLiteInvalidArgumentError, didYouMean, isDeltaLiteError } from "@deltalite/errors";
import type { PartitionValueMatch } from "./types.js";

export interface PartitionFilter {
  /** True when a file's partition values pass the filter. */
  matches(values: Readonly<Record<string, string | null>>): boolean;
  /** delta-rs's rendering, one string per filter (the predicate's JSON array items). */
  readonly predicate: readonly string[];
}

export const NO_PARTITION_FILTER: PartitionFilter = { matches: () => true, predicate: [] };

export function resolvePartitionFilter(
  snapshot: Snapshot,
  partitions: Readonly<Record<string, PartitionValueMatch>> | undefined,
): PartitionFilter {
  const entries = Object.entries(partitions ?? {});
  if (entries.length === 0) return NO_PARTITION_FILTER;
  const table = snapshot.table;
  const columns = snapshot.partitionColumns;
  if (columns.length === 0) {
    throw new DeltaLiteInvalidArgumentError(
      `${table} is not partitioned: the partitions option cannot apply`,
    );
  }
  const wanted = new Map<string, Set<string | null>>();
  const predicate: string[] = [];
  for (const [column, match] of entries) {
    if (!columns.includes(column)) {
      throw new DeltaLiteInvalidArgumentError(
        `${table}: ${JSON.stringify(column)} is not a partition column (partitioned by ${columns.join(", ")})${didYouMean(column, columns)}`,
      );
    }
    const type = partitionType(snapshot, column);
    const values: (string | null)[] = Array.isArray(match) ? [...match] : [match as string | null];
    if (values.length === 0) {
      throw new DeltaLiteInvalidArgumentError(`${table}: partitions.${column} lists no value`);
    }
    wanted.set(column, new Set(values.map((v) => normalise(v, type, table, column))));
    const quoted = values.map((v) => `'${v ?? ""}'`);
    predicate.push(values.length === 1 ? `${column} = ${quoted[0]}` : `${column} IN (${quoted.join(", ")})`);
  }
  return {
    predicate,
    matches(pv) {
      for (const [column, set] of wanted) {
        if (!set.has(normaliseLogged(pv[column] ?? null, partitionType(snapshot, column)))) return false;
      }
      return true;
    },
  };
}

function partitionType(snapshot: Snapshot, column: string): string {
  const type = snapshot.deltaSchema.fields.find((f) => f.name === column)?.type;
  return typeof type === "string" ? type : "string";
}

function normalise(value: unknown, type: string, table: string, column: string): string | null {
  if (value !== null && typeof value !== "string") {
    throw new DeltaLiteInvalidArgumentError(
      `${table}: partitions.${column} values must be strings or null (got ${String(value)})`,
    );
  }
  try {
    return serializePartitionValue(parsePartitionValue(value, type), type);
  } catch (error) {
    if (!isDeltaLiteError(error)) throw error;
    throw new DeltaLiteInvalidArgumentError(
      `${table}: partitions.${column} value ${JSON.stringify(value)} is not a ${type}: ${error.message}`,
      { cause: error },
    );
  }
}

/** A value as the log holds it, normalised the same way (a value that does not parse stays as it is). */
function normaliseLogged(value: string | null, type: string): string | null {
  try {
    return serializePartitionValue(parsePartitionValue(value, type), type);
  } catch {
    return value;
  }
}
