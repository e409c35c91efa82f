/**
 * The Z-order sort of one partition's rows in bounded memory. Batches are buffered with their keys until
 * `maxSortBytes` of decoded Arrow bytes are held; a partition that fits is sorted in memory and streamed out.
 * Otherwise each full buffer is sorted and spilled as a run (spill.ts), and the runs are merged by a k-way
 * merge on the key — at most `MERGE_FAN_IN` runs at once, each contributing one small batch, so consecutive
 * groups of runs are first merged into longer runs when there are more. Ties keep input order (the in-memory
 * sort is stable, runs are consecutive stretches of the input, and the merge prefers the earlier run), so the
 * external path yields exactly the rows, in exactly the order, of the in-memory one.
 */
import { recordBatchBytes } from "@deltalite/parquet-stream";
import type { RecordBatch, Schema } from "apache-arrow";
import { gatherRows } from "./gather.js";
import { heapPop, heapPush, siftDown } from "./heap.js";
import { type KeyedBatch, readRun, type SpillArea, type SpilledRun } from "./spill.js";
import { compareKeys, VALUE_BYTES, zOrderKeys } from "./z-key.js";

/** Runs merged at once. */
export const MERGE_FAN_IN = 16;
const MIN_SPILL_ROWS = 16;

export interface ZOrderSortOptions {
  /** The batches' schema (the data-file schema). */
  schema: Schema;
  /** Positions of the Z-order columns in `schema`. */
  columnIndices: readonly number[];
  /** Decoded bytes buffered before a run is spilled. */
  maxSortBytes: number;
  /** Rows per output batch. */
  outputBatchRows: number;
  spill: SpillArea;
}

/** `source`'s rows in Z-order (see the module comment). */
export async function* zOrderSorted(
  source: AsyncIterable<RecordBatch>,
  options: ZOrderSortOptions,
): AsyncGenerator<RecordBatch> {
  const width = (VALUE_BYTES * options.columnIndices.length) / 4;
  let buffer: KeyedBatch[] = [];
  let bytes = 0;
  let rows = 0;
  const runs: SpilledRun[] = [];
  let spillRows = options.outputBatchRows;
  for await (const batch of source) {
    if (batch.numRows === 0) continue;
    buffer.push({ batch, keys: zOrderKeys(batch, options.columnIndices) });
    bytes += recordBatchBytes(batch);
    rows += batch.numRows;
    if (bytes >= options.maxSortBytes) {
      spillRows = spillRowsFor(options.maxSortBytes, bytes / rows, options.outputBatchRows);
      runs.push(await options.spill.writeRun(sortedChunks(options.schema, buffer, width, spillRows)));
      buffer = [];
      bytes = 0;
      rows = 0;
    }
  }
  if (runs.length === 0) {
    for (const chunk of sortedChunks(options.schema, buffer, width, options.outputBatchRows))
      yield chunk.batch;
    return;
  }
  if (buffer.length > 0) {
    runs.push(await options.spill.writeRun(sortedChunks(options.schema, buffer, width, spillRows)));
    buffer = [];
  }
  let level = runs;
  while (level.length > MERGE_FAN_IN) {
    const next: SpilledRun[] = [];
    for (let at = 0; at < level.length; at += MERGE_FAN_IN) {
      const group = level.slice(at, at + MERGE_FAN_IN);
      next.push(await options.spill.writeRun(mergeRuns(options.schema, group, width, spillRows)));
    }
    level = next;
  }
  for await (const chunk of mergeRuns(options.schema, level, width, options.outputBatchRows))
    yield chunk.batch;
}

/** Rows per spilled batch: a merge of MERGE_FAN_IN runs holds about half the sort budget. */
function spillRowsFor(maxSortBytes: number, rowBytes: number, outputRows: number): number {
  const rows = Math.floor(maxSortBytes / (2 * MERGE_FAN_IN) / Math.max(1, rowBytes));
  return Math.max(MIN_SPILL_ROWS, Math.min(outputRows, rows));
}

/** The buffered rows sorted by key (stable), in batches of `chunkRows`, each with its key words. */
function* sortedChunks(
  schema: Schema,
  buffer: readonly KeyedBatch[],
  width: number,
  chunkRows: number,
): Generator<KeyedBatch> {
  const total = buffer.reduce((n, b) => n + b.batch.numRows, 0);
  const keys = new Uint32Array(total * width);
  const source = new Int32Array(total);
  const row = new Int32Array(total);
  let at = 0;
  buffer.forEach((b, s) => {
    keys.set(b.keys, at * width);
    for (let r = 0; r < b.batch.numRows; r++, at++) {
      source[at] = s;
      row[at] = r;
    }
  });
  const order = new Int32Array(total);
  for (let i = 0; i < total; i++) order[i] = i;
  order.sort((a, b) => compareKeys(keys, a, keys, b, width) || a - b);
  const batches = buffer.map((b) => b.batch);
  for (let start = 0; start < total; start += chunkRows) {
    const picked = order.subarray(start, Math.min(total, start + chunkRows));
    const chunkKeys = new Uint32Array(picked.length * width);
    for (let k = 0; k < picked.length; k++) {
      const i = picked[k]!;
      chunkKeys.set(keys.subarray(i * width, (i + 1) * width), k * width);
    }
    yield {
      batch: gatherRows(
        schema,
        batches,
        picked.map((i) => source[i]!),
        picked.map((i) => row[i]!),
      ),
      keys: chunkKeys,
    };
  }
}

interface Cursor {
  run: number;
  reader: AsyncGenerator<KeyedBatch>;
  current: KeyedBatch;
  /** Index of `current.batch` among the batches of the output being assembled. */
  slot: number;
  position: number;
}

/** The k-way merge of sorted runs (ties: the earlier run first), in batches of `chunkRows`. */
async function* mergeRuns(
  schema: Schema,
  runs: readonly SpilledRun[],
  width: number,
  chunkRows: number,
): AsyncGenerator<KeyedBatch> {
  const readers = runs.map((run) => readRun(run, width));
  const sources: KeyedBatch[] = [];
  const heap: Cursor[] = [];
  const before = (a: Cursor, b: Cursor) =>
    (compareKeys(a.current.keys, a.position, b.current.keys, b.position, width) || a.run - b.run) < 0;
  try {
    for (const [run, reader] of readers.entries()) {
      const first = await reader.next();
      if (!first.done)
        heapPush(
          heap,
          { run, reader, current: first.value, slot: slotOf(sources, first.value), position: 0 },
          before,
        );
    }
    let pickedSource: number[] = [];
    let pickedRow: number[] = [];
    const flush = (): KeyedBatch => {
      const out = assemble(schema, sources, pickedSource, pickedRow, width);
      sources.length = 0;
      for (const cursor of heap) cursor.slot = slotOf(sources, cursor.current);
      pickedSource = [];
      pickedRow = [];
      return out;
    };
    while (heap.length > 0) {
      const top = heap[0]!;
      pickedSource.push(top.slot);
      pickedRow.push(top.position++);
      if (top.position === top.current.batch.numRows) {
        const next = await top.reader.next();
        if (next.done) heapPop(heap, before);
        else {
          top.current = next.value;
          top.slot = slotOf(sources, next.value);
          top.position = 0;
          siftDown(heap, 0, before);
        }
      } else siftDown(heap, 0, before);
      if (pickedRow.length === chunkRows) yield flush();
    }
    if (pickedRow.length > 0) yield flush();
  } finally {
    await Promise.all(readers.map((r) => r.return(undefined)));
  }
}

function slotOf(sources: KeyedBatch[], batch: KeyedBatch): number {
  sources.push(batch);
  return sources.length - 1;
}

function assemble(
  schema: Schema,
  sources: readonly KeyedBatch[],
  pickedSource: readonly number[],
  pickedRow: readonly number[],
  width: number,
): KeyedBatch {
  const keys = new Uint32Array(pickedRow.length * width);
  for (let i = 0; i < pickedRow.length; i++) {
    const from = sources[pickedSource[i]!]!.keys;
    keys.set(from.subarray(pickedRow[i]! * width, (pickedRow[i]! + 1) * width), i * width);
  }
  const batch = gatherRows(
    schema,
    sources.map((s) => s.batch),
    Int32Array.from(pickedSource),
    Int32Array.from(pickedRow),
  );
  return { batch, keys };
}
