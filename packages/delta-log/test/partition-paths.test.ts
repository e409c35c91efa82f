// Partition values and paths against delta-rs: for each partition type, delta-rs writes one row per
// value; our serialised partitionValues, Hive directory and encoded add.path must equal what it wrote.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  encodeActionPath,
  hivePartitionPath,
  type PartitionScalar,
  parsePartitionValue,
  serializePartitionValue,
} from "../src/partition/index.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-partition-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

interface Case {
  type: string;
  /** Values as the oracle op takes them (JSON-friendly). */
  wire: unknown[];
  /** The same values as our typed scalars. */
  typed: PartitionScalar[];
}

const hex = (s: string) => Uint8Array.from(Buffer.from(s, "hex"));

const STRING_VALUES = [
  "",
  null,
  "a/b",
  "sp ace",
  'quote"dq',
  "o'brien",
  "üñîçødé",
  "back\\slash",
  "a,b",
  "..",
  "%",
  "a=b",
  "!*()~-._",
  "tab\there",
];

const cases: Case[] = [
  // Strings travel to the oracle as they are: the wire form is the typed form.
  { type: "string", wire: STRING_VALUES, typed: STRING_VALUES },
  { type: "long", wire: [0, -1, 9007199254740991, null], typed: [0n, -1n, 9007199254740991n, null] },
  { type: "integer", wire: [-2147483648, 2147483647], typed: [-2147483648, 2147483647] },
  { type: "short", wire: [-32768, 7], typed: [-32768, 7] },
  { type: "byte", wire: [-128, 127], typed: [-128, 127] },
  {
    type: "double",
    wire: [1.0, 1.5, 1e20, 1e21, 1.5e-7, -0.0, "nan", "inf", "-inf", 0.1, 123456789.123, 1e-30],
    typed: [
      1.0,
      1.5,
      1e20,
      1e21,
      1.5e-7,
      -0.0,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      0.1,
      123456789.123,
      1e-30,
    ],
  },
  {
    type: "float",
    wire: [1.0, 0.1, 3.4e38, 1e-7, 16777217, 2.5],
    typed: [1.0, Math.fround(0.1), Math.fround(3.4e38), Math.fround(1e-7), Math.fround(16777217), 2.5],
  },
  { type: "boolean", wire: [true, false], typed: [true, false] },
  { type: "date", wire: [0, 20454, -25202, -1], typed: [0, 20454, -25202, -1] },
  {
    type: "timestamp",
    wire: [0, 1767225600123456, -1, -62135596800000000],
    typed: [0n, 1767225600123456n, -1n, -62135596800000000n],
  },
  { type: "timestamp_ntz", wire: [1767268800000000, 1], typed: [1767268800000000n, 1n] },
  {
    type: "decimal(10,2)",
    wire: ["12.30", "0.05", "99999999.99", "0.00"],
    typed: [1230n, 5n, 9999999999n, 0n],
  },
  {
    type: "decimal(38,10)",
    wire: ["1234567890123456789012345678.0123456789"],
    typed: [12345678901234567890123456780123456789n],
  },
  { type: "binary", wire: ["0001ff", "6162", ""], typed: [hex("0001ff"), hex("6162"), hex("")] },
];

describe("partition values and paths equal delta-rs's", () => {
  it.each(cases.map((c) => [c.type, c] as const))("%s", async (_name, c) => {
    const uri = path.join(tmp, c.type.replace(/[^a-z0-9]/g, "_"));
    // JSON has no NaN, ±Infinity or -0: those travel as strings and Python's float() reads them back.
    const wire = c.wire.map((v) =>
      v === "nan" ? Number.NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : v,
    );
    const result = await oracle.call<{
      adds: { path: string; partitionValues: { p: string | null }; rows: number[] }[];
      files: string[];
    }>("partition_layout", {
      uri,
      type: c.type,
      values: wire.map((v) =>
        typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0))
          ? Object.is(v, -0)
            ? "-0"
            : String(v)
          : v,
      ),
    });
    expect(result.adds.length).toBeGreaterThan(0);
    for (const add of result.adds) {
      for (const row of add.rows) {
        const ours = serializePartitionValue(c.typed[row]!, c.type);
        expect(ours, `value #${row}`).toBe(add.partitionValues.p);
      }
      const dir = hivePartitionPath(["p"], { p: add.partitionValues.p });
      const fileName = add.path.slice(add.path.lastIndexOf("/") + 1);
      expect(add.path).toBe(encodeActionPath(`${dir}/${fileName}`));
      expect(result.files).toContain(`${dir}/${fileName}`);
    }
  });

  it.each(cases.map((c) => [c.type, c] as const))("%s values survive serialise → parse", (_name, c) => {
    for (const value of c.typed) {
      const text = serializePartitionValue(value, c.type);
      const back = parsePartitionValue(text, c.type);
      if (c.type === "string" && value === "") expect(back).toBe("");
      // An empty binary serialises to "", which the protocol reads back as null.
      else if (value instanceof Uint8Array && value.length === 0) expect(back).toBe(null);
      else if (value instanceof Uint8Array) expect([...(back as Uint8Array)]).toEqual([...value]);
      else expect(Object.is(back, value) || back === value).toBe(true);
    }
  });

  it("parses Spark's spellings of partition values", () => {
    expect(parsePartitionValue("1.0E20", "double")).toBe(1e20);
    expect(parsePartitionValue("2021-01-01 08:00:00", "timestamp")).toBe(1609488000000000n);
    expect(parsePartitionValue("1970-01-01T00:00:00.000Z", "timestamp")).toBe(0n);
    expect(parsePartitionValue("2021-01-01T00:00:00+01:00", "timestamp")).toBe(1609455600000000n);
    expect(parsePartitionValue("", "integer")).toBe(null);
    expect(parsePartitionValue(null, "string")).toBe(null);
    expect(parsePartitionValue("1.5", "decimal(5,3)")).toBe(1500n);
    expect(() => parsePartitionValue("1.2345", "decimal(5,3)")).toThrow();
    expect(() => parsePartitionValue("abc", "long")).toThrow();
  });
});
