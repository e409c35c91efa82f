// A data file's create whose answer was lost (the store applied it, then the caller saw an error — or a
// retry of it saw `already_exists`) is the file: with `uniqueKeys` the writer recognises it by its size at
// the key, for one-put files and multipart files alike. Without `uniqueKeys` (a checkpoint's shared key), or
// when nothing landed, the error stands.
import { DeltaLiteError, hasErrorKind } from "@deltalite/errors";
import { InMemoryStore } from "@deltalite/object-store";
import { FaultyStore } from "@deltalite/object-store/testing";
import { describe, expect, it } from "vitest";
import { openParquetReader, writeParquetFiles } from "../src/index.js";
import { sequenceTable } from "./write-helpers.js";

const table = sequenceTable(0, 20_000);
const retriedCreate = () => new DeltaLiteError("already_exists", "object already exists (a retried put)");
const lostReply = () => new DeltaLiteError("generic", "socket hang up", { retryable: true });

function write(store: FaultyStore, uniqueKeys: boolean, multipartThresholdBytes?: number) {
  let n = 0;
  return writeParquetFiles(store, table.batches, {
    schema: table.schema,
    nextKey: () => `part-${n++}.parquet`,
    uniqueKeys,
    multipartThresholdBytes,
    multipartPartSizeBytes: 5 * 1024 * 1024,
  });
}

describe("data-file creates whose answer was lost", () => {
  for (const [name, error] of [
    ["already_exists from a retry", retriedCreate],
    ["a lost reply", lostReply],
  ] as const) {
    it(`one put: ${name} after the put landed is the file`, async () => {
      const inner = new InMemoryStore();
      const store = new FaultyStore(inner, [
        { method: "put", times: 1, fault: { type: "errorAfter", error } },
      ]);
      const [file] = await write(store, true);
      expect(store.fired).toBe(1);
      expect(file?.numRows).toBe(20_000);
      expect((await inner.head(file!.key)).size).toBe(file!.size);
    });

    it(`multipart: ${name} after the upload completed is the file`, async () => {
      const inner = new InMemoryStore();
      const store = new FaultyStore(inner, [
        { method: "putMultipart", times: 1, fault: { type: "errorAfter", error } },
      ]);
      const [file] = await write(store, true, 64 * 1024);
      expect(store.fired).toBe(1);
      expect(file?.numRows).toBe(20_000);
      const reader = await openParquetReader(inner, file!.key, { size: file!.size });
      let rows = 0;
      for await (const batch of reader.readRowGroups()) rows += batch.numRows;
      expect(rows).toBe(20_000);
    });
  }

  it("without uniqueKeys the already_exists stands (a shared key may hold another writer's object)", async () => {
    const store = new FaultyStore(new InMemoryStore(), [
      { method: "put", times: 1, fault: { type: "errorAfter", error: retriedCreate } },
    ]);
    const error = await write(store, false).catch((e: unknown) => e);
    expect(hasErrorKind(error, "already_exists")).toBe(true);
  });

  it("a put that did not land (or has not yet) is a failure, not a success", async () => {
    const store = new FaultyStore(new InMemoryStore(), [
      { method: "put", times: 1, fault: { type: "landsLate", ms: 50, error: lostReply } },
    ]);
    const error = await write(store, true).catch((e: unknown) => e);
    expect(hasErrorKind(error, "generic")).toBe(true);
    await Promise.all(store.late);
  });

  it("an object of another size at the key is not ours", async () => {
    const inner = new InMemoryStore();
    await inner.put("part-0.parquet", new Uint8Array(7));
    const store = new FaultyStore(inner, []);
    const error = await write(store, true).catch((e: unknown) => e);
    expect(hasErrorKind(error, "already_exists")).toBe(true);
  });
});
