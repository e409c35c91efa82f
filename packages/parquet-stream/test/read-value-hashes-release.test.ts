/**
 * `ColumnValueHashes.release`: a row group's native hashes and values are freed when the caller says so, not
 * when V8 next collects them. The addon's heap gives their bytes back at the event loop's next turn, and the
 * arrays read as empty from then on. A buffer the engine did not make (a Buffer from Node's pool, which
 * shares its memory with other Buffers) is never detached. On parquet-wasm there are no native hashes.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { LocalFileStore } from "@deltalite/object-store";
import { parquetNativeEngine } from "@deltalite/parquet-native";
import { Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocalColumnHashes, parquetEngineName, writeParquetFiles } from "../src/index.js";
import { checkedValueHashes } from "../src/read/value-hashes.js";

const native = parquetEngineName() === "native";
const admission = {
  admitFetch: async () => () => undefined,
  admitDecode: async () => () => undefined,
};

/** The addon's heap now (every thread's allocations). */
function heapHeldBytes(): number {
  const engine = createRequire(import.meta.url)(parquetNativeEngine().entry) as { heapHeldBytes(): number };
  return engine.heapHeldBytes();
}

describe("releasing the native engine's value hashes", () => {
  let dir: string;
  let store: LocalFileStore;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deltalite-release-"));
    store = new LocalFileStore(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(!native)(
    "frees a row group's hashes and values at the next turn; they then read as empty",
    async () => {
      // 40k 39-byte keys: 1.56 MB of values, 160 KB of offsets, 320 KB of hashes.
      const rows = 40_000;
      const keys = Array.from({ length: rows }, (_, i) => `key-${String(i).padStart(35, "0")}`);
      const batch = new Table({ k: vectorFromArray(keys, new Utf8()) }).batches[0]!;
      const [file] = await writeParquetFiles(store, [batch], {
        schema: batch.schema,
        nextKey: () => "keys.parquet",
      });
      const local = await openLocalColumnHashes(store.localPath("keys.parquet"), file!.size, "k", {
        admission,
      });
      const hashes = await local!.valueHashes(0, 42n, true);
      expect(hashes?.hashWords.length).toBe(2 * rows);
      const valueBytes = hashes!.values!.values.byteLength + 4 * (rows + 1) + 8 * rows;
      expect(valueBytes).toBeGreaterThan(2_000_000);
      const held = heapHeldBytes();
      hashes!.release();
      hashes!.release(); // idempotent
      expect(hashes!.hashWords.length).toBe(0);
      expect(hashes!.values!.values.byteLength).toBe(0);
      await nextTurn();
      // Other threads may allocate meanwhile: most of the released bytes, not all, must be back.
      expect(held - heapHeldBytes()).toBeGreaterThan(0.9 * valueBytes);
    },
  );

  it("never detaches a buffer the engine did not make", () => {
    // Small Buffers come from Node's pool: views of one shared buffer, at an offset within it.
    const neighbour = Buffer.from("still here");
    const hashes = Buffer.from(new Uint8Array(16).fill(7));
    expect(hashes.buffer.byteLength).toBeGreaterThan(hashes.byteLength);
    const given = checkedValueHashes(
      { rows: 2, hashes, nulls: null },
      { rows: 2, uncompressedBytes: 0, withValues: false, binary: false },
    );
    given!.release();
    expect([...hashes]).toEqual(new Array(16).fill(7));
    expect(neighbour.toString()).toBe("still here");
    expect(given!.hashWords.length).toBe(4);
  });
});
