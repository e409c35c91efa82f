import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { type WriteParquetOptions, writeParquetFiles } from "@deltalite/parquet-stream";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { makeData, RecordBatch, Schema, Struct, tableFromIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addStats, statsJson } from "../src/index.js";

interface DeltaRsAdd {
  stats: Record<string, unknown>;
  stats_text: string;
}

interface StatsDiff {
  path: string[];
  delta_rs: unknown;
  ours: unknown;
}

let oracle: Oracle;
let dir: string;
let fileNo = 0;

beforeAll(async () => {
  oracle = await connectOracle();
  dir = await mkdtemp(join(tmpdir(), "deltalite-stats-"));
});

afterAll(async () => {
  oracle.close();
  await rm(dir, { recursive: true, force: true });
});

async function ipcFile(
  op: string,
  args: Record<string, unknown>,
): Promise<{ path: string; batches: RecordBatch[] }> {
  const path = join(dir, `input-${fileNo++}.arrow`);
  await oracle.call(op, { ...args, out: path });
  return { path, batches: tableFromIPC(await readFile(path)).batches };
}

/** The batch without one column (built directly: apache-arrow 21's `select` mangles wide batches). */
function withoutColumn(batch: RecordBatch, name: string): RecordBatch {
  const keep = batch.schema.fields.map((f, i) => [f, i] as const).filter(([f]) => f.name !== name);
  const schema = new Schema(keep.map(([f]) => f));
  const children = keep.map(([, i]) => batch.data.children[i]!);
  return new RecordBatch(
    schema,
    makeData({ type: new Struct(schema.fields), length: batch.numRows, nullCount: 0, children }),
  );
}

/** delta-rs's stats for the data (one file) and ours for the same data written by our writer. */
async function bothStats(
  input: { path: string; batches: RecordBatch[] },
  configuration: Record<string, string> | undefined,
  writer: Partial<WriteParquetOptions> = {},
  partitionBy?: string,
): Promise<{ deltaRs: DeltaRsAdd; ours: string; diffs: StatsDiff[] }> {
  const adds = await oracle.call<DeltaRsAdd[]>("delta_write_stats", {
    ipc: input.path,
    ...(configuration ? { configuration } : {}),
    ...(partitionBy ? { partition_by: [partitionBy] } : {}),
  });
  expect(adds).toHaveLength(1);
  const store = new LocalFileStore(join(dir, `ours-${fileNo++}`));
  // Like delta-rs, partition columns are not written into the data file.
  const batches = partitionBy ? input.batches.map((b) => withoutColumn(b, partitionBy)) : input.batches;
  const files = await writeParquetFiles(store, batches, {
    schema: batches[0]!.schema,
    nextKey: () => "part-00000.parquet",
    ...writer,
  });
  expect(files).toHaveLength(1);
  const ours = statsJson(
    addStats({
      metadata: files[0]!.metadata,
      configuration,
      partitionColumns: partitionBy ? [partitionBy] : [],
    }),
  );
  const diffs = await oracle.call<StatsDiff[]>("stats_diff", { delta_rs: adds[0]!.stats_text, ours });
  return { deltaRs: adds[0]!, ours, diffs };
}

describe("addStats equals delta-rs 1.6.6's Add stats for the same data", () => {
  it.each([1, 2, 3, 4, 5])("type matrix, seed %i: 0 diffs", async (seed) => {
    const input = await ipcFile("parquet_type_matrix", { rows: 300, seed });
    const { deltaRs, ours, diffs } = await bothStats(input, undefined);
    expect(diffs).toEqual([]);
    // Also equal as parsed on this side (big int64 values compare after the same lossy parse).
    expect(JSON.parse(ours)).toEqual(deltaRs.stats);
  });

  it("type matrix written in many small row groups: the merged stats still equal delta-rs's single-group stats", async () => {
    const input = await ipcFile("parquet_type_matrix", { rows: 500, seed: 11 });
    const { diffs } = await bothStats(input, undefined, { maxRowGroupRows: 37 });
    expect(diffs).toEqual([]);
  });

  it("edge cases (all-null, -0.0, NaN, ±inf, f32, int64 extremes, ms/ns timestamps, long and multi-byte strings, binary): 0 diffs", async () => {
    const input = await ipcFile("parquet_edge_table", {});
    const { diffs, ours } = await bothStats(input, undefined);
    expect(diffs).toEqual([]);
    expect(ours).toContain('"int64_extremes":-9223372036854775808');
    expect(ours).toContain('"neg_zero_only":-0.0');
  });

  it("partitioned write (partition column first, 45 data columns): the partition column takes no slot, 0 diffs", async () => {
    const input = await ipcFile("parquet_type_matrix", {
      rows: 80,
      seed: 31,
      wide_columns: 27,
      partition_column: "part",
    });
    const { diffs, ours } = await bothStats(input, undefined, {}, "part");
    expect(diffs).toEqual([]);
    expect(ours).not.toContain('"part"');
    expect(ours).toContain('"w13"');
    expect(ours).not.toContain('"w14"');
  });

  it.each<[string, Record<string, string>]>([
    ["default budget of 32 with 62 top-level columns", {}],
    ["dataSkippingNumIndexedCols 16 (struct takes one slot)", { "delta.dataSkippingNumIndexedCols": "16" }],
    ["dataSkippingNumIndexedCols 0", { "delta.dataSkippingNumIndexedCols": "0" }],
    ["dataSkippingNumIndexedCols -1 (all)", { "delta.dataSkippingNumIndexedCols": "-1" }],
    [
      "dataSkippingStatsColumns by leaf name, dotted and quoted entries",
      {
        "delta.dataSkippingStatsColumns": "string_col, `w05`,a,struct_col.inner.x,binary_col,list_col,x ,w40",
      },
    ],
    [
      "dataSkippingStatsColumns wins over dataSkippingNumIndexedCols",
      { "delta.dataSkippingStatsColumns": "w39,long_col", "delta.dataSkippingNumIndexedCols": "2" },
    ],
  ])("wide table, %s: 0 diffs", async (_label, configuration) => {
    const input = await ipcFile("parquet_type_matrix", { rows: 120, seed: 21, wide_columns: 44 });
    const { diffs } = await bothStats(input, Object.keys(configuration).length ? configuration : undefined);
    expect(diffs).toEqual([]);
  });
});
