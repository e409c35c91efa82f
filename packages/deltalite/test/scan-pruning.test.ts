// Partition pruning, stats skipping and the row filter on a multi-file delta-rs table (12 files: 4 appends ×
// 3 regions): through a CountingStore we assert exactly which data files a filtered scan GETs — the files
// delta-rs's own dataset finds matching rows in, plus (only) the files whose string max may be truncated —
// and that the rows equal delta-rs's rows under the same filter (applied by pyarrow). A property test then
// checks random conjunctions of conditions against delta-rs, and the error and abort paths are checked.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { type ScanFilterCondition, scanTable } from "@deltalite/data-files";
import { mayBeTruncatedMax as mayBeTruncated, Snapshot } from "@deltalite/delta-log";
import { isDeltaLiteError } from "@deltalite/errors";
import { LocalFileStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchToJsonRows } from "../src/json/index.js";
import { type ScanRows, scanRows, sortedRows } from "./scan-helpers.js";

let oracle: Oracle;
let tmp: string;
let uri: string;

beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-scan-pruning-"));
  uri = path.join(tmp, "events");
  await oracle.call("scan_make_table", { uri });
});
afterAll(async () => {
  oracle?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

async function open() {
  const store = new CountingStore(new LocalFileStore(uri));
  const snapshot = await Snapshot.open(store);
  store.reset();
  return { store, snapshot };
}

const dataKeysRead = (store: CountingStore) =>
  [
    ...new Set(
      store.log.filter((r) => r.method === "get" && !r.key.startsWith("_delta_log/")).map((r) => r.key),
    ),
  ].sort();

const cases: { name: string; filter: ScanFilterCondition[]; columns?: string[]; truncatedNames?: boolean }[] =
  [
    { name: "partition eq prunes other regions", filter: [{ column: "region", op: "eq", value: "eu" }] },
    {
      name: "long range skips files by min/max",
      filter: [
        { column: "id", op: "ge", value: 2000n },
        { column: "id", op: "lt", value: 2050 },
      ],
    },
    { name: "date eq skips files by min/max", filter: [{ column: "day", op: "eq", value: "2026-01-02" }] },
    {
      name: "partition in + long le combine",
      filter: [
        { column: "region", op: "in", value: ["us", "ap"] },
        { column: "id", op: "le", value: 1010 },
      ],
    },
    { name: "isNull skips files without nulls", filter: [{ column: "note", op: "isNull" }] },
    { name: "isNotNull skips all-null files", filter: [{ column: "note", op: "isNotNull" }] },
    { name: "no file can match", filter: [{ column: "id", op: "eq", value: 99_999 }] },
    { name: "doubles are never stats-pruned", filter: [{ column: "amount", op: "gt", value: 50 }] },
    {
      name: "a string max that may be truncated is unbounded above",
      filter: [{ column: "name", op: "gt", value: "zzz" }],
      truncatedNames: true,
    },
    {
      name: "string ne with projection",
      filter: [
        { column: "name", op: "ne", value: "n01007" },
        { column: "id", op: "lt", value: 1010 },
      ],
      columns: ["name", "region"],
    },
  ];

/** The filter's operands in their §7 JSON form (what the oracle op takes). */
function jsonFilter(filter: ScanFilterCondition[]) {
  return filter.map((c) => ({
    ...c,
    value: JSON.parse(JSON.stringify(c.value ?? null, (_k, v) => (typeof v === "bigint" ? Number(v) : v))),
  }));
}

describe("filtered scans read only the files that can match", () => {
  it.each(cases)("$name", async ({ filter, columns, truncatedNames }) => {
    const { store, snapshot } = await open();
    const ours = await scanRows(snapshot, { filter, ...(columns ? { columns } : {}) });
    const expectedRows = await oracle.call<ScanRows>("scan_delta", {
      uri,
      filter: jsonFilter(filter),
      ...(columns ? { columns } : {}),
    });
    expect(ours.fields).toEqual(expectedRows.fields);
    expect(sortedRows(ours.rows)).toEqual(sortedRows(expectedRows.rows));

    const withMatches = await oracle.call<string[]>("scan_files_with_matches", {
      uri,
      filter: jsonFilter(filter),
    });
    // The only files read without a matching row are those the rules say cannot be skipped: here, files
    // whose `name` max has 61+ bytes (delta-rs truncates string stats at 64 bytes).
    const unskippable = truncatedNames
      ? snapshot.files
          .filter((f) => mayBeTruncated(String(f.stats?.maxValues?.name ?? "")))
          .map((f) => f.path)
      : [];
    if (truncatedNames) expect(unskippable.length).toBe(3);
    const expectedKeys = [...new Set([...withMatches, ...unskippable])].sort();
    expect(dataKeysRead(store)).toEqual(expectedKeys);
    expect(store.counts.head.calls).toBe(0);
    expect(store.counts.list.calls).toBe(0);
  });

  it("the plan reports what was skipped by partition and by stats", async () => {
    const { snapshot } = await open();
    const plan = await scanTable(snapshot, {
      filter: [
        { column: "region", op: "eq", value: "eu" },
        { column: "id", op: "ge", value: 3000 },
      ],
    }).plan();
    expect(plan.filesTotal).toBe(12);
    expect(plan.filesSkippedByPartition).toBe(8);
    expect(plan.filesSkippedByStats).toBe(3);
    expect(plan.files.map((f) => f.partitionValues.region)).toEqual(["eu"]);
  });
});

describe("random filters equal delta-rs's rows", () => {
  const condition = fc.oneof(
    fc.record({
      column: fc.constant("id"),
      op: fc.constantFrom("eq", "ne", "lt", "le", "gt", "ge"),
      value: fc.integer({ min: -5, max: 3060 }),
    }),
    fc.record({
      column: fc.constant("id"),
      op: fc.constant("in"),
      value: fc.array(fc.integer({ min: 0, max: 3060 }), { maxLength: 4 }),
    }),
    fc.record({
      column: fc.constant("region"),
      op: fc.constantFrom("eq", "ne", "lt", "ge"),
      value: fc.constantFrom("ap", "eu", "us", "a", "zz"),
    }),
    fc.record({
      column: fc.constant("region"),
      op: fc.constant("in"),
      value: fc.subarray(["ap", "eu", "us", "x"]),
    }),
    fc.record({
      column: fc.constant("day"),
      op: fc.constantFrom("eq", "lt", "le", "gt", "ge", "ne"),
      value: fc.constantFrom("2025-12-31", "2026-01-01", "2026-01-02", "2026-01-04", "2026-01-05"),
    }),
    fc.record({
      column: fc.constant("name"),
      op: fc.constantFrom("eq", "lt", "le", "gt", "ge", "ne"),
      value: fc.constantFrom("n00010", "n01049", "n02", "zz", "zzyyyy", "zzz", "", "m"),
    }),
    fc.record({ column: fc.constantFrom("note", "name"), op: fc.constantFrom("isNull", "isNotNull") }),
    fc.record({
      column: fc.constant("amount"),
      op: fc.constantFrom("lt", "ge", "ne"),
      value: fc.double({ min: 0, max: 100, noNaN: true }),
    }),
  ) as fc.Arbitrary<ScanFilterCondition>;

  it("any conjunction of up to 3 conditions", async () => {
    const { snapshot } = await open();
    await fc.assert(
      fc.asyncProperty(fc.array(condition, { minLength: 1, maxLength: 3 }), async (filter) => {
        const ours = await scanRows(snapshot, { filter });
        const theirs = await oracle.call<ScanRows>("scan_delta", { uri, filter: jsonFilter(filter) });
        expect(sortedRows(ours.rows)).toEqual(sortedRows(theirs.rows));
      }),
      { numRuns: 40, seed: 20261130 },
    );
  });
});

describe("batches", () => {
  it("batchSize cuts batches without losing or reordering rows; every batch has the projected schema", async () => {
    const { snapshot } = await open();
    const whole = await scanRows(snapshot, { columns: ["id", "region"] });
    const scan = scanTable(snapshot, { columns: ["id", "region"], batchSize: 7 });
    const sizes: number[] = [];
    const rows: object[] = [];
    for await (const batch of scan) {
      sizes.push(batch.numRows);
      expect(batch.schema.fields.map((f) => f.name)).toEqual(["id", "region"]);
      for (const r of batchToJsonRows(batch)) rows.push(r);
    }
    expect(Math.max(...sizes)).toBe(7);
    expect(rows).toEqual(whole.rows);
    expect(scan.metrics).toMatchObject({
      filesRead: 12,
      rowsRead: 600,
      rowsReturned: 600,
      batches: sizes.length,
    });
  });
});

describe("scan errors", () => {
  it.each([
    [{ columns: ["nope"] }, "invalid_argument"],
    [{ filter: [{ column: "nope", op: "eq", value: 1 }] }, "invalid_argument"],
    [{ filter: [{ column: "id", op: "like", value: 1 }] }, "invalid_argument"],
    [{ filter: [{ column: "id", op: "eq", value: "abc" }] }, "invalid_argument"],
    [{ filter: [{ column: "id", op: "eq" }] }, "invalid_argument"],
    [{ filter: [{ column: "day", op: "lt", value: "01/02/2026" }] }, "invalid_argument"],
    [{ columns: ["id", "id"] }, "invalid_argument"],
  ] as const)("%j → %s", async (options, kind) => {
    const { snapshot } = await open();
    const error = await scanTable(snapshot, options as never)
      .plan()
      .catch((e: unknown) => e);
    expect(isDeltaLiteError(error) && error.kind).toBe(kind);
  });

  it("an aborted signal stops the scan with kind aborted", async () => {
    const { snapshot } = await open();
    const controller = new AbortController();
    const scan = scanTable(snapshot, { signal: controller.signal });
    let batches = 0;
    const error = await (async () => {
      for await (const _ of scan) {
        batches++;
        controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(batches).toBe(1);
    expect(isDeltaLiteError(error) && error.kind).toBe("aborted");
  });
});
