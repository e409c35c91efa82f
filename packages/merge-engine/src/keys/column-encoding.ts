/**
 * Owns the canonical byte form of ONE key column of an Arrow array: which values are equal as MERGE keys,
 * decided by what delta-rs 1.6.6 MERGE (DataFusion's join on `t.k = s.k`) does, as measured through the
 * oracle (test/key-equality-oracle.test.ts):
 *
 * - integers (8/16/32/64-bit, signed or unsigned), dates, times, durations, booleans: the value as a
 *   64-bit little-endian integer (sign- or zero-extended), so each such key is one 8-byte word;
 * - timestamps: the instant in microseconds (Delta's unit; seconds/milliseconds scale up exactly,
 *   nanoseconds truncate toward zero like an Arrow cast), whatever the time zone annotation;
 * - dates in milliseconds (Date64): whole days, like Delta's `date`;
 * - float32/float64/float16: the IEEE bits with -0.0 turned into +0.0 (MERGE matches -0.0 with 0.0) and
 *   every other bit pattern kept: a NaN matches only a NaN with the same bits (MERGE does the same), ±inf
 *   match themselves; float32/float16 bits are zero-extended to one 8-byte word;
 * - decimals (128/256-bit): the two's-complement unscaled value, 16/32 bytes (same type on both sides);
 * - fixed-size binary: its bytes; strings and binary: their bytes (no collation, no normalization);
 * - dictionary arrays: the canonical form of the looked-up value.
 *
 * A NULL has no canonical bytes; validity is reported separately.
 */

import { DeltaLiteError } from "@deltalite/errors";
import { type Data, DataType, TimeUnit } from "apache-arrow";

/** A column's keys as fixed-width cells: cell i is bytes[i*width, (i+1)*width). */
export interface FixedColumnEncoding {
  readonly kind: "fixed";
  readonly width: number;
  readonly bytes: Uint8Array;
  /** 8-byte keys only: the same memory as (lo, hi) word pairs. */
  readonly words: Uint32Array | undefined;
  /** 1 = valid, 0 = null; undefined when no value is null. */
  readonly validity: Uint8Array | undefined;
  readonly length: number;
  /** True when `bytes` is a new buffer (not a view of the Arrow column's values). */
  readonly copied: boolean;
}

/** A column's keys as byte ranges of one buffer: key i is bytes[offsets[i], offsets[i+1]). */
export interface VariableColumnEncoding {
  readonly kind: "variable";
  readonly bytes: Uint8Array;
  readonly offsets: Int32Array;
  readonly validity: Uint8Array | undefined;
  readonly length: number;
  /** True when `bytes`/`offsets` are new buffers (not views of the Arrow column's buffers). */
  readonly copied: boolean;
}

export type ColumnEncoding = FixedColumnEncoding | VariableColumnEncoding;

/** A short, stable description of how a column type encodes (two columns compare iff these are equal). */
export function keyTypeSignature(type: DataType): string {
  if (DataType.isDictionary(type)) return keyTypeSignature(type.dictionary);
  if (DataType.isInt(type) || DataType.isTime(type) || DataType.isDuration(type) || DataType.isBool(type)) {
    return "int";
  }
  if (DataType.isDate(type)) return "date";
  if (DataType.isTimestamp(type)) return "timestamp";
  if (DataType.isFloat(type)) return `float${type.precision}`;
  if (DataType.isDecimal(type)) return `decimal(${type.precision},${type.scale},${type.bitWidth})`;
  if (DataType.isFixedSizeBinary(type)) return `fixed(${type.byteWidth})`;
  if (DataType.isUtf8(type) || DataType.isLargeUtf8(type)) return "utf8";
  if (DataType.isBinary(type) || DataType.isLargeBinary(type)) return "binary";
  if (DataType.isNull(type)) return "null";
  throw unsupported(type);
}

function unsupported(type: DataType, column?: string): DeltaLiteError {
  const where = column === undefined ? "" : ` (column '${column}')`;
  return new DeltaLiteError(
    "unsupported",
    `primary-key columns of type ${String(type)} are not supported${where}`,
  );
}

/** Per-row validity (1/0) of an Arrow Data, or undefined when nothing is null. */
export function validityOf(data: Data): Uint8Array | undefined {
  if (DataType.isNull(data.type)) return new Uint8Array(data.length);
  if (data.nullCount === 0 || data.nullBitmap === undefined || data.nullBitmap.length === 0) return undefined;
  const bitmap = data.nullBitmap;
  const out = new Uint8Array(data.length);
  const offset = data.offset;
  for (let i = 0; i < data.length; i++) {
    const bit = offset + i;
    out[i] = ((bitmap[bit >> 3] as number) >> (bit & 7)) & 1;
  }
  return out;
}

function fixed8(
  words: Uint32Array,
  length: number,
  validity: Uint8Array | undefined,
  copied = true,
): FixedColumnEncoding {
  return {
    kind: "fixed",
    width: 8,
    bytes: new Uint8Array(words.buffer, words.byteOffset, length * 8),
    words,
    validity,
    length,
    copied,
  };
}

const MICROS_PER_UNIT: Record<number, bigint> = {
  [TimeUnit.SECOND]: 1_000_000n,
  [TimeUnit.MILLISECOND]: 1000n,
  [TimeUnit.MICROSECOND]: 1n,
};

/** Encodes one key column (an Arrow Data chunk) into its canonical cells. */
export function encodeColumn(data: Data, column?: string): ColumnEncoding {
  const type = data.type as DataType;
  const length = data.length;
  const validity = validityOf(data);

  if (DataType.isDictionary(type)) return encodeDictionary(data, validity, column);
  if (DataType.isNull(type)) return fixed8(new Uint32Array(2 * length), length, validity);

  if (DataType.isInt(type) || DataType.isTime(type) || DataType.isDuration(type) || DataType.isDate(type)) {
    const values = data.values as
      | Int8Array
      | Int16Array
      | Int32Array
      | Uint8Array
      | Uint16Array
      | Uint32Array
      | BigInt64Array
      | BigUint64Array;
    if (DataType.isDate(type) && values instanceof BigInt64Array) {
      // Date64 (milliseconds) compares as Delta `date`: whole days since the epoch.
      const words = new Uint32Array(2 * length);
      const out = new BigInt64Array(words.buffer);
      for (let i = 0; i < length; i++) {
        const ms = values[i] as bigint;
        let days = ms / 86_400_000n;
        if (ms % 86_400_000n < 0n) days -= 1n;
        out[i] = days;
      }
      return fixed8(words, length, validity);
    }
    if (values instanceof BigInt64Array || values instanceof BigUint64Array) {
      return fixed8(new Uint32Array(values.buffer, values.byteOffset, 2 * length), length, validity, false);
    }
    const words = new Uint32Array(2 * length);
    const signed = !(
      values instanceof Uint8Array ||
      values instanceof Uint16Array ||
      values instanceof Uint32Array
    );
    for (let i = 0; i < length; i++) {
      const v = values[i] as number;
      words[2 * i] = v >>> 0;
      words[2 * i + 1] = signed && v < 0 ? 0xffffffff : 0;
    }
    return fixed8(words, length, validity);
  }

  if (DataType.isTimestamp(type)) {
    const values = data.values as BigInt64Array;
    if (type.unit === TimeUnit.MICROSECOND) {
      return fixed8(new Uint32Array(values.buffer, values.byteOffset, 2 * length), length, validity, false);
    }
    const words = new Uint32Array(2 * length);
    const out = new BigInt64Array(words.buffer);
    if (type.unit === TimeUnit.NANOSECOND) {
      for (let i = 0; i < length; i++) out[i] = (values[i] as bigint) / 1000n; // truncates toward zero
    } else {
      const scale = MICROS_PER_UNIT[type.unit] as bigint;
      for (let i = 0; i < length; i++) out[i] = BigInt.asIntN(64, (values[i] as bigint) * scale);
    }
    return fixed8(words, length, validity);
  }

  if (DataType.isBool(type)) {
    const bits = data.values as Uint8Array;
    const words = new Uint32Array(2 * length);
    const offset = data.offset;
    for (let i = 0; i < length; i++) {
      const bit = offset + i;
      words[2 * i] = ((bits[bit >> 3] as number) >> (bit & 7)) & 1;
    }
    return fixed8(words, length, validity);
  }

  if (DataType.isFloat(type)) {
    const values = data.values as Uint16Array | Float32Array | Float64Array;
    if (values instanceof Float64Array) {
      const source = new Uint32Array(values.buffer, values.byteOffset, 2 * length);
      const words = new Uint32Array(2 * length);
      for (let i = 0; i < 2 * length; i += 2) {
        const lo = source[i] as number;
        const hi = source[i + 1] as number;
        words[i] = lo;
        words[i + 1] = lo === 0 && hi === 0x80000000 ? 0 : hi; // -0.0 == 0.0
      }
      return fixed8(words, length, validity);
    }
    const bits =
      values instanceof Float32Array
        ? new Uint32Array(values.buffer, values.byteOffset, length)
        : (values as Uint16Array);
    const negativeZero = values instanceof Float32Array ? 0x80000000 : 0x8000;
    const words = new Uint32Array(2 * length);
    for (let i = 0; i < length; i++) {
      const b = bits[i] as number;
      words[2 * i] = b === negativeZero ? 0 : b;
    }
    return fixed8(words, length, validity);
  }

  if (DataType.isDecimal(type) || DataType.isFixedSizeBinary(type)) {
    const values = data.values as Uint32Array | Uint8Array;
    const width = DataType.isDecimal(type) ? type.bitWidth / 8 : type.byteWidth;
    const bytes = new Uint8Array(values.buffer, values.byteOffset, length * width);
    return { kind: "fixed", width, bytes, words: undefined, validity, length, copied: false };
  }

  if (DataType.isUtf8(type) || DataType.isBinary(type)) {
    return {
      kind: "variable",
      bytes: data.values as Uint8Array,
      offsets: data.valueOffsets as Int32Array,
      validity,
      length,
      copied: false,
    };
  }
  if (DataType.isLargeUtf8(type) || DataType.isLargeBinary(type)) {
    const wide = data.valueOffsets as unknown as BigInt64Array;
    const offsets = new Int32Array(length + 1);
    for (let i = 0; i <= length; i++) {
      const o = Number(wide[i] as bigint);
      if (o > 0x7fffffff)
        throw new DeltaLiteError("unsupported", "a primary-key column holds more than 2 GiB of bytes");
      offsets[i] = o;
    }
    return { kind: "variable", bytes: data.values as Uint8Array, offsets, validity, length, copied: true };
  }
  throw unsupported(type, column);
}

function encodeDictionary(data: Data, validity: Uint8Array | undefined, column?: string): ColumnEncoding {
  const dictionary = data.dictionary;
  if (dictionary === undefined) throw unsupported(data.type, column);
  // A row is a valid key when its index is valid AND the value it looks up is valid.
  const indices = data.values as ArrayLike<number>;
  const effective = validity === undefined ? new Uint8Array(data.length).fill(1) : Uint8Array.from(validity);
  let anyNull = validity !== undefined;
  for (let i = 0; i < data.length; i++) {
    if (effective[i] === 1 && !dictionary.isValid(indices[i] as number)) {
      effective[i] = 0;
      anyNull = true;
    }
  }
  const encoded = encodeDictionaryPlain(data, effective, column);
  return anyNull ? encoded : { ...encoded, validity: undefined };
}

function encodeDictionaryPlain(data: Data, validity: Uint8Array, column?: string): ColumnEncoding {
  const dictionary = data.dictionary as NonNullable<Data["dictionary"]>;
  const indices = data.values as ArrayLike<number>;
  const chunks = dictionary.data.map((chunk) => encodeColumn(chunk as Data, column));
  const starts: number[] = [];
  let total = 0;
  for (const chunk of chunks) {
    starts.push(total);
    total += chunk.length;
  }
  const locate = (index: number): [ColumnEncoding, number] => {
    let c = chunks.length - 1;
    while (c > 0 && (starts[c] as number) > index) c--;
    return [chunks[c] as ColumnEncoding, index - (starts[c] as number)];
  };
  const length = data.length;
  const first = chunks[0];
  if (first === undefined) {
    // An empty dictionary: every row is null.
    const words = new Uint32Array(2 * length);
    return {
      kind: "fixed",
      width: 8,
      bytes: new Uint8Array(words.buffer),
      words,
      validity,
      length,
      copied: true,
    };
  }
  if (first.kind === "fixed") {
    const width = first.width;
    const bytes = new Uint8Array(length * width);
    for (let i = 0; i < length; i++) {
      if (validity[i] === 0) continue;
      const [chunk, at] = locate(indices[i] as number);
      bytes.set(chunk.bytes.subarray(at * width, at * width + width), i * width);
    }
    const words = width === 8 ? new Uint32Array(bytes.buffer, 0, 2 * length) : undefined;
    return { kind: "fixed", width, bytes, words, validity, length, copied: true };
  }
  const offsets = new Int32Array(length + 1);
  let size = 0;
  for (let i = 0; i < length; i++) {
    if (validity[i] !== 0) {
      const [chunk, at] = locate(indices[i] as number);
      const c = chunk as VariableColumnEncoding;
      size += (c.offsets[at + 1] as number) - (c.offsets[at] as number);
    }
    offsets[i + 1] = size;
  }
  const bytes = new Uint8Array(size);
  for (let i = 0; i < length; i++) {
    if (validity[i] === 0) continue;
    const [chunk, at] = locate(indices[i] as number);
    const c = chunk as VariableColumnEncoding;
    bytes.set(c.bytes.subarray(c.offsets[at] as number, c.offsets[at + 1] as number), offsets[i] as number);
  }
  return { kind: "variable", bytes, offsets, validity, length, copied: true };
}
