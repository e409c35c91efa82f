/**
 * The Parquet leaf columns of a file's footer schema, and which of them get Add stats under the table's
 * data-skipping configuration — the rules delta-rs 1.6.6 applies (checked against it):
 * - `delta.dataSkippingStatsColumns` (comma-separated, dotted, backtick-quoted identifiers) wins when set:
 *   a leaf is selected when its own (leaf) name equals one of the entries joined with `.`, so `a` selects a
 *   nested leaf `s.a` while a dotted entry `s.a` selects nothing;
 * - else `delta.dataSkippingNumIndexedCols` (default 32; -1 = all): the leaves of the first n top-level
 *   fields of the file schema (a struct takes one slot for all its leaves; binary, list and map fields take a
 *   slot and yield nothing);
 * - leaves under a list or map (repeated) and binary leaves never get stats; partition columns neither.
 */
import { DeltaLiteError } from "@deltalite/errors";
import type { FileMetaData } from "@deltalite/parquet-stream";

export type SchemaElement = FileMetaData["schema"][number];

export interface LeafColumn {
  /** Field names from the top-level field down to the leaf (Parquet `path_in_schema`). */
  path: string[];
  element: SchemaElement;
  /** Index of its top-level field among the file schema's top-level fields. */
  topLevelIndex: number;
  /** True when a list/map (a REPEATED element) encloses the leaf. */
  repeated: boolean;
}

export const DEFAULT_NUM_INDEXED_COLS = 32;

/** Leaves of the footer schema in file order. */
export function leafColumns(schema: readonly SchemaElement[]): LeafColumn[] {
  const leaves: LeafColumn[] = [];
  let next = 1;
  const walk = (path: string[], repeated: boolean, topLevelIndex: number): void => {
    const element = schema[next++];
    if (!element) throw new DeltaLiteError("corrupt_log", "parquet footer schema ends early");
    const here = [...path, element.name];
    const isRepeated = repeated || element.repetition_type === "REPEATED";
    const children = element.num_children ?? 0;
    if (children === 0) {
      leaves.push({ path: here, element, topLevelIndex, repeated: isRepeated });
      return;
    }
    for (let i = 0; i < children; i++) walk(here, isRepeated, topLevelIndex);
  };
  const topLevel = schema[0]?.num_children ?? 0;
  for (let i = 0; i < topLevel; i++) walk([], false, i);
  return leaves;
}

/** Splits one `dataSkippingStatsColumns` entry into its identifier parts (backticks quote, `` `` `` escapes). */
function identifierParts(entry: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < entry.length; i++) {
    const ch = entry[i] as string;
    if (quoted) {
      if (ch === "`") {
        if (entry[i + 1] === "`") {
          current += "`";
          i++;
        } else quoted = false;
      } else current += ch;
    } else if (ch === "`") quoted = true;
    else if (ch === ".") {
      parts.push(current.trim());
      current = "";
    } else current += ch;
  }
  parts.push(current.trim());
  return parts;
}

/** The entries of `delta.dataSkippingStatsColumns`, each joined with `.` as delta-rs compares them. */
export function parseStatsColumns(value: string): Set<string> {
  return new Set(
    value
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry.length > 0)
      .map((entry) => identifierParts(entry).join(".")),
  );
}

export function parseNumIndexedCols(value: string | undefined): number {
  if (value === undefined) return DEFAULT_NUM_INDEXED_COLS;
  const n = Number(value.trim());
  if (!Number.isInteger(n) || n < -1) {
    throw new DeltaLiteError(
      "generic",
      `delta.dataSkippingNumIndexedCols must be an integer ≥ -1 (got ${value})`,
    );
  }
  return n;
}

export interface StatsColumnRules {
  configuration?: Readonly<Record<string, string | null | undefined>> | undefined;
  partitionColumns?: readonly string[] | undefined;
}

/** The leaves that are candidates for stats (before the binary / repeated exclusions). */
export function selectStatsLeaves(leaves: readonly LeafColumn[], rules: StatsColumnRules): LeafColumn[] {
  const partitions = new Set(rules.partitionColumns ?? []);
  const inFile = leaves.filter((leaf) => !partitions.has(leaf.path[0] as string));
  const statsColumns = rules.configuration?.["delta.dataSkippingStatsColumns"];
  if (statsColumns !== undefined && statsColumns !== null) {
    const wanted = parseStatsColumns(statsColumns);
    return inFile.filter((leaf) => wanted.has(leaf.path[leaf.path.length - 1] as string));
  }
  const n = parseNumIndexedCols(rules.configuration?.["delta.dataSkippingNumIndexedCols"] ?? undefined);
  if (n === -1) return inFile;
  // Slots go to top-level fields in file order; partition columns (normally absent from files) take none.
  const slotOf = new Map<number, number>();
  for (const leaf of inFile) if (!slotOf.has(leaf.topLevelIndex)) slotOf.set(leaf.topLevelIndex, slotOf.size);
  return inFile.filter((leaf) => (slotOf.get(leaf.topLevelIndex) as number) < n);
}
