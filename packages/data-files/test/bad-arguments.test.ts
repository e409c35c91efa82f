/**
 * Bad options to scan and write are `invalid_argument` with a message that says what to do ("did you
 * mean" for unknown columns, ops and modes), and a refused write leaves the table byte for byte as it was
 * (no data file either). Property: any unknown column name is refused, never read.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createProcessBudgets,
  type ScanFilterCondition,
  type ScanOptions,
  scanTable,
  type WriteOptions,
  writeExistingTable,
  writeNewTable,
} from "../src/index.js";

let tmp: string;
let store: LocalFileStore;
let snapshot: Snapshot;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-bad-args-"));
  store = new LocalFileStore(path.join(tmp, "table"));
  await writeNewTable(store, rows([1, 2, 3]), { partitionBy: ["region"] });
  snapshot = await Snapshot.open(store);
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

function rows(ids: number[]) {
  return new Table({
    customer_id: vectorFromArray(ids.map(BigInt), new Int64()),
    name: vectorFromArray(
      ids.map((i) => `n${i}`),
      new Utf8(),
    ),
    region: vectorFromArray(
      ids.map((i) => (i % 2 ? "eu" : "us")),
      new Utf8(),
    ),
  });
}

async function tableBytes(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fs.readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(root, full)] = (await fs.readFile(full)).toString("base64");
  }
  return out;
}

async function scanError(options: ScanOptions): Promise<Error & { kind: string }> {
  const scan = scanTable(snapshot, options);
  const error = await (async () => {
    for await (const _ of scan) void _;
  })().catch((e: unknown) => e);
  expect(error, "the scan should have failed").toBeInstanceOf(Error);
  return error as Error & { kind: string };
}

describe("scan options", () => {
  it.each<[string, ScanOptions, string]>([
    ["an unknown column", { columns: ["customer_idd"] }, 'does not have (did you mean "customer_id"?)'],
    ["a column asked twice", { columns: ["name", "name"] }, 'asks for column "name" twice'],
    ["columns that are not a list", { columns: "name" as never }, "must be a list of names"],
    [
      "a filter on an unknown column",
      { filter: [{ column: "regoin", op: "eq", value: "eu" }] },
      'does not have (did you mean "region"?)',
    ],
    [
      "an unknown filter op",
      { filter: [{ column: "name", op: "eqq" as never, value: "x" }] },
      'unknown op (did you mean "eq"?)',
    ],
    [
      "a filter value of the wrong type",
      { filter: [{ column: "customer_id", op: "gt", value: "abc" }] },
      'scan filter on column "customer_id" (gt)',
    ],
    ["a filter that is not a list", { filter: {} as never }, "must be a list"],
    ["a condition without a column", { filter: [{ op: "eq" } as never] }, "needs a string `column`"],
    ["isNull with a value", { filter: [{ column: "name", op: "isNull", value: "x" }] }, "takes no value"],
  ])("%s", async (_name, options, words) => {
    const error = await scanError(options);
    expect(error.kind).toBe("invalid_argument");
    expect(error.message).toContain(words);
  });

  it("a bad batchSize is refused when the scan is made", () => {
    expect(() => scanTable(snapshot, { batchSize: 0 })).toThrow(
      expect.objectContaining({ kind: "invalid_argument" }),
    );
  });

  it("property: any name not in the table is refused, as a column or as a filter column", async () => {
    const known = new Set(snapshot.schema.fields.map((f) => f.name));
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !known.has(s)),
        async (name) => {
          expect((await scanError({ columns: [name] })).kind).toBe("invalid_argument");
          const filter: ScanFilterCondition[] = [{ column: name, op: "isNull" }];
          expect((await scanError({ filter })).kind).toBe("invalid_argument");
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe("write options: refused, and the table is exactly as it was", () => {
  it.each<[string, WriteOptions, string]>([
    ["an unknown mode", { mode: "overwirte" as never }, '(did you mean "overwrite"?)'],
    ["an unknown schemaMode", { schemaMode: "merg" as never }, '(did you mean "merge"?)'],
    ["partitionBy that differs from the table's", { partitionBy: ["name"] }, "is partitioned by [region]"],
    ["schemaMode overwrite on append", { schemaMode: "overwrite" }, 'needs mode "overwrite"'],
  ])("existing table: %s", async (_name, options, words) => {
    const before = await tableBytes(store.root);
    const error = await writeExistingTable(await Snapshot.open(store), rows([9]), options).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ kind: "invalid_argument" });
    expect((error as Error).message).toContain(words);
    expect(await tableBytes(store.root)).toEqual(before);
  });

  it.each<[string, WriteOptions, string]>([
    ["a partition column the data lacks", { partitionBy: ["regoin"] }, '(did you mean "region"?)'],
    [
      "an unknown delta.* table property",
      { configuration: { "delta.appendonly": "true" } },
      "delta.appendOnly",
    ],
    ["an unknown mode", { mode: "eror" as never }, '(did you mean "error"?)'],
  ])("new table: %s writes nothing at all", async (_name, options, words) => {
    const root = path.join(tmp, `new-${Math.random().toString(36).slice(2)}`);
    const error = await writeNewTable(new LocalFileStore(root), rows([1]), options).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "invalid_argument" });
    expect((error as Error).message).toContain(words);
    expect(await tableBytes(root)).toEqual({});
  });

  it("empty data without a schema cannot create a table", async () => {
    const root = path.join(tmp, "empty");
    const error = await writeNewTable(new LocalFileStore(root), [], {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "invalid_argument" });
    expect(await tableBytes(root)).toEqual({});
  });
});

describe("budget settings", () => {
  it("a bad DELTALITE_* budget variable is invalid_argument naming it", () => {
    expect(() => createProcessBudgets({ DELTALITE_PROCESS_MAX_PARALLEL_FILES: "-3" })).toThrow(
      expect.objectContaining({ kind: "invalid_argument" }),
    );
  });
});
