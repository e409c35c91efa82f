/**
 * Test data shared by the key tests: per Delta key type a list of edge-case values (NULL included), and
 * composite keys mixing types and NULLs, as RecordBatches with exact bits.
 */
import type { RecordBatch } from "apache-arrow";
import { batchOf, column, type KeyTypeName, type KeyValue } from "./arrow-columns.js";

export const F32 = {
  zero: 0,
  negZero: 0x80000000,
  nan: 0x7fc00000,
  negNan: 0xffc00000,
  payloadNan: 0x7fc00001,
  inf: 0x7f800000,
  negInf: 0xff800000,
  oneHalf: 0x3fc00000,
  one: 0x3f800000,
};
export const F64 = {
  zero: 0n,
  negZero: 0x8000000000000000n,
  nan: 0x7ff8000000000000n,
  negNan: 0xfff8000000000000n,
  payloadNan: 0x7ff8000000000001n,
  inf: 0x7ff0000000000000n,
  negInf: 0xfff0000000000000n,
  oneHalf: 0x3ff8000000000000n,
  one: 0x3ff0000000000000n,
};
const enc = new TextEncoder();

export interface Case {
  name: string;
  columns: Array<[string, KeyTypeName, KeyValue[]]>;
}

export const singleColumnCases: Case[] = (
  [
    ["byte", [0, 1, -1, 127, -128, null]],
    ["short", [0, -1, 32767, -32768, 255, null]],
    ["integer", [0, -1, 2147483647, -2147483648, 65536, null]],
    ["long", [0n, -1n, 9223372036854775807n, -9223372036854775808n, 4294967296n, 4294967295n, null]],
    [
      "float",
      [F32.zero, F32.negZero, F32.nan, F32.negNan, F32.payloadNan, F32.inf, F32.negInf, F32.oneHalf, null],
    ],
    [
      "double",
      [F64.zero, F64.negZero, F64.nan, F64.negNan, F64.payloadNan, F64.inf, F64.negInf, F64.oneHalf, null],
    ],
    ["decimal(10,2)", [0n, 1n, -1n, 12345n, -12345n, 9999999999n, -9999999999n, null]],
    ["decimal(38,6)", [0n, 10n ** 37n, -(10n ** 37n), 123456789012345678901234567890n, 1n, null]],
    ["string", ["", "a", "a ", "A", "\u00e9", "e\u0301", "a\u0000", "\u{1F600}", "ab", null]],
    [
      "binary",
      [
        new Uint8Array(0),
        new Uint8Array([0]),
        new Uint8Array([0, 0]),
        new Uint8Array([0xff]),
        enc.encode("a"),
        null,
      ],
    ],
    ["boolean", [true, false, null]],
    ["date", [0, -1, 19000, -719162, 2932896, null]],
    ["timestamp", [0n, -1n, 1700000000000000n, -62135596800000000n, 1n, null]],
    ["timestamp_ntz", [0n, -1n, 1700000000123456n, 253402300799999999n, null]],
  ] as Array<[KeyTypeName, KeyValue[]]>
).map(([type, values]) => ({ name: type, columns: [["k", type, values]] }));

export const compositeCases: Case[] = [
  {
    name: "long + string with NULLs",
    columns: [
      ["k0", "long", [1n, 1n, 2n, 1n, null, null, 1n, 2n]],
      ["k1", "string", ["a", "b", "a", null, "a", null, "", "b"]],
    ],
  },
  {
    name: "string + string (length prefixes keep 'ab'+'c' apart from 'a'+'bc')",
    columns: [
      ["k0", "string", ["ab", "a", "", "abc", "a", null]],
      ["k1", "string", ["c", "bc", "abc", "", "bc\u0000", "x"]],
    ],
  },
  {
    name: "double + integer with -0.0, NaN and NULLs",
    columns: [
      ["k0", "double", [F64.zero, F64.negZero, F64.nan, F64.zero, F64.negNan, null, F64.inf]],
      ["k1", "integer", [1, 1, 1, null, 1, 1, 2]],
    ],
  },
  {
    name: "decimal + binary + timestamp",
    columns: [
      ["k0", "decimal(10,2)", [1n, 1n, -1n, 1n, null]],
      [
        "k1",
        "binary",
        [
          new Uint8Array([1]),
          new Uint8Array([1, 0]),
          new Uint8Array([1]),
          new Uint8Array([1]),
          new Uint8Array([1]),
        ],
      ],
      ["k2", "timestamp", [5n, 5n, 5n, -5n, 5n]],
    ],
  },
  {
    name: "boolean + date + float",
    columns: [
      ["k0", "boolean", [true, true, false, true, null]],
      ["k1", "date", [1, 1, 1, 2, 1]],
      ["k2", "float", [F32.zero, F32.negZero, F32.zero, F32.nan, F32.zero]],
    ],
  },
];

export function batchFor(c: Case): RecordBatch {
  return batchOf(c.columns.map(([name, type, values]) => [name, column(type, values)]));
}
