/**
 * Which columns parquet-rs should not try to dictionary-encode. parquet-rs (like delta-rs's writer) starts
 * every column chunk with a dictionary and falls back to PLAIN only once the dictionary passes its page
 * limit (1 MiB). A fixed-width column of mostly distinct values (ids, timestamps, amounts, prices) never
 * reaches that limit in a row group of ordinary size, so it is hashed value by value into a dictionary as
 * large as the data, plus the indices: about a third of all encoding time in WebAssembly, for files no
 * faster to read (BENCHMARKS.md §5). The policy samples the stream's first batch: a top-level fixed-width
 * column whose sampled non-null values are more than half distinct is written PLAIN. Strings and binary
 * keep parquet-rs's default (their PLAIN pages read slower in pyarrow than the dictionary-then-fallback
 * pages, measured), as do booleans and nested columns. Values and statistics are the same either way; only
 * the page encoding differs. A stream whose first input is a passed-through file is judged on the decoded
 * sample the unit carries (`judgedFields` names the columns it must hold), or, on the native engine, by the
 * encoder worker on the same rows, which it decodes from the file itself (`judgeInWorker`; parquet-native's
 * `plainColumns`, this rule in Rust).
 */
import { type Data, type DataType, type Field, type RecordBatch, type Schema, Type } from "apache-arrow";
import { isPassthrough, type ParquetPassthrough } from "./passthrough-unit.js";

/** Rows of the first batch looked at (evenly spread over it). */
export const DICTIONARY_SAMPLE_ROWS = 256;
/** A column whose sampled non-null values are more than this share distinct is written PLAIN. */
export const MAX_DICTIONARY_DISTINCT_SHARE = 0.5;
/** Below this many sampled non-null values a column keeps the default (too few to judge). */
export const MIN_SAMPLED_VALUES = 32;

/** FNV-1a over a value's bytes: equal values give equal keys (a rare collision only keeps the default). */
function bytesKey(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  return hash >>> 0;
}

/** Whether columns of `type` are judged (top-level fixed-width values). */
function isJudged(type: DataType): boolean {
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
  if (!isJudged(data.type)) return undefined;
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

/** True when the sampled non-null values of `data` are mostly distinct. */
function mostlyDistinct(data: Data): boolean {
  if (data.length === 0) return false;
  const values = fixedWidthValues(data);
  if (values === undefined) return false;
  const { bytes, width } = values;
  const step = Math.max(1, data.length / DICTIONARY_SAMPLE_ROWS);
  const seen = new Set<number>();
  let sampled = 0;
  for (let at = 0; at < data.length; at += step) {
    const i = Math.floor(at);
    if (!isValid(data, i)) continue;
    sampled++;
    seen.add(bytesKey(bytes, i * width, (i + 1) * width));
  }
  return sampled >= MIN_SAMPLED_VALUES && seen.size > MAX_DICTIONARY_DISTINCT_SHARE * sampled;
}

/** The top-level fixed-width columns of `batch` to write without a dictionary. */
export function plainColumns(batch: RecordBatch): string[] {
  return batch.schema.fields
    .filter((_field, c) => mostlyDistinct(batch.data.children[c] as Data))
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
