/**
 * tableKeyBuckets (the bucket ids of `DeltaLiteTable.keyBuckets`): every row gets exactly one id in 0..n-1
 * and rows with one key share it (property, multi-column keys with NULLs); source values that cast to one
 * table key share a bucket (int32 / int64 / integral float64 bound for a long column, millisecond and
 * microsecond timestamps of one instant); 1M random keys into 16 buckets land within 2% of uniform; the
 * built package in a child process gives the same ids; bad arguments are typed errors.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { hasErrorKind } from "@deltalite/errors";
import {
  Field,
  Float64,
  Int32,
  Int64,
  makeData,
  makeVector,
  type RecordBatch,
  Schema,
  Table,
  TimestampMicrosecond,
  TimestampMillisecond,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tableKeyBuckets } from "../src/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, "..");

/** The table the ids are computed for: long and string keys, a microsecond timestamp, a payload. */
const TABLE = new Schema([
  new Field("id", new Int64(), false),
  new Field("name", new Utf8(), true),
  new Field("at", new TimestampMicrosecond("UTC"), true),
  new Field("pay", new Utf8(), true),
]);

const tableOf = (columns: Record<string, ReturnType<typeof makeVector>>) => new Table(columns);
const firstBatch = (table: Table): RecordBatch => table.batches[0] as RecordBatch;
const buckets = (data: RecordBatch | Table, keys: string[], n: number) =>
  tableKeyBuckets(TABLE, data, keys, n, "t");

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}

describe("tableKeyBuckets", () => {
  it("gives every row one id in 0..n-1, the same for rows with one key (NULL-safe, property)", () => {
    const row = fc.record({
      id: fc.option(fc.integer({ min: -5, max: 5 }), { nil: null }),
      name: fc.option(fc.constantFrom("", "a", "b", "é", "\u{1f600}"), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 50 }),
        (rows, n) => {
          const data = tableOf({
            id: vectorFromArray(
              rows.map((r) => (r.id === null ? null : BigInt(r.id))),
              new Int64(),
            ),
            name: vectorFromArray(
              rows.map((r) => r.name),
              new Utf8(),
            ),
          });
          const ids = buckets(data, ["id", "name"], n);
          expect(ids.length).toBe(rows.length);
          const seen = new Map<string, number>();
          rows.forEach((r, i) => {
            const id = ids[i] as number;
            expect(id).toBeGreaterThanOrEqual(0);
            expect(id).toBeLessThan(n);
            const key = JSON.stringify([r.id, r.name]);
            expect(seen.get(key) ?? id, `key ${key}`).toBe(id);
            seen.set(key, id);
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("puts source values that cast to one table key in one bucket (int32, int64, float64 → long)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { minLength: 1, maxLength: 200 }), (values) => {
        const asInt64 = tableOf({ id: vectorFromArray(values.map(BigInt), new Int64()) });
        const asInt32 = tableOf({ id: vectorFromArray(values, new Int32()) });
        const asFloat = tableOf({ id: vectorFromArray(values, new Float64()) });
        const expected = [...buckets(asInt64, ["id"], 1 << 20)];
        expect([...buckets(asInt32, ["id"], 1 << 20)]).toEqual(expected);
        expect([...buckets(asFloat, ["id"], 1 << 20)]).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  it("puts a millisecond and a microsecond timestamp of one instant in one bucket", () => {
    const ms = [0n, 1_704_067_200_123n, -86_400_000n];
    const timestamps = (type: TimestampMillisecond | TimestampMicrosecond, data: bigint[]) =>
      tableOf({ at: makeVector(makeData({ type, length: data.length, data: BigInt64Array.from(data) })) });
    const coarse = buckets(timestamps(new TimestampMillisecond("+02:00"), ms), ["at"], 1 << 24);
    const fine = buckets(
      timestamps(
        new TimestampMicrosecond("UTC"),
        ms.map((v) => v * 1000n),
      ),
      ["at"],
      1 << 24,
    );
    expect([...coarse]).toEqual([...fine]);
  });

  it("spreads 1M random keys over 16 buckets within 2% of uniform", () => {
    const rows = 1_000_000;
    const keys = new BigInt64Array(rows);
    let state = 0x2545f4914f6cdd1dn;
    for (let i = 0; i < rows; i++) {
      // xorshift64: a fixed, reproducible sequence of 64-bit keys.
      state ^= (state << 13n) & 0xffffffffffffffffn;
      state ^= state >> 7n;
      state ^= (state << 17n) & 0xffffffffffffffffn;
      keys[i] = BigInt.asIntN(64, state);
    }
    const data = tableOf({ id: makeVector(makeData({ type: new Int64(), length: rows, data: keys })) });
    const ids = buckets(data, ["id"], 16);
    const counts = new Array<number>(16).fill(0);
    for (const id of ids) counts[id] = (counts[id] as number) + 1;
    const uniform = rows / 16;
    for (const count of counts) expect(Math.abs(count - uniform) / uniform).toBeLessThan(0.02);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(rows);
  }, 60_000);

  it("gives the same ids in a child process running the built package", () => {
    const data = tableOf({
      id: vectorFromArray([1, 2, 3, null, 5, 2], new Int32()),
      name: vectorFromArray(["a", "b", null, null, "é", "b"], new Utf8()),
    });
    const script = `
      import { readFileSync } from "node:fs";
      import { Field, Int64, Schema, TimestampMicrosecond, Utf8, tableFromIPC } from "apache-arrow";
      import { tableKeyBuckets } from "./dist/index.js";
      const table = new Schema([
        new Field("id", new Int64(), false),
        new Field("name", new Utf8(), true),
        new Field("at", new TimestampMicrosecond("UTC"), true),
        new Field("pay", new Utf8(), true),
      ]);
      const data = tableFromIPC(readFileSync(0));
      process.stdout.write(JSON.stringify([...tableKeyBuckets(table, data, ["id", "name"], 1000, "t")]));
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: packageDir,
      input: tableToIPC(data, "stream"),
      encoding: "utf8",
    });
    expect(child.stderr).toBe("");
    expect(JSON.parse(child.stdout)).toEqual([...buckets(data, ["id", "name"], 1000)]);
  });

  it("accepts one RecordBatch and gives an empty Table no ids", () => {
    const data = tableOf({ id: vectorFromArray([7n, 8n], new Int64()) });
    expect([...buckets(firstBatch(data), ["id"], 3)]).toEqual([...buckets(data, ["id"], 3)]);
    expect(buckets(new Table(TABLE), ["id"], 3).length).toBe(0);
  });

  it("refuses bad arguments with typed errors", () => {
    const data = tableOf({
      id: vectorFromArray([1n], new Int64()),
      name: vectorFromArray(["a"], new Utf8()),
    });
    for (const n of [0, -1, 1.5, 2 ** 32, Number.NaN]) {
      expect(
        hasErrorKind(
          thrown(() => buckets(data, ["id"], n)),
          "invalid_argument",
        ),
        `n = ${n}`,
      ).toBe(true);
    }
    for (const keys of [[], [""], ["id", "id"]]) {
      expect(
        hasErrorKind(
          thrown(() => buckets(data, keys, 4)),
          "invalid_argument",
        ),
      ).toBe(true);
    }
    const unknown = thrown(() => buckets(data, ["nmae"], 4));
    expect(hasErrorKind(unknown, "invalid_argument")).toBe(true);
    expect((unknown as Error).message).toContain('did you mean "name"');
    const lacking = thrown(() => buckets(data, ["pay"], 4));
    expect(hasErrorKind(lacking, "schema_mismatch")).toBe(true);
    expect((lacking as Error).message).toContain("pay");
    const notArrow = thrown(() => tableKeyBuckets(TABLE, [1, 2] as never, ["id"], 4, "t"));
    expect(hasErrorKind(notArrow, "invalid_argument")).toBe(true);
    const inexact = thrown(() => buckets(tableOf({ id: vectorFromArray([1.5], new Float64()) }), ["id"], 4));
    expect(hasErrorKind(inexact, "schema_mismatch")).toBe(true);
  });
});
