/**
 * Reading a partition column's value out of an Arrow vector as the typed `PartitionScalar` the codec
 * serialises: straight from the buffers, so int64, timestamps (the stored unit's count) and decimals
 * (the unscaled 128-bit value) stay exact. A reader for every row of a column (`partitionScalarReader`)
 * decodes an ASCII string column once instead of once a row.
 */
import { DeltaLiteError } from "@deltalite/errors";
import { decimal128At } from "@deltalite/parquet-stream";
import { type Data, Type, type Vector } from "apache-arrow";
import type { PartitionScalar } from "./values.js";

/** The typed scalar at `row` of a single-chunk partition column (null for a NULL). */
export function partitionScalarAt(vector: Vector, row: number): PartitionScalar {
  if (!vector.isValid(row)) return null;
  if (vector.data.length !== 1) {
    throw new DeltaLiteError("generic", "a partition column must be a single-chunk vector");
  }
  const data = vector.data[0] as Data;
  // Arrow slices keep `offset` for the validity bitmap but already start their value buffers at it.
  switch (vector.type.typeId) {
    case Type.Date:
      return (data.values as Int32Array)[row] as number;
    case Type.Timestamp:
      return (data.values as BigInt64Array)[row] as bigint;
    case Type.Decimal: {
      return decimal128At(data.values as Uint32Array, row);
    }
    default: {
      const value = vector.get(row) as unknown;
      if (
        typeof value === "string" ||
        typeof value === "number" ||
        typeof value === "bigint" ||
        typeof value === "boolean" ||
        value instanceof Uint8Array
      ) {
        return value;
      }
      throw new DeltaLiteError(
        "unsupported",
        `partition column of type ${String(vector.type)} is not supported`,
      );
    }
  }
}

/**
 * Reads `vector`'s rows as `partitionScalarAt` does. A Utf8 column whose bytes are all ASCII is decoded once
 * as a whole and each row's value sliced from that text (a byte is then a UTF-16 code unit): decoding row by
 * row through apache-arrow's `get` took 8.5 ms of a cold 10k-row upsert source's grouping (merge-engine
 * BENCHMARKS.md, session 32).
 */
export function partitionScalarReader(vector: Vector): (row: number) => PartitionScalar {
  const text = vector.type.typeId === Type.Utf8 && vector.data.length === 1 ? asciiText(vector) : undefined;
  if (text === undefined) return (row) => partitionScalarAt(vector, row);
  const offsets = (vector.data[0] as Data).valueOffsets as Int32Array;
  const first = offsets[0] as number;
  return (row) =>
    vector.isValid(row)
      ? text.slice((offsets[row] as number) - first, (offsets[row + 1] as number) - first)
      : null;
}

const utf8 = new TextDecoder();

/** A single-chunk Utf8 column's value bytes as one string, when every byte is ASCII (else undefined). */
function asciiText(vector: Vector): string | undefined {
  const data = vector.data[0] as Data;
  const offsets = data.valueOffsets as Int32Array;
  const bytes = (data.values as Uint8Array).subarray(offsets[0], offsets[data.length]);
  for (let i = 0; i < bytes.length; i++) if ((bytes[i] as number) >= 0x80) return undefined;
  return utf8.decode(bytes);
}
