/**
 * The probe's native key hashes (parquet-stream `valueHashes`) are the JavaScript key hashes, on files our
 * own writer makes in every shape it makes them: for random string and binary columns (empty values,
 * NULLs, non-ASCII, repeated values), each codec, dictionary or plain pages, several row groups per file,
 * the hashes and NULL flags of each row group equal `encodeKeys` of the same row group read back in
 * JavaScript, and the values it returns when asked (the probe matches keys exactly on them) equal the column
 * as read in JavaScript. A mismatch would make the probe call a file with a source key a miss, and the upsert
 * would keep the replaced rows. The same file hashed from its local path (`openLocalColumnHashes`, the probe
 * of a local table) gives the same answers, under the reader's admission. On parquet-wasm there are no
 * native hashes, and both say so.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import {
  type ColumnValueHashes,
  FIRST_WITH_LAYOUT_MAX_BYTES,
  openLocalColumnHashes,
  openParquetReader,
  parquetEngineName,
  writeParquetFiles,
} from "@deltalite/parquet-stream";
import {
  Binary,
  Field,
  makeVector,
  type RecordBatch,
  Schema,
  Table,
  Utf8,
  type Vector,
  vectorFromArray,
} from "apache-arrow";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeKeys } from "../src/index.js";
import { KEY_HASH_SEED } from "../src/keys/key-hasher.js";

const codecs = ["snappy", "zstd", "uncompressed"] as const;

/** A cell as a comparable value (binary cells as arrays of bytes, NULL as null). */
const comparable = (cell: unknown): unknown => (cell instanceof Uint8Array ? [...cell] : (cell ?? null));

/** A row group's value hashes as plain arrays (the values as their cells). */
function comparableHashes(hashes: ColumnValueHashes | undefined) {
  if (hashes === undefined) return undefined;
  const values = hashes.values ? [...makeVector(hashes.values)].map(comparable) : undefined;
  return { hashWords: [...hashes.hashWords], nulls: hashes.nulls && [...hashes.nulls], values };
}

/** One batch of the given columns. */
function batchOf(columns: Record<string, Vector>): RecordBatch {
  return new Table(columns).batches[0] as RecordBatch;
}

describe("native value hashes equal the JavaScript key hashes", () => {
  let dir: string;
  let store: LocalFileStore;
  let n = 0;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deltalite-value-hashes-"));
    store = new LocalFileStore(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const text = fc.oneof(fc.string({ unit: "grapheme", maxLength: 12 }), fc.constantFrom("", "a", "\u0000"));
  const bytes = fc.uint8Array({ maxLength: 12 });
  const column = fc.oneof(
    fc.record({
      binary: fc.constant(false),
      values: fc.array(fc.option(text), { minLength: 1, maxLength: 300 }),
    }),
    fc.record({
      binary: fc.constant(true),
      values: fc.array(fc.option(bytes), { minLength: 1, maxLength: 300 }),
    }),
  );

  it("for random string and binary columns, codecs, page encodings and row groups", async () => {
    await fc.assert(
      fc.asyncProperty(
        column,
        fc.constantFrom(...codecs),
        fc.boolean(),
        fc.integer({ min: 7, max: 400 }),
        async ({ binary, values }, codec, plain, maxRowGroupRows) => {
          const type = binary ? new Binary() : new Utf8();
          const schema = new Schema([new Field("k", type, true)]);
          const batch = batchOf({ k: vectorFromArray(values as never[], type) });
          const key = `f${n++}.parquet`;
          const [file] = await writeParquetFiles(store, [batch], {
            schema,
            nextKey: () => key,
            codec,
            maxRowGroupRows,
            plainColumns: plain ? ["k"] : [],
          });
          const reader = await openParquetReader(store, key, { size: file?.size ?? 0 });
          // The same file hashed from its local path: the same answers, row group by row group.
          const local = await openLocalColumnHashes(store.localPath(key), file?.size ?? 0, "k");
          expect(local === undefined).toBe(parquetEngineName() !== "native");
          expect(local?.numRowGroups ?? reader.numRowGroups).toBe(reader.numRowGroups);
          // Opened with the first row group's hashes asked ahead (the probe's way): the same answers.
          const first = { seed: KEY_HASH_SEED, rows: values.length };
          const ahead = await openLocalColumnHashes(store.localPath(key), file?.size ?? 0, "k", { first });
          expect(ahead?.numRowGroups).toBe(local?.numRowGroups);
          let group = 0;
          for await (const part of reader.readRowGroups({ columns: ["k"] })) {
            const withValues = group % 2 === 1;
            const fromPath = await local?.valueHashes(group, KEY_HASH_SEED, withValues);
            const fromAhead = await ahead?.valueHashes(group, KEY_HASH_SEED, withValues);
            const got = await reader.valueHashes(group++, "k", KEY_HASH_SEED, undefined, withValues);
            if (parquetEngineName() !== "native") {
              expect(got).toBeUndefined();
              continue;
            }
            expect(comparableHashes(fromPath)).toEqual(comparableHashes(got));
            expect(comparableHashes(fromAhead)).toEqual(comparableHashes(got));
            const keys = encodeKeys(part, ["k"]);
            expect([...(got?.hashWords ?? [])]).toEqual([...keys.hashWords.subarray(0, 2 * keys.length)]);
            const flags = Array.from({ length: keys.length }, (_, i) => (keys.isNullKey(i) ? 1 : 0));
            expect([...(got?.nulls ?? new Uint8Array(keys.length))]).toEqual(flags);
            if (!withValues) {
              expect(got?.values).toBeUndefined();
              continue;
            }
            // The values the probe matches on are the column as the JavaScript reader decodes it.
            const expected = part.getChild("k")?.toArray() ?? [];
            const values = got?.values;
            expect(values?.type.toString()).toBe(type.toString());
            const vector = makeVector(values as NonNullable<typeof values>);
            expect([...vector].map(comparable)).toEqual([...(part.getChild("k") ?? [])].map(comparable));
            expect(vector.nullCount).toBe(flags.reduce((a, b) => a + b, 0));
            expect(vector.length).toBe(expected.length);
          }
          expect(group).toBe(Math.ceil(values.length / maxRowGroupRows));
          reader.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  it("says whether a non-NULL row has one of a source's key hashes (mayHit) and which (hitRows), from a reader and from a path", async () => {
    const word = fc.integer({ min: 0, max: 2 ** 32 - 1 });
    await fc.assert(
      fc.asyncProperty(
        column,
        fc.integer({ min: 7, max: 400 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.array(fc.tuple(word, word), { maxLength: 3 }),
        async ({ binary, values }, maxRowGroupRows, picked, others) => {
          const type = binary ? new Binary() : new Utf8();
          const batch = batchOf({ k: vectorFromArray(values as never[], type) });
          const key = `p${n++}.parquet`;
          const [file] = await writeParquetFiles(store, [batch], {
            schema: new Schema([new Field("k", type, true)]),
            nextKey: () => key,
            maxRowGroupRows,
          });
          const size = file?.size ?? 0;
          const reader = await openParquetReader(store, key, { size });
          // The file's hashes, row group after row group; the source: some rows' hashes (a NULL row's too)
          // and arbitrary others.
          const groups: ColumnValueHashes[] = [];
          for (let g = 0; g < reader.numRowGroups; g++) {
            const hashes = await reader.valueHashes(g, "k", KEY_HASH_SEED);
            if (hashes === undefined) {
              expect(parquetEngineName()).not.toBe("native");
              return;
            }
            groups.push(hashes);
          }
          const all = groups.flatMap((h) => [...h.hashWords]);
          const source = [
            ...picked.map((p) => p % values.length).flatMap((r) => all.slice(2 * r, 2 * r + 2)),
          ];
          for (const [lo, hi] of others) source.push(lo, hi);
          const probe = new Uint8Array(Uint32Array.from(source).buffer);
          const held = new Set(source.flatMap((w, i) => (i % 2 === 0 ? [`${w},${source[i + 1]}`] : [])));
          const first = { seed: KEY_HASH_SEED, rows: values.length };
          const local = await openLocalColumnHashes(store.localPath(key), size, "k", { probe });
          const ahead = await openLocalColumnHashes(store.localPath(key), size, "k", { probe, first });
          for (const [g, hashes] of groups.entries()) {
            const rows = hashes.hashWords.length / 2;
            const hitRows = Array.from({ length: rows }, (_, i) => i).filter(
              (i) =>
                hashes.nulls?.[i] !== 1 &&
                held.has(`${hashes.hashWords[2 * i]},${hashes.hashWords[2 * i + 1]}`),
            );
            const expected = hitRows.length > 0;
            const fromReader = await reader.valueHashes(g, "k", KEY_HASH_SEED, undefined, false, probe);
            expect(fromReader?.mayHit).toBe(expected);
            expect((await local?.valueHashes(g, KEY_HASH_SEED))?.mayHit).toBe(expected);
            expect((await ahead?.valueHashes(g, KEY_HASH_SEED))?.mayHit).toBe(expected);
            // Without values the rows are not named; with them, exactly the rows the oracle names.
            expect(fromReader?.hitRows).toBeUndefined();
            const withValues = [
              await reader.valueHashes(g, "k", KEY_HASH_SEED, undefined, true, probe),
              await local?.valueHashes(g, KEY_HASH_SEED, true),
            ];
            for (const given of withValues) {
              expect(given?.mayHit).toBe(expected);
              expect([...(given?.hitRows ?? [-1])]).toEqual(hitRows);
            }
            // Asked without a probe, there is no answer.
            expect(hashes.mayHit).toBeUndefined();
            expect(hashes.hitRows).toBeUndefined();
          }
          reader.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  it("gives none for a column that is not a byte array, or a reader opened from a parsed footer", async () => {
    const batch = batchOf({
      k: vectorFromArray(["a", "b", null]),
      n: vectorFromArray([1, 2, 3]),
    });
    const [file] = await writeParquetFiles(store, [batch], {
      schema: batch.schema,
      nextKey: () => "other.parquet",
    });
    const size = file?.size ?? 0;
    const reader = await openParquetReader(store, "other.parquet", { size });
    expect(await reader.valueHashes(0, "n", KEY_HASH_SEED)).toBeUndefined();
    const native = await reader.valueHashes(0, "k", KEY_HASH_SEED);
    expect(native === undefined).toBe(parquetEngineName() !== "native");
    const fromFooter = await openParquetReader(store, "other.parquet", { size, metadata: reader.metadata });
    expect(await fromFooter.valueHashes(0, "k", KEY_HASH_SEED)).toBeUndefined();
    // From the file's local path: a column it lacks is null (every key NULL there); a column that is not a
    // byte array, a file of another length, a missing file: undefined (read the file with a reader instead).
    const path = store.localPath("other.parquet");
    const nativeEngine = parquetEngineName() === "native";
    expect(await openLocalColumnHashes(path, size, "absent")).toBe(nativeEngine ? null : undefined);
    expect(await openLocalColumnHashes(path, size, "n")).toBeUndefined();
    expect(await openLocalColumnHashes(path, size + 1, "k")).toBeUndefined();
    expect(await openLocalColumnHashes(store.localPath("missing.parquet"), size, "k")).toBeUndefined();
    expect((await openLocalColumnHashes(path, size, "k")) === undefined).toBe(!nativeEngine);
  });

  it("reads a local file's chunk under the reader's admission: its bytes fetched, its decode while it runs", async () => {
    if (parquetEngineName() !== "native") return;
    const batch = batchOf({ k: vectorFromArray(Array.from({ length: 900 }, (_, i) => `key-${i % 700}`)) });
    const [file] = await writeParquetFiles(store, [batch], {
      schema: batch.schema,
      nextKey: () => "admitted.parquet",
      maxRowGroupRows: 300,
    });
    const size = file?.size ?? 0;
    const asked: [string, number][] = [];
    let held = 0;
    const admission = {
      admitFetch: async (bytes: number) => {
        asked.push(["fetch", bytes]);
        held += bytes;
        return () => {
          held -= bytes;
        };
      },
      admitDecode: async (bytes: number) => {
        asked.push(["decode", bytes]);
        return () => undefined;
      },
    };
    const local = await openLocalColumnHashes(store.localPath("admitted.parquet"), size, "k", { admission });
    const reader = await openParquetReader(store, "admitted.parquet", { size });
    expect(local?.numRowGroups).toBe(3);
    for (let g = 0; g < 3; g++) {
      asked.length = 0;
      const got = await local?.valueHashes(g, KEY_HASH_SEED, true);
      expect(got?.hashWords.length).toBe(600);
      expect(asked[0]).toEqual(["fetch", reader.fetchBytes(g, ["k"])]);
      expect(asked[1]?.[0]).toBe("decode");
      expect(asked[1]?.[1]).toBe(9 * 300 + reader.uncompressedBytes(g, ["k"]) + 4 * 301);
      expect(held).toBe(0);
    }
    // The first row group asked ahead: hashed in the layout's call, admitted then (the whole file as its
    // fetch, 9 bytes per row the Add counts as its decode), and handed out once without another call.
    asked.length = 0;
    const first = { seed: KEY_HASH_SEED, rows: 900 };
    const ahead = await openLocalColumnHashes(store.localPath("admitted.parquet"), size, "k", {
      admission,
      first,
    });
    expect(asked).toEqual([
      ["fetch", size],
      ["decode", 9 * 900],
    ]);
    expect(held).toBe(0);
    asked.length = 0;
    const given = await ahead?.valueHashes(0, KEY_HASH_SEED);
    expect(asked).toEqual([]);
    expect([...(given?.hashWords ?? [])]).toEqual([
      ...((await local?.valueHashes(0, KEY_HASH_SEED))?.hashWords ?? []),
    ]);
    asked.length = 0;
    const again = await ahead?.valueHashes(0, KEY_HASH_SEED);
    expect(asked.map(([what]) => what)).toEqual(["fetch", "decode"]);
    expect([...(again?.hashWords ?? [])]).toEqual([...(given?.hashWords ?? [])]);
    // Under another seed, or with values, row group 0 is hashed again.
    asked.length = 0;
    const ahead2 = await openLocalColumnHashes(store.localPath("admitted.parquet"), size, "k", { first });
    expect((await ahead2?.valueHashes(0, KEY_HASH_SEED, true))?.values).toBeDefined();
    expect((await ahead2?.valueHashes(0, KEY_HASH_SEED))?.hashWords.length).toBe(600);
    reader.close();
  });

  // Native only: parquet-wasm hashes no local file from its path.
  it.skipIf(parquetEngineName() !== "native")(
    "hashes a file above FIRST_WITH_LAYOUT_MAX_BYTES only when asked, under the chunk's own admission",
    async () => {
      // Random hex values (snappy finds no repeats in them) in two row groups, past the bound.
      const rows = 2 * 30_000;
      const value = () => randomBytes(80).toString("hex");
      const batch = batchOf({ k: vectorFromArray(Array.from({ length: rows }, () => value())) });
      const [file] = await writeParquetFiles(store, [batch], {
        schema: batch.schema,
        nextKey: () => "large.parquet",
        maxRowGroupRows: rows / 2,
        plainColumns: ["k"],
      });
      const size = file?.size ?? 0;
      expect(size).toBeGreaterThan(FIRST_WITH_LAYOUT_MAX_BYTES);
      const asked: string[] = [];
      const admission = {
        admitFetch: async () => {
          asked.push("fetch");
          return () => undefined;
        },
        admitDecode: async () => {
          asked.push("decode");
          return () => undefined;
        },
      };
      const first = { seed: KEY_HASH_SEED, rows };
      const local = await openLocalColumnHashes(store.localPath("large.parquet"), size, "k", {
        admission,
        first,
      });
      expect(asked).toEqual([]);
      expect((await local?.valueHashes(0, KEY_HASH_SEED))?.hashWords.length).toBe(rows);
      expect(asked).toEqual(["fetch", "decode"]);
    },
  );
});
