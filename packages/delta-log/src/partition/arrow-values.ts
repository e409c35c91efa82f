/**
 * Reading a partition column's value out of an Arrow vector as the typed `PartitionScalar` the codec
 * serialises: straight from the buffers, so int64, timestamps (the stored unit's count) and decimals
 * (the unscaled 128-bit value) stay exact.
 */
import { DeltaLiteError } from "@deltalite/errors";
import { decimal128At, utf8Reader } from "@deltalite/parquet-stream";
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
 * Reads `vector`'s rows as `partitionScalarAt` does; a Utf8 column through parquet-stream's `utf8Reader`,
 * which decodes an all-ASCII column once instead of once a row.
 */
export function partitionScalarReader(vector: Vector): (row: number) => PartitionScalar {
  if (vector.type.typeId !== Type.Utf8 || vector.data.length !== 1) {
    return (row) => partitionScalarAt(vector, row);
  }
  const data = vector.data[0] as Data;
  const read = utf8Reader(data);
  return data.nullCount === 0 ? read : (row) => (data.getValid(row) ? read(row) : null);
}
