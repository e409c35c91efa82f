// The deltalite layer around the merge engine: environment defaults (the seed's variable names; an explicit
// option wins; a malformed value is a typed error) and the handle's one-time initialOpenMs.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable, envKnobs } from "../src/index.js";

let tmp: string;
beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-env-"));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});
afterEach(() => {
  delete process.env.DELTALITE_MAX_SOURCE_BYTES;
});

const rows = (ids: number[]) =>
  new Table({
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    name: vectorFromArray(
      ids.map((i) => `n${i}`),
      new Utf8(),
    ),
  });

describe("upsert environment defaults and initialOpenMs", () => {
  it("reads the seed's variables and refuses malformed ones", () => {
    expect(
      envKnobs({ DELTALITE_MAX_SOURCE_BYTES: "1024", DELTALITE_RANGE_GET_CONCURRENCY: "2", OTHER: "x" }),
    ).toEqual({
      maxSourceBytes: 1024,
      rangeGetConcurrency: 2,
    });
    expect(envKnobs({ DELTALITE_PERMIT_WAIT_TIMEOUT_MS: "250" })).toEqual({ permitWaitTimeoutMs: 250 });
    expect(() => envKnobs({ DELTALITE_MULTIPART_PART_SIZE_BYTES: "lots" })).toThrow(
      /DELTALITE_MULTIPART_PART_SIZE_BYTES/,
    );
  });

  it("DELTALITE_MAX_SOURCE_BYTES guards the source unless the call sets maxSourceBytes; nothing is written", async () => {
    const uri = path.join(tmp, "guard");
    await DeltaLiteTable.write(uri, rows([1, 2, 3]));
    const table = await DeltaLiteTable.open(uri);
    process.env.DELTALITE_MAX_SOURCE_BYTES = "16";
    await expect(table.upsert(rows([4, 5, 6, 7]), { primaryKeys: ["id"] })).rejects.toMatchObject({
      kind: "source_too_large",
    });
    expect((await DeltaLiteTable.open(uri)).version).toBe(0);
    const stats = await table.upsert(rows([4, 5, 6, 7]), { primaryKeys: ["id"], maxSourceBytes: 0 });
    expect(stats.version).toBe(1);
    expect(stats.rowsInserted).toBe(4);
  });

  it("reports the handle's initial open time once", async () => {
    const uri = path.join(tmp, "open-ms");
    await DeltaLiteTable.write(uri, rows([1]));
    const table = await DeltaLiteTable.open(uri);
    const first = await table.upsert(rows([1, 2]), { primaryKeys: ["id"] });
    const second = await table.upsert(rows([3]), { primaryKeys: ["id"] });
    expect(first.initialOpenMs).toBeGreaterThan(0);
    expect(second.initialOpenMs).toBe(0);
    expect(second.openMs).toBeGreaterThan(0);
    expect(first.rowsUpdated + second.rowsUpdated).toBe(1);
  });
});
