/**
 * The encoder runs on a worker thread: a worker that dies mid-write fails that write with a typed error,
 * leaves no object for the file it was encoding (files already handed out stay, as before), and the next
 * write gets a fresh worker and succeeds; many writes at once each get their own worker and their own rows.
 * Streams share the process's first worker unless they ask to be spread: then they go to idle workers, up to
 * one per core (`DELTALITE_ENCODER_WORKERS`).
 */
import { InMemoryStore, type ObjectStore } from "@deltalite/object-store";
import type { RecordBatch } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { batchIpcLayout } from "../src/arrow/ipc-stream.js";
import { parquetEngineEntry } from "../src/engine.js";
import {
  encoderWasmMemoryBytes,
  parquetFileStream,
  readParquetObjects,
  type WrittenFile,
  writeParquetFiles,
} from "../src/index.js";
import {
  EncoderSession,
  encoderFor,
  encoderWorkerLimit,
  endEncoderWorker,
  runningEncoderWorkers,
} from "../src/write/encoder-pool.js";
import { sequenceTable } from "./write-helpers.js";

const schema = sequenceTable(0, 1, 12).schema;

async function keys(store: ObjectStore): Promise<string[]> {
  const out: string[] = [];
  for await (const meta of store.list("")) out.push(meta.key);
  return out.sort();
}

async function ids(store: ObjectStore, file: WrittenFile): Promise<bigint[]> {
  const objects = await readParquetObjects(store, file.key, { size: file.size, columns: ["id"] });
  return objects.map((o) => o.id as bigint);
}

/** 40 batches of 5,000 rows; the worker is ended after `crashAfter` of them were handed over. */
async function* batches(crashAfter: number): AsyncGenerator<RecordBatch> {
  for (let b = 0; b < 40; b++) {
    if (b === crashAfter) await endEncoderWorker();
    yield sequenceTable(b * 5000, 5000, 12).batches[0] as RecordBatch;
  }
}

describe("parquet encoding on a worker thread", () => {
  it("a worker that dies mid-write fails the write cleanly; the next write succeeds", async () => {
    const store = new InMemoryStore();
    let n = 0;
    const written: WrittenFile[] = [];
    const options = {
      schema,
      nextKey: () => `f${n++}.parquet`,
      maxRowGroupRows: 10_000,
      targetFileSize: 400_000,
      codec: "uncompressed" as const,
    };
    const failure = await (async () => {
      for await (const file of parquetFileStream(store, batches(30), options)) written.push(file);
    })().catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: "generic" });
    expect(String((failure as Error).message)).toMatch(/encoder worker/);
    // Files before the crash are complete and listed; the one being encoded left nothing behind.
    expect(written.length).toBeGreaterThan(0);
    expect(await keys(store)).toEqual(written.map((f) => f.key).sort());
    for (const file of written) expect((await ids(store, file)).length).toBe(file.numRows);

    const again = new InMemoryStore();
    const files = await writeParquetFiles(again, batches(-1), {
      ...options,
      nextKey: () => `g${n++}.parquet`,
    });
    const all = (await Promise.all(files.map((f) => ids(again, f)))).flat();
    expect(all).toEqual(Array.from({ length: 200_000 }, (_, i) => BigInt(i)));
  });

  it("a write that fails on its input leaves the worker serving the writes beside it", async () => {
    const store = new InMemoryStore();
    async function* mismatched(): AsyncGenerator<RecordBatch> {
      yield sequenceTable(0, 70_000, 12).batches[0] as RecordBatch; // past one slice: it reaches the worker
      yield sequenceTable(0, 10, 12).select(["id"]).batches[0] as RecordBatch;
    }
    const [bad, good] = await Promise.allSettled([
      writeParquetFiles(store, mismatched(), { schema, nextKey: () => "bad.parquet" }),
      writeParquetFiles(store, batches(-1), {
        schema,
        nextKey: () => "good.parquet",
        targetFileSize: 1 << 30,
      }),
    ]);
    expect(bad).toMatchObject({ status: "rejected", reason: { kind: "schema_mismatch" } });
    expect(good.status).toBe("fulfilled");
    expect(await keys(store)).toEqual(["good.parquet"]);
    const file = (good as PromiseFulfilledResult<WrittenFile[]>).value[0] as WrittenFile;
    expect(await ids(store, file)).toEqual(Array.from({ length: 200_000 }, (_, i) => BigInt(i)));
  });

  it("concurrent writes each keep their own rows", async () => {
    const store = new InMemoryStore();
    const results = await Promise.all(
      [0, 1, 2, 3, 4].map(async (w) => {
        let n = 0;
        const input = Array.from(
          { length: 6 },
          (_, b) => sequenceTable(w * 1e6 + b * 3000, 3000, 12).batches[0] as RecordBatch,
        );
        const files = await writeParquetFiles(store, input, {
          schema,
          nextKey: () => `w${w}-${n++}.parquet`,
          maxRowGroupRows: 4000,
          targetFileSize: 100_000,
        });
        return (await Promise.all(files.map((f) => ids(store, f)))).flat();
      }),
    );
    results.forEach((got, w) => {
      expect(got).toEqual(Array.from({ length: 18_000 }, (_, i) => BigInt(w * 1e6 + i)));
    });
    // One worker encoded them all: its WebAssembly memory is the encoder's high-water mark.
    expect(await encoderWasmMemoryBytes()).toBeGreaterThan(1 << 20);
  });

  it("runs the native engine when its addon is built, parquet-wasm when asked (DELTALITE_PARQUET_ENGINE)", () => {
    expect(parquetEngineEntry({ DELTALITE_PARQUET_ENGINE: "wasm" })).toMatch(/parquet-wasm/);
    // Setup builds the addon wherever cargo runs (DELTALITE_NATIVE_BUILD=0 skips it).
    const built = process.env.DELTALITE_NATIVE_BUILD !== "0";
    if (built) {
      expect(parquetEngineEntry({})).toMatch(/parquet-native[\\/]engine\.cjs$/);
      expect(parquetEngineEntry({ DELTALITE_PARQUET_ENGINE: "native" })).toBe(parquetEngineEntry({}));
    } else expect(parquetEngineEntry({})).toMatch(/parquet-wasm/);
  });

  it("spread streams go to workers of their own up to the limit; the others share the first", async () => {
    expect(encoderWorkerLimit({ DELTALITE_ENCODER_WORKERS: "1" })).toBe(1);
    expect(encoderWorkerLimit({ DELTALITE_ENCODER_WORKERS: "3" })).toBe(3);
    expect(encoderWorkerLimit({ DELTALITE_ENCODER_WORKERS: "99" })).toBe(4);
    await endEncoderWorker();
    await new Promise((resolve) => setImmediate(resolve));
    expect(runningEncoderWorkers()).toBe(0);
    const previous = process.env.DELTALITE_ENCODER_WORKERS;
    process.env.DELTALITE_ENCODER_WORKERS = "2";
    const sessions: EncoderSession[] = [];
    try {
      sessions.push(new EncoderSession(encoderFor(false)), new EncoderSession(encoderFor(false)));
      expect(runningEncoderWorkers()).toBe(1);
      sessions.push(new EncoderSession(encoderFor(true)));
      expect(runningEncoderWorkers()).toBe(2);
      sessions.push(new EncoderSession(encoderFor(true)));
      expect(runningEncoderWorkers()).toBe(2);
    } finally {
      for (const session of sessions) session.close();
      if (previous === undefined) delete process.env.DELTALITE_ENCODER_WORKERS;
      else process.env.DELTALITE_ENCODER_WORKERS = previous;
    }
    // A spread write beside a shared one: both complete with their own rows.
    const store = new InMemoryStore();
    const [spread, shared] = await Promise.all(
      [true, false].map((spreadEncoders, w) =>
        writeParquetFiles(store, batches(-1), { schema, nextKey: () => `p${w}.parquet`, spreadEncoders }),
      ),
    );
    for (const files of [spread, shared]) {
      const all = (await Promise.all((files as WrittenFile[]).map((f) => ids(store, f)))).flat();
      expect(all).toEqual(Array.from({ length: 200_000 }, (_, i) => BigInt(i)));
    }
  });

  it("sends a file below the sink's multipart threshold as one chunk, and a larger one as it is flushed", async () => {
    /** The chunk events of one 15,000-row stream (three slices) and the bytes they make up. */
    async function encode(
      joinBelowBytes: number,
    ): Promise<{ chunks: number; bytes: Buffer; lastChunkBytes: number }> {
      const session = new EncoderSession(encoderFor(false));
      try {
        session.begin({
          codec: "uncompressed",
          maxRowGroupRows: 4_000,
          maxRowGroupBytes: 1 << 30,
          targetFileSize: 1 << 30,
          createdBy: "deltalite test",
          keyValueMetadata: {},
          plainColumns: [],
          uncompressedColumns: [],
          joinBelowBytes,
        });
        for (let b = 0; b < 3; b++)
          await session.send(batchIpcLayout(sequenceTable(b * 5000, 5000, 12).batches[0] as RecordBatch));
        session.end();
        const parts: Uint8Array[] = [];
        for (let event = await session.next(); event.type !== "done"; event = await session.next()) {
          if (event.type === "chunk") {
            parts.push(event.bytes);
            session.ack();
          }
        }
        return {
          chunks: parts.length,
          bytes: Buffer.concat(parts),
          lastChunkBytes: parts.at(-1)?.byteLength ?? 0,
        };
      } finally {
        session.close();
      }
    }
    const streamed = await encode(1);
    const joined = await encode(1 << 30);
    // 15,000 rows in row groups of 4,000: parquet-rs flushes each row group, so streaming sends several.
    expect(streamed.chunks).toBeGreaterThan(3);
    expect(joined.chunks).toBe(1);
    expect(joined.bytes.equals(streamed.bytes)).toBe(true);
    // Once its row groups reach the threshold, the file streams (a sink starts its multipart put there). The
    // native engine counts the bytes it has flushed, so the threshold here leaves out the footer: what was
    // held comes out at once (one chunk there, one a row group on parquet-wasm), then the footer.
    const atThreshold = await encode(streamed.bytes.byteLength - streamed.lastChunkBytes);
    expect(atThreshold.chunks).toBeGreaterThan(1);
    expect(atThreshold.chunks).toBeLessThanOrEqual(streamed.chunks);
    expect(atThreshold.bytes.equals(streamed.bytes)).toBe(true);
  });
});
