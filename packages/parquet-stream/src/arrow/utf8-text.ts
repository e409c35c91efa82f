/**
 * Reading a Utf8 column's strings row after row. When every value byte is ASCII the bytes are decoded once as
 * a whole and each row's string sliced from that text (a byte is then one UTF-16 code unit); otherwise each
 * row is decoded alone. Cold upserts read their source's partition and key columns so: decoding row by row
 * took 8.5 ms of a 10k-row source's grouping by partition (merge-engine BENCHMARKS.md, session 32).
 */
import type { Data } from "apache-arrow";

const UTF8 = new TextDecoder();

/** Row `row`'s string of a Utf8 `data` (validity is the caller's: a NULL row reads as its bytes, ""). */
export function utf8Reader(data: Data): (row: number) => string {
  // apache-arrow slices the offsets to the Data's rows and keeps the value bytes whole.
  if (data.length === 0) return () => "";
  const offsets = data.valueOffsets as Int32Array;
  const values = (data.values as Uint8Array | undefined) ?? new Uint8Array(0);
  const first = offsets[0] as number;
  const bytes = values.subarray(first, offsets[data.length] as number);
  if (isAscii(bytes)) {
    const text = UTF8.decode(bytes);
    return (row) => text.slice((offsets[row] as number) - first, (offsets[row + 1] as number) - first);
  }
  return (row) => UTF8.decode(values.subarray(offsets[row] as number, offsets[row + 1] as number));
}

function isAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if ((bytes[i] as number) >= 0x80) return false;
  return true;
}

/**
 * `utf8Reader` remembered by column, for one operation that reads the same columns more than once (an upsert
 * reads its source's key column once per partition, at that partition's rows: each read would otherwise check
 * and decode the whole column again). Kept by the operation, never across calls: a column's bytes are the
 * caller's, who may change them between calls.
 */
export function utf8ReaderMemo(): (data: Data) => (row: number) => string {
  const readers = new Map<Data, (row: number) => string>();
  return (data) => {
    let reader = readers.get(data);
    if (reader === undefined) {
      reader = utf8Reader(data);
      readers.set(data, reader);
    }
    return reader;
  };
}
