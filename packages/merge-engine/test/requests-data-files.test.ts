// The data-file requests of one upsert, counted with the CountingStore on the local store and on the moto
// S3 server (GET, HEAD, LIST, PUT per operation, and the data-file GETs by phase), on delta-rs tables:
//
// - large files (~400 KB, > 64 KiB), two of six hit: the probe reads each candidate's footer (one GET of the
//   64 KiB tail) and its key column (one GET); the rewrite of a hit file used to read the footer again. With
//   the footer handoff the rewrite opens a hit file with the probe's footer: one GET less per hit file.
// - small files (≤ 64 KiB), two of six hit: every open is one GET of the whole file, with
//   DELTALITE_SMALL_FILE_SINGLE_GET on (a whole-object GET under a fetch admission for the whole file) and
//   off (today: the 64 KiB footer hint is the whole file, a ranged GET the reader serves every chunk from).
//   Small files are not handed over (their one GET brings the footer anyway), so the counts are the same.
//
// The content equals delta-rs MERGE's of the same source either way.
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore, type ObjectStore, openStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import { Field, Int64, Schema, Table, tableToIPC, Utf8, vectorFromArray } from "apache-arrow";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { upsert } from "../src/index.js";
import { FOOTER_HANDOFF_MAX_FILES, FooterHandoff } from "../src/upsert/footer-handoff.js";

const SWITCH = "DELTALITE_SMALL_FILE_SINGLE_GET";
const schema = new Schema([new Field("id", new Int64(), true), new Field("payload", new Utf8(), true)]);

/** Rows with `width` hard-to-compress hex words of payload each (250 → ~2 KB a row). */
const rowsOf = (ids: number[], width: number, salt = 0) =>
  new Table(schema, {
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    payload: vectorFromArray(
      ids.map((i) =>
        Array.from({ length: width }, (_, k) => ((i * 7919 + k * 104729 + salt) % 1e8).toString(16)).join(""),
      ),
      new Utf8(),
    ),
  } as never);

let oracle: Oracle;
let dir: string;
let previousSwitch: string | undefined;
beforeAll(async () => {
  oracle = await connectOracle();
  dir = await mkdtemp(join(tmpdir(), "deltalite-requests-data-files-"));
  previousSwitch = process.env[SWITCH];
});
afterAll(async () => {
  oracle?.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  if (previousSwitch === undefined) delete process.env[SWITCH];
  else process.env[SWITCH] = previousSwitch;
});

let n = 0;
/** Two copies of a delta-rs table of 6 appends × `rows` ids (file f holds ids f·rows … f·rows + rows − 1). */
async function twoTables(rows: number, width: number): Promise<[string, string]> {
  const uris: [string, string] = [join(dir, `t${n}-ours`), join(dir, `t${n}-theirs`)];
  const data = join(dir, `t${n++}.arrow`);
  await writeFile(data, tableToIPC(rowsOf([...Array(6 * rows).keys()], width), "file"));
  await oracle.call("merge_create", { uris, data, appends: 6 });
  return uris;
}

async function uploadTo(store: ObjectStore, source: string, prefix = ""): Promise<void> {
  for (const entry of await readdir(join(source, prefix), { withFileTypes: true })) {
    const key = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) await uploadTo(store, source, key);
    else await store.put(key, new Uint8Array(await readFile(join(source, key))));
  }
}

interface Target {
  store: ObjectStore;
  /** The table's URI and storage options, for delta-rs to read it. */
  uri: string;
  storageOptions: Record<string, string> | undefined;
}

async function targetOn(where: "local" | "s3", uri: string): Promise<Target> {
  if (where === "local") return { store: new LocalFileStore(uri), uri, storageOptions: undefined };
  const s3 = testS3();
  const bucket = await s3.createBucket(`requests-data-${randomBytes(4).toString("hex")}`);
  const s3Uri = `s3://${bucket}/t`;
  const store = openStore(s3Uri, { storageOptions: s3.storageOptions });
  await uploadTo(store, uri);
  return { store, uri: s3Uri, storageOptions: s3.storageOptions };
}

/** One upsert's requests: per method, and the data-file GETs (whole-object and ranged). */
async function countedUpsert(store: ObjectStore, source: Table) {
  const counting = new CountingStore(store);
  const snapshot = await Snapshot.open(counting);
  const sizes = new Map(snapshot.files.map((f) => [f.path, f.size]));
  counting.reset();
  const stats = await upsert(snapshot, source, { primaryKeys: ["id"] });
  const dataGets = counting.log.filter((r) => r.method === "get" && sizes.has(r.key));
  const footerGets = dataGets.filter((r) => r.range !== undefined && r.range.end === sizes.get(r.key));
  return {
    stats,
    requests: {
      get: counting.counts.get.calls,
      head: counting.counts.head.calls,
      list: counting.counts.list.calls,
      put: counting.counts.put.calls + counting.counts.putMultipart.calls,
      dataGets: dataGets.length,
      wholeDataGets: dataGets.filter((r) => r.range === undefined).length,
      footerGets: footerGets.length,
    },
  };
}

/** Our table's rows equal delta-rs MERGE's of the same source into the other copy. */
async function expectSameAsMerge(ours: Target, theirs: string, source: Table): Promise<void> {
  const file = join(dir, `source-${n++}.arrow`);
  await writeFile(file, tableToIPC(source, "file"));
  await oracle.call("merge_delta_rs", { uri: theirs, source: file, keys: ["id"] });
  const a = await oracle.call<{ rows: unknown[] }>("merge_read", {
    uri: ours.uri,
    storage_options: ours.storageOptions,
  });
  const b = await oracle.call<{ rows: unknown[] }>("merge_read", { uri: theirs });
  expect(a.rows).toEqual(b.rows);
}

describe.each(["local", "s3"] as const)("one upsert's data-file requests on %s", (where) => {
  it("large files: the rewrite opens each hit file with the probe's footer", async () => {
    const [ours, theirs] = await twoTables(200, 250);
    const target = await targetOn(where, ours);
    const source = rowsOf([5, 205, 210], 250, 1); // hits files 0 and 1; stats rule out files 2–5
    const { stats, requests } = await countedUpsert(target.store, source);
    expect(stats).toMatchObject({
      filesCandidates: 6,
      filesPrunedByStats: 4,
      filesProbed: 2,
      filesRemoved: 2,
    });
    // Today (measured before the handoff): 8 GETs, 4 of them footer GETs (probe and rewrite of each hit file).
    const today = { get: 8, head: 0, list: 0, put: 2, dataGets: 8, wholeDataGets: 0, footerGets: 4 };
    // The rewrite reads each hit file in one whole GET (rewrite-passthrough.ts), where it took one ranged GET
    // of the column chunks: the count stays. The first is decoded in JS, the second passed through.
    expect(requests).toEqual({ ...today, get: 6, dataGets: 6, wholeDataGets: 2, footerGets: 2 });
    await expectSameAsMerge(target, theirs, source);
  });

  it.each(["on", "off"] as const)("small files, single GET %s", async (mode) => {
    const [ours, theirs] = await twoTables(20, 4);
    const target = await targetOn(where, ours);
    if (mode === "off") process.env[SWITCH] = " Off ";
    else delete process.env[SWITCH];
    const source = rowsOf([5, 25, 30], 4, 1); // hits files 0 and 1; stats rule out files 2–5
    const { stats, requests } = await countedUpsert(target.store, source);
    expect(stats).toMatchObject({
      filesCandidates: 6,
      filesPrunedByStats: 4,
      filesProbed: 2,
      filesRemoved: 2,
    });
    // Off is today's: each of the 4 opens (2 probes, 2 rewrites) is one ranged GET of the whole file. On, each
    // probe reads its file in one whole GET and hands the bytes to the rewrite, which makes no GET.
    const today = { get: 4, head: 0, list: 0, put: 2, dataGets: 4, wholeDataGets: 0, footerGets: 4 };
    const on = { ...today, get: 2, dataGets: 2, wholeDataGets: 2, footerGets: 0 };
    expect(requests).toEqual(mode === "off" ? today : on);
    await expectSameAsMerge(target, theirs, source);
  });
});

describe("the footer handoff is bounded", () => {
  const footer = (bytes: number) => ({ metadata_length: bytes }) as never;
  const file = (name: string, size = 100_000) => ({ path: name, size }) as never;

  it("holds at most maxFiles footers at once; a take frees a place", () => {
    const handoff = new FooterHandoff(2, 1 << 20);
    for (const name of ["a", "b", "c"]) handoff.offer(file(name), footer(10));
    expect(handoff.size).toBe(2);
    expect(handoff.refused).toBe(1);
    expect(handoff.take(file("c"))).toBeUndefined();
    expect(handoff.take(file("a"))).toBeDefined();
    expect(handoff.take(file("a"))).toBeUndefined(); // handed out once
    handoff.offer(file("c"), footer(10));
    expect(handoff.size).toBe(2);
    expect(FOOTER_HANDOFF_MAX_FILES).toBe(16);
  });

  it("holds at most maxBytes of footers and small files' bytes; a small file only with its bytes", () => {
    const handoff = new FooterHandoff(16, 100);
    handoff.offer(file("a"), footer(60));
    handoff.offer(file("b"), footer(60));
    expect([handoff.size, handoff.refused]).toEqual([1, 1]);
    handoff.take(file("a"));
    handoff.offer(file("b"), footer(60));
    expect(handoff.size).toBe(1);
    handoff.offer(file("small", 64 * 1024), footer(1));
    expect(handoff.take(file("small", 64 * 1024))).toBeUndefined();
    const roomy = new FooterHandoff(16, 100);
    roomy.offer(file("s", 50), footer(10), new Uint8Array(49)); // not the whole file: not kept
    expect(roomy.size).toBe(0);
    roomy.offer(file("s", 50), footer(10), new Uint8Array(50));
    roomy.offer(file("t", 50), footer(10), new Uint8Array(50)); // 60 + 60 > 100
    expect([roomy.size, roomy.refused]).toEqual([1, 1]);
    expect(roomy.take(file("s", 50))?.whole?.byteLength).toBe(50);
    expect(roomy.size).toBe(0);
  });
});
