/**
 * Owns the admission hook a reader consults before it holds bytes: compressed bytes it is about to fetch,
 * and decoded Arrow batches it is about to hand out. parquet-stream only asks and releases; the caller (the
 * merge engine's fetch and decode budgets) decides when to answer. Without a hook a reader admits itself.
 */
import type { Data, RecordBatch } from "apache-arrow";

/** Gives back what an admission granted (idempotent). */
export type Release = () => void;

export interface ReadAdmission {
  /** Resolves once `bytes` fetched bytes may be held; the release is called when the reader drops them. */
  admitFetch(bytes: number, signal?: AbortSignal): Promise<Release>;
  /** Resolves once a decoded batch of about `bytes` Arrow bytes may be held (released when the caller asks for the next batch). */
  admitDecode(bytes: number, signal?: AbortSignal): Promise<Release>;
}

/** Bytes of the Arrow buffers a batch references (values, offsets, validity, type ids; children included). */
export function recordBatchBytes(batch: RecordBatch): number {
  return dataBytes(batch.data as Data);
}

function dataBytes(data: Data): number {
  let bytes = 0;
  for (const buffer of [data.values, data.valueOffsets, data.nullBitmap, data.typeIds] as (
    | ArrayBufferView
    | undefined
  )[]) {
    bytes += buffer?.byteLength ?? 0;
  }
  for (const child of data.children ?? []) bytes += dataBytes(child as Data);
  return bytes;
}
