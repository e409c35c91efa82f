/**
 * Data in: an apache-arrow Table, RecordBatch, RecordBatchReader, or any (async) iterable of RecordBatches,
 * normalised to one async stream of batches — with the first batch's schema available before the stream is
 * consumed (a missing table is created from it).
 */
import { DeltaLiteError } from "@deltalite/errors";
import { RecordBatch, type Schema, Table } from "apache-arrow";

export type BatchSource =
  | Table
  | RecordBatch
  | AsyncIterable<RecordBatch>
  | Iterable<RecordBatch>
  | { schema: Schema; [Symbol.asyncIterator](): AsyncIterator<RecordBatch> };

export interface PeekedStream {
  /** Schema of the data (from a Table/reader, else from the first batch); undefined for an empty iterable. */
  schema: Schema | undefined;
  batches: AsyncIterable<RecordBatch>;
}

/** Normalises `data` and reads ahead at most one batch to learn its schema. */
export async function peekBatches(data: BatchSource): Promise<PeekedStream> {
  if (data instanceof Table) return { schema: data.schema, batches: fromIterable(data.batches) };
  if (data instanceof RecordBatch) return { schema: data.schema, batches: fromIterable([data]) };
  const known = (data as { schema?: unknown }).schema;
  const iterator = toAsyncIterator(data);
  const first = await iterator.next();
  if (first.done) {
    return { schema: isSchema(known) ? known : undefined, batches: fromIterable([]) };
  }
  if (!(first.value instanceof RecordBatch)) {
    throw new DeltaLiteError(
      "generic",
      "data must be an Arrow Table, RecordBatch, RecordBatchReader or iterable of RecordBatches",
    );
  }
  const head = first.value;
  async function* rest(): AsyncIterable<RecordBatch> {
    yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      if (!(next.value instanceof RecordBatch)) {
        throw new DeltaLiteError("generic", "every item of the data iterable must be an Arrow RecordBatch");
      }
      yield next.value;
    }
  }
  return { schema: isSchema(known) ? known : head.schema, batches: rest() };
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && Array.isArray((value as Schema).fields);
}

function toAsyncIterator(data: object): AsyncIterator<RecordBatch> {
  if (Symbol.asyncIterator in data) return (data as AsyncIterable<RecordBatch>)[Symbol.asyncIterator]();
  if (Symbol.iterator in data) {
    const it = (data as Iterable<RecordBatch>)[Symbol.iterator]();
    return { next: async () => it.next() };
  }
  throw new DeltaLiteError(
    "generic",
    "data must be an Arrow Table, RecordBatch, RecordBatchReader or iterable of RecordBatches",
  );
}

async function* fromIterable(batches: Iterable<RecordBatch>): AsyncIterable<RecordBatch> {
  yield* batches;
}
