/**
 * Which columns parquet-rs should not try to dictionary-encode. parquet-rs (like delta-rs's writer) starts
 * every column chunk with a dictionary and falls back to PLAIN only once the dictionary passes its page
 * limit (1 MiB). A fixed-width column of mostly distinct values (ids, timestamps, amounts, prices) never
 * reaches that limit in a row group of ordinary size, so it is hashed value by value into a dictionary as
 * large as the data, plus the indices: about a third of all encoding time in WebAssembly, for files no
 * faster to read (BENCHMARKS.md §5). The policy samples the stream's first batch: a top-level fixed-width
 * column whose sampled non-null values are more than half distinct is written PLAIN.
 *
 * A string or binary column is judged by the same sample and one more test: it is written PLAIN only when
 * it is mostly distinct and the dictionary of the first batch alone would pass parquet-rs's page limit
 * (the batch's estimated distinct values times their mean sampled length plus the 4-byte length prefix
 * parquet-rs counts). parquet-rs would then give the dictionary up anyway, after interning and writing a
 * megabyte of it per column chunk. A mostly distinct string column whose dictionary fits (UUID keys) keeps
 * the default: its PLAIN pages read slower in pyarrow than its dictionary pages (BENCHMARKS.md §5, lever 2;
 * §9 for long values). Booleans and nested columns keep the default. Values and statistics are the same
 * either way; only the page encoding differs.
 *
 * A stream whose first input is a passed-through file is judged on the decoded sample the unit carries
 * (`judgedFields` names the columns it must hold), or, on the native engine, by the encoder worker on the
 * same rows, which it decodes from the file itself (`judgeInWorker`; parquet-native's `plainColumns`, this
 * rule in Rust).
 */
import { type Data, type DataType, type Field, type RecordBatch, type Schema, Type } from "apache-arrow";
import { isPassthrough, type ParquetPassthrough } from "./passthrough-unit.js";

/** Rows of the first batch looked at (evenly spread over it). */
export const DICTIONARY_SAMPLE_ROWS = 256;
/** A column whose sampled non-null values are more than this share distinct is written PLAIN. */
export const MAX_DICTIONARY_DISTINCT_SHARE = 0.5;
/** Below this many sampled non-null values a column keeps the default (too few to judge). */
export const MIN_SAMPLED_VALUES = 32;
/**
 * parquet-rs's dictionary page limit (`WriterProperties::dictionary_page_size_limit`, 1 MiB by default, which
 * the writer keeps): a string column whose first batch's dictionary would pass it is written PLAIN.
 */
export const DICTIONARY_PAGE_LIMIT_BYTES = 1024 * 1024;
/** The bytes parquet-rs counts for each dictionary value besides its own: the PLAIN length prefix. */
const DICTIONARY_VALUE_PREFIX_BYTES = 4;

/** FNV-1a over a value's bytes: equal values give equal keys (a rare collision only keeps the default). */
function bytesKey(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

/** Whether columns of `type` are judged (top-level fixed-width, string or binary values). */
function isJudged(type: DataType): boolean {
  return isFixedWidth(type) || isByteArray(type);
}

/** Strings and binary values with offsets (views are not judged). */
function isByteArray(type: DataType): boolean {
  switch (type.typeId) {
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Binary:
    case Type.LargeBinary:
      return true;
    default:
      return false;
  }
}

/** Fixed-width values: numbers, dates, times, timestamps, durations, decimals, fixed-size binary. */
function isFixedWidth(type: DataType): boolean {
  switch (type.typeId) {
    case Type.Int:
    case Type.Float:
    case Type.Date:
    case Type.Time:
    case Type.Timestamp:
    case Type.Duration:
    case Type.Decimal:
    case Type.FixedSizeBinary:
      return true;
    default:
      return false;
  }
}

/** The fields of `schema` the policy judges: a sample that holds these columns judges like the whole rows. */
export function judgedFields(schema: Schema): Field[] {
  return schema.fields.filter((field) => isJudged(field.type));
}

/**
 * Row i's value is bytes [i·width, (i+1)·width) (undefined: the column is not judged). The width is the
 * type's (the values array's element size times its stride), not the buffer's length over the rows: a
 * builder's buffer is padded past its last value, and an Int8 column of 4,000 built values was never judged.
 */
function fixedWidthValues(data: Data): { bytes: Uint8Array; width: number } | undefined {
  if (!isFixedWidth(data.type)) return undefined;
  // Fixed-width values are sliced to the Data's rows: they start at its first row.
  const view = data.values as unknown as {
    buffer: ArrayBufferLike;
    byteOffset: number;
    BYTES_PER_ELEMENT: number;
  };
  const width = view.BYTES_PER_ELEMENT * data.stride;
  if (!Number.isInteger(width) || width === 0) return undefined;
  return { bytes: new Uint8Array(view.buffer, view.byteOffset, data.length * width), width };
}

function isValid(data: Data, i: number): boolean {
  const bitmap = data.nullBitmap;
  if (data.nullCount === 0 || !bitmap || bitmap.length === 0) return true;
  const at = data.offset + i;
  return ((bitmap[at >> 3]! >> (at & 7)) & 1) === 1;
}

/** Row i's bytes: [start, end) of `bytes`. */
interface ValueBytes {
  bytes: Uint8Array;
  start(i: number): number;
  end(i: number): number;
}

/** Row i's bytes of a judged column (undefined: not judged). Offsets are sliced to the Data's rows, values not. */
function valueBytes(data: Data): ValueBytes | undefined {
  const fixed = fixedWidthValues(data);
  if (fixed !== undefined) {
    const { bytes, width } = fixed;
    return { bytes, start: (i) => i * width, end: (i) => (i + 1) * width };
  }
  if (!isByteArray(data.type) || data.valueOffsets === undefined || data.values === undefined)
    return undefined;
  const offsets = data.valueOffsets as Int32Array | BigInt64Array;
  const values = data.values as Uint8Array;
  const at = (i: number) => Number(offsets[i]);
  return { bytes: values, start: at, end: (i) => at(i + 1) };
}

/** What the evenly spread sample of a column saw. */
interface Sampled {
  /** Rows looked at, NULLs included. */
  visited: number;
  /** Non-null values among them. */
  values: number;
  /** Distinct keys of those values. */
  distinct: number;
  /** Their bytes, summed. */
  bytes: number;
}

/** The evenly spread sample of `data`'s column: the rows the Rust rule visits, in the same float steps. */
function sample(data: Data, values: ValueBytes): Sampled {
  const step = Math.max(1, data.length / DICTIONARY_SAMPLE_ROWS);
  const seen = new Set<number>();
  const taken: Sampled = { visited: 0, values: 0, distinct: 0, bytes: 0 };
  for (let at = 0; at < data.length; at += step) {
    const i = Math.floor(at);
    taken.visited++;
    if (!isValid(data, i)) continue;
    taken.values++;
    const start = values.start(i);
    const end = values.end(i);
    taken.bytes += end - start;
    seen.add(bytesKey(values.bytes, start, end));
  }
  taken.distinct = seen.size;
  return taken;
}

/**
 * True when `data`'s column is written PLAIN: its sampled non-null values are mostly distinct, and for a
 * string column the first batch's dictionary would pass the page limit. The float arithmetic is the Rust
 * rule's, operation for operation, so the two agree on every batch.
 */
function writesPlain(data: Data): boolean {
  if (data.length === 0) return false;
  const values = valueBytes(data);
  if (values === undefined) return false;
  const taken = sample(data, values);
  const mostlyDistinct =
    taken.values >= MIN_SAMPLED_VALUES && taken.distinct > MAX_DICTIONARY_DISTINCT_SHARE * taken.values;
  if (!mostlyDistinct || !isByteArray(data.type)) return mostlyDistinct;
  const meanValueBytes = taken.bytes / taken.values + DICTIONARY_VALUE_PREFIX_BYTES;
  return (taken.distinct / taken.visited) * data.length * meanValueBytes >= DICTIONARY_PAGE_LIMIT_BYTES;
}

/** The top-level columns of `batch` to write without a dictionary. */
export function plainColumns(batch: RecordBatch): string[] {
  return batch.schema.fields
    .filter((_field, c) => writesPlain(batch.data.children[c] as Data))
    .map((field) => field.name);
}

/**
 * Passes `batches` through and records the plain columns of the first non-empty one (of a passed-through
 * file: of its decoded sample, when it carries one), unless the caller fixed them.
 */
export class DictionaryPolicy {
  #plain: readonly string[];
  #fixed: boolean;
  #inWorker: { batchRows: number } | undefined;

  constructor(fixed?: readonly string[]) {
    this.#plain = fixed ?? [];
    this.#fixed = fixed !== undefined;
  }

  /** The columns to write PLAIN (empty until the first rows went by). */
  get plainColumns(): readonly string[] {
    return this.#plain;
  }

  /**
   * Set when the first input was a passed-through file the encoder worker judges itself (`judgeInWorker`):
   * `plainColumns` is then empty here, and the worker's judgement holds.
   */
  get judgedInWorker(): { batchRows: number } | undefined {
    return this.#inWorker;
  }

  async *observe<T extends RecordBatch | ParquetPassthrough>(
    batches: AsyncIterable<T> | Iterable<T>,
  ): AsyncGenerator<T> {
    let judged = this.#fixed;
    for await (const batch of batches) {
      const input: RecordBatch | ParquetPassthrough = batch;
      if (!judged && isPassthrough(input) && input.judgeInWorker && input.sample === undefined) {
        this.#inWorker = input.judgeInWorker;
        judged = true;
      }
      const rows = judged ? undefined : isPassthrough(input) ? input.sample : input;
      if (rows && rows.numRows > 0) {
        this.#plain = plainColumns(rows);
        judged = true;
      }
      yield batch;
    }
  }
}
