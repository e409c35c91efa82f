// The §7 JSON encoding of Arrow values. Parity: a pyarrow-written type matrix (every primitive, decimals,
// timestamps at s/ms/us/ns with and without zone, binary, nested struct/list/map) read by our Parquet
// reader and encoded by batchToJsonRows equals the rows tools/oracle/ops_scan.py encodes from pyarrow's read of
// the same file, value for value. Then the rules SPEC §7 spells out, one example each; NDJSON's one int64 rule
// (always an exact number); exact JSON text (stringifyExact, compactJsonText: property-tested against
// JSON.stringify); CSV cells (RFC 4180 quoting, null vs empty string, nested values as JSON).
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { openParquetReader } from "@deltalite/parquet-stream";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Field,
  Float32,
  Float64,
  Int32,
  Int64,
  List,
  Map_,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  TimestampMicrosecond,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  batchToCsv,
  batchToJsonRows,
  batchToNdjson,
  compactJsonText,
  csvHeader,
  type JsonValue,
  RawJson,
  stringifyExact,
} from "../src/json/index.js";
import { fieldsOf, type ScanRows } from "./scan-helpers.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-json-"));
});
afterAll(async () => {
  oracle?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

describe("JSON encoding parity with the Python encoder over pyarrow's reading", () => {
  it.each([
    ["dictionary pages", { use_dictionary: true, seed: 3 }],
    ["plain pages, V2", { use_dictionary: false, data_page_version: "2.0", seed: 4 }],
  ])("type matrix (%s)", async (_label, options) => {
    const file = path.join(tmp, `matrix-${options.seed}.parquet`);
    await oracle.call("parquet_write_type_matrix", { path: file, rows: 400, ...options });
    const expected = await oracle.call<ScanRows>("scan_read_file", { path: file, format: "parquet" });
    const store = new LocalFileStore(tmp);
    const reader = await openParquetReader(store, path.basename(file), { size: (await fs.stat(file)).size });
    const rows: { [k: string]: JsonValue }[] = [];
    for await (const batch of reader.readRowGroups()) for (const r of batchToJsonRows(batch)) rows.push(r);
    expect(fieldsOf(reader.arrowSchema)).toEqual(expected.fields);
    expect(rows.length).toBe(expected.rows.length);
    for (let i = 0; i < rows.length; i++) expect(rows[i], `row ${i}`).toEqual(expected.rows[i]);
  });
});

function batchOf(fields: Field[], columns: ReturnType<typeof makeData>[]): RecordBatch {
  const length = columns[0]!.length;
  return new RecordBatch(
    new Schema(fields),
    makeData({ type: new Struct(fields), length, nullCount: 0, children: columns }),
  );
}

function decimalWords(values: bigint[]): Uint32Array {
  const words = new Uint32Array(values.length * 4);
  values.forEach((v, i) => {
    const u = BigInt.asUintN(128, v);
    for (let k = 0; k < 4; k++) words[i * 4 + k] = Number((u >> BigInt(32 * k)) & 0xffffffffn);
  });
  return words;
}

describe("the §7 rules, one example each", () => {
  it("int64 is a number when safe, else a string", () => {
    const type = new Int64();
    const data = makeData({
      type,
      data: BigInt64Array.of(9007199254740991n, -9007199254740991n, 9007199254740992n, -(2n ** 63n)),
    });
    expect(batchToJsonRows(batchOf([new Field("v", type)], [data])).map((r) => r.v)).toEqual([
      9007199254740991,
      -9007199254740991,
      "9007199254740992",
      "-9223372036854775808",
    ]);
  });

  it("NaN and infinities are strings; float32 prints its shortest decimal", () => {
    const f64 = makeData({
      type: new Float64(),
      data: Float64Array.of(Number.NaN, Infinity, -Infinity, 1.5),
    });
    const f32 = makeData({ type: new Float32(), data: Float32Array.of(0.1, Number.NaN, 3e38, -2.5) });
    const rows = batchToJsonRows(
      batchOf([new Field("d", new Float64()), new Field("f", new Float32())], [f64, f32]),
    );
    expect(rows).toEqual([
      { d: "NaN", f: 0.1 },
      { d: "Infinity", f: "NaN" },
      { d: "-Infinity", f: 3e38 },
      { d: 1.5, f: -2.5 },
    ]);
  });

  it("decimals are exact strings with the scale's fraction digits", () => {
    const type = new Decimal(2, 10, 128);
    const wide = new Decimal(10, 38, 128);
    const a = makeData({ type, data: decimalWords([1230n, -1n, 0n]) });
    const b = makeData({
      type: wide,
      data: decimalWords([12345678901234567890123456789012345678n, -10000000000n, 5n]),
    });
    expect(batchToJsonRows(batchOf([new Field("a", type), new Field("b", wide)], [a, b]))).toEqual([
      { a: "12.30", b: "1234567890123456789012345678.9012345678" },
      { a: "-0.01", b: "-1.0000000000" },
      { a: "0.00", b: "0.0000000005" },
    ]);
  });

  it("dates, timestamps (Z only with a zone), binary as base64", () => {
    const date = makeData({ type: new DateDay(), data: Int32Array.of(0, -1, 2932896) });
    const utc = makeData({
      type: new TimestampMicrosecond("UTC"),
      data: BigInt64Array.of(1_700_000_000_123_456n, -1n, 253402300799999999n),
    });
    const ntz = makeData({
      type: new TimestampMicrosecond(null),
      data: BigInt64Array.of(0n, 1n, -62135596800000000n),
    });
    const bin = makeData({
      type: new Binary(),
      valueOffsets: Int32Array.of(0, 2, 2, 5),
      data: Uint8Array.of(0, 255, 104, 105, 33),
    });
    const fields = [
      new Field("d", new DateDay()),
      new Field("ts", new TimestampMicrosecond("UTC")),
      new Field("ntz", new TimestampMicrosecond(null)),
      new Field("b", new Binary()),
    ];
    expect(batchToJsonRows(batchOf(fields, [date, utc, ntz, bin]))).toEqual([
      { d: "1970-01-01", ts: "2023-11-14T22:13:20.123456Z", ntz: "1970-01-01T00:00:00.000000", b: "AP8=" },
      { d: "1969-12-31", ts: "1969-12-31T23:59:59.999999Z", ntz: "1970-01-01T00:00:00.000001", b: "" },
      { d: "9999-12-31", ts: "9999-12-31T23:59:59.999999Z", ntz: "0001-01-01T00:00:00.000000", b: "aGkh" },
    ]);
  });

  it("maps are objects with string keys, else arrays of {key, value}; nulls stay null", () => {
    const byName = vectorFromArray(
      [new Map([["a", 1]]), null, new Map<string, number>()],
      new Map_(
        new Field(
          "entries",
          new Struct([new Field("key", new Utf8(), false), new Field("value", new Int32())]),
        ),
      ),
    );
    const byNumber = vectorFromArray(
      [new Map([[7, "x"]]), new Map([[-1, null]]), null],
      new Map_(
        new Field(
          "entries",
          new Struct([new Field("key", new Int32(), false), new Field("value", new Utf8())]),
        ),
      ),
    );
    const batch = batchOf(
      [new Field("m", byName.type), new Field("n", byNumber.type)],
      [byName.data[0]!, byNumber.data[0]!],
    );
    expect(batchToJsonRows(batch)).toEqual([
      { m: { a: 1 }, n: [{ key: 7, value: "x" }] },
      { m: null, n: [{ key: -1, value: null }] },
      { m: {}, n: null },
    ]);
    expect(batchToNdjson(batch).split("\n")).toEqual([
      '{"m":{"a":1},"n":[{"key":7,"value":"x"}]}',
      '{"m":null,"n":[{"key":-1,"value":null}]}',
      '{"m":{},"n":null}',
      "",
    ]);
  });
});

describe("NDJSON: int64 is always an exact JSON number", () => {
  it("top level and nested, safe or not: digits as they are", () => {
    const type = new Int64();
    const data = makeData({ type, data: BigInt64Array.of(9007199254740993n, 1n, -(2n ** 63n)) });
    const list = vectorFromArray([[9007199254740993n], [], null], new List(new Field("item", new Int64())));
    const batch = batchOf([new Field("v", type), new Field("l", list.type)], [data, list.data[0]!]);
    expect(batchToNdjson(batch).split("\n")).toEqual([
      '{"v":9007199254740993,"l":[9007199254740993]}',
      '{"v":1,"l":[]}',
      '{"v":-9223372036854775808,"l":null}',
      "",
    ]);
    // batchToJsonRows (JS values) keeps the §7 split: a string where a number would lose digits.
    expect(batchToJsonRows(batch)[0]).toEqual({ v: "9007199254740993", l: ["9007199254740993"] });
  });

  it("equals JSON.stringify of batchToJsonRows when every int64 is safe (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.maxSafeInteger(), fc.option(fc.string(), { nil: null })), { maxLength: 30 }),
        (rows) => {
          const batch = batchOf(
            [new Field("i", new Int64()), new Field("s", new Utf8())],
            [
              makeData({ type: new Int64(), data: BigInt64Array.from(rows.map(([i]) => BigInt(i))) }),
              vectorFromArray(
                rows.map(([, s]) => s),
                new Utf8(),
              ).data[0]!,
            ],
          );
          const expected = batchToJsonRows(batch).map((r) => `${JSON.stringify(r)}\n`);
          expect(batchToNdjson(batch)).toBe(expected.join(""));
        },
      ),
      { seed: 16, numRuns: 200 },
    );
  });
});

describe("exact JSON text", () => {
  it("stringifyExact: RawJson verbatim, bigints exact, toJSON, undefined left out — else JSON.stringify", () => {
    const value = {
      a: new RawJson('{"n":9007199254740993}'),
      b: 12345678901234567890n,
      c: undefined,
      d: [undefined],
    };
    expect(stringifyExact(value)).toBe('{"a":{"n":9007199254740993},"b":12345678901234567890,"d":[null]}');
    expect(stringifyExact({ when: new Date(0), x: Number.NaN })).toBe(
      '{"when":"1970-01-01T00:00:00.000Z","x":null}',
    );
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(stringifyExact(v)).toBe(JSON.stringify(v));
      }),
      { seed: 16, numRuns: 300 },
    );
  });

  it("compactJsonText drops whitespace between tokens only; not JSON → undefined", () => {
    expect(compactJsonText('{ "a b" : [1, 9007199254740993 ,\n "x  y"] }')).toBe(
      '{"a b":[1,9007199254740993,"x  y"]}',
    );
    expect(compactJsonText('{"q":"\\\\ \\" " }')).toBe('{"q":"\\\\ \\" "}');
    expect(compactJsonText("{not json")).toBeUndefined();
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(compactJsonText(JSON.stringify(v, null, 2))).toBe(JSON.stringify(v));
      }),
      { seed: 16, numRuns: 300 },
    );
  });
});

describe("CSV cells", () => {
  it("header; RFC 4180 quoting; null empty, empty string quoted; numbers, booleans, nested as JSON", () => {
    const s = vectorFromArray(['a,b "c"', "", null, "line\nbreak"], new Utf8());
    const b = vectorFromArray([true, false, null, true], new Bool());
    const i = makeData({ type: new Int64(), data: BigInt64Array.of(9007199254740993n, 0n, -1n, 2n) });
    const l = vectorFromArray([[1n, 2n], [], null, [3n]], new List(new Field("item", new Int64())));
    const fields = [
      new Field("s", new Utf8()),
      new Field("b", new Bool()),
      new Field("i,d", new Int64()),
      new Field("l", l.type),
    ];
    const batch = batchOf(fields, [s.data[0]!, b.data[0]!, i, l.data[0]!]);
    expect(csvHeader(batch.schema)).toBe('s,b,"i,d",l\r\n');
    expect(batchToCsv(batch)).toBe(
      [
        '"a,b ""c""",true,9007199254740993,"[1,2]"',
        '"",false,0,[]',
        ",,-1,",
        '"line\nbreak",true,2,[3]',
        "",
      ].join("\r\n"),
    );
  });
});
