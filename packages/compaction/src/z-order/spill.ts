/**
 * Spilled sorted runs of the external Z-order sort: temporary Arrow IPC on local disk (a private folder made
 * by `mkdtemp` under `os.tmpdir()` or the caller's `spillDirectory`), one file per run. A run is a sequence of
 * frames — `[u32 IPC bytes][u32 rows][an IPC stream of one batch][the rows' key words]` — written with awaited
 * writes (so a run never queues in memory) and read back one frame at a time (so a reader holds one batch).
 * Why IPC on local disk and not Parquet in the store: a spill lives for one call, so it needs no encoding,
 * compression or statistics (IPC is Arrow's own buffers, written and read as they are), costs no requests,
 * and cannot leave stray objects beside the table if the process dies. `SpillArea.close()` removes the
 * folder and is called in a `finally`, on success and on failure alike.
 */

import type { FileHandle } from "node:fs/promises";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RecordBatch, Table, tableFromIPC, tableToIPC } from "apache-arrow";

/** One batch of a run and its key words. */
export interface KeyedBatch {
  batch: RecordBatch;
  keys: Uint32Array;
}

export interface SpilledRun {
  path: string;
  rows: number;
  bytes: number;
}

const HEADER_BYTES = 8;

/** A private temporary folder for one partition's runs; counts what was spilled. */
export class SpillArea {
  runs = 0;
  bytes = 0;
  #dir: string | undefined;
  readonly #parent: string;

  constructor(parent?: string) {
    this.#parent = parent ?? tmpdir();
  }

  /** Writes `batches` (already in key order) as one run. */
  async writeRun(batches: Iterable<KeyedBatch> | AsyncIterable<KeyedBatch>): Promise<SpilledRun> {
    this.#dir ??= await mkdtemp(join(this.#parent, "deltalite-zorder-"));
    const path = join(this.#dir, `run-${this.runs++}.arrows`);
    const handle = await open(path, "w");
    const run: SpilledRun = { path, rows: 0, bytes: 0 };
    try {
      for await (const { batch, keys } of batches) {
        const ipc = tableToIPC(new Table([batch]), "stream");
        const header = Buffer.alloc(HEADER_BYTES);
        header.writeUInt32LE(ipc.byteLength, 0);
        header.writeUInt32LE(batch.numRows, 4);
        const keyBytes = new Uint8Array(keys.buffer, keys.byteOffset, keys.byteLength);
        await handle.writev([header, ipc, keyBytes]);
        run.rows += batch.numRows;
        run.bytes += HEADER_BYTES + ipc.byteLength + keyBytes.byteLength;
      }
    } finally {
      await handle.close();
    }
    this.bytes += run.bytes;
    return run;
  }

  /** Removes every run (idempotent). */
  async close(): Promise<void> {
    const dir = this.#dir;
    this.#dir = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

/** The batches of a run, one frame at a time; the file is closed when the iteration ends or stops. */
export async function* readRun(run: SpilledRun, keyWidth: number): AsyncGenerator<KeyedBatch> {
  const handle: FileHandle = await open(run.path, "r");
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    let position = 0;
    while (true) {
      const { bytesRead } = await handle.read(header, 0, HEADER_BYTES, position);
      if (bytesRead === 0) return;
      const ipcBytes = header.readUInt32LE(0);
      const rows = header.readUInt32LE(4);
      const frame = Buffer.alloc(ipcBytes + rows * keyWidth * 4);
      await handle.read(frame, 0, frame.length, position + HEADER_BYTES);
      position += HEADER_BYTES + frame.length;
      const batch = tableFromIPC(frame.subarray(0, ipcBytes)).batches[0]!;
      const keys = new Uint32Array(rows * keyWidth);
      new Uint8Array(keys.buffer).set(frame.subarray(ipcBytes));
      yield { batch, keys };
    }
  } finally {
    await handle.close();
  }
}
