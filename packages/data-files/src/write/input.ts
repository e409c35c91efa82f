/**
 * Data in: an apache-arrow Table, RecordBatch, RecordBatchReader, or any (async) iterable of RecordBatches,
 * normalised to one async stream of our RecordBatches — with the first batch's schema available before the
 * stream is consumed (a missing table is created from it). Inputs are recognised by shape, so objects of
 * the app's own apache-arrow copy are accepted (adopted as ours, `arrow-adopt.ts`); anything else is a
 * `DeltaLiteInvalidArgumentError` saying what was given.
 */
import { DeltaLiteInvalidArgumentError } from "@deltalite/errors";
import type { RecordBatch, Schema, Table } from "apache-arrow";
import { ArrowAdopter, foreignArrowError } from "./arrow-adopt.js";
import {
  carriesArrowSchema,
  describeValue,
  isArrowRecordBatch,
  isArrowSchema,
  isArrowTable,
} from "./arrow-shape.js";

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

const EXPECTED = "an apache-arrow Table, RecordBatch, RecordBatchReader or (async) iterable of RecordBatches";

/** Normalises `data` and reads ahead at most one batch to learn its schema. */
export async function peekBatches(data: BatchSource): Promise<PeekedStream> {
  const adopt = new ArrowAdopter();
  // Checked first: a RecordBatch and a Table are also iterables (of rows).
  if (isArrowRecordBatch(data)) {
    const batch = adopt.batch(data, "the data");
    return { schema: batch.schema, batches: fromIterable([batch]) };
  }
  if (isArrowTable(data)) {
    const schema = adopt.schema(data.schema, "the data");
    return { schema, batches: fromIterable(data.batches.map((b, i) => tableBatch(adopt, b, i))) };
  }
  const iterator = toAsyncIterator(data);
  const known = (data as { schema?: unknown }).schema;
  const schema = isArrowSchema(known) ? adopt.schema(known, "the data's schema") : undefined;
  const first = await iterator.next();
  if (first.done) return { schema, batches: fromIterable([]) };
  // A reader of an unknown layout (its items not batches) is named by its schema's apache-arrow.
  const container = isArrowSchema(known) ? known : undefined;
  const head = itemBatch(adopt, first.value, 0, container);
  async function* rest(): AsyncIterable<RecordBatch> {
    yield head;
    let index = 1;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      yield itemBatch(adopt, next.value, index++, container);
    }
  }
  return { schema: schema ?? head.schema, batches: rest() };
}

function tableBatch(adopt: ArrowAdopter, batch: unknown, index: number): RecordBatch {
  if (!isArrowRecordBatch(batch)) throw notArrow(`batch ${index} of the Table is ${describeValue(batch)}`);
  return adopt.batch(batch, `batch ${index} of the Table`);
}

function itemBatch(adopt: ArrowAdopter, item: unknown, index: number, container?: object): RecordBatch {
  if (isArrowRecordBatch(item)) return adopt.batch(item, `item ${index} of the data`);
  if (carriesArrowSchema(item)) {
    throw foreignArrowError(
      item.schema,
      `item ${index} of the data`,
      "it is not a RecordBatch of a known layout",
    );
  }
  if (container) {
    throw foreignArrowError(
      container,
      "the data",
      `it is no Table, RecordBatch or reader of a layout deltalite reads (its item ${index} is ${describeValue(item)})`,
    );
  }
  throw new DeltaLiteInvalidArgumentError(
    `every item of the data iterable must be an apache-arrow RecordBatch; item ${index} is ${describeValue(item)}`,
  );
}

function notArrow(what: string): DeltaLiteInvalidArgumentError {
  return new DeltaLiteInvalidArgumentError(`data must be ${EXPECTED}; ${what}`);
}

function toAsyncIterator(data: unknown): AsyncIterator<unknown> {
  if (typeof data === "object" && data !== null) {
    if (Symbol.asyncIterator in data) return (data as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    if (Symbol.iterator in data) {
      const it = (data as Iterable<unknown>)[Symbol.iterator]();
      return { next: async () => it.next() };
    }
    if (carriesArrowSchema(data)) {
      throw foreignArrowError(
        data.schema,
        "the data",
        "it is neither a Table nor a RecordBatch of a known layout",
      );
    }
  }
  throw notArrow(`got ${describeValue(data)}`);
}

async function* fromIterable(batches: Iterable<RecordBatch>): AsyncIterable<RecordBatch> {
  yield* batches;
}
