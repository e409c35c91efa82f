/**
 * Hit files passed through in place (rewrite-passthrough.ts on a local store with the native engine: the
 * encoder worker reads each file's pages from its path) and matched on the native engine's key values
 * (probe.ts `nativelyEncodedKeys`). The table's string-keyed files hold many row groups and the source
 * updates and deletes only keys past each file's first row groups, so the probe's first hit comes late and
 * it hands over no encoded keys for the earlier groups: the rewrite must match the whole file itself. Three
 * runs of the same batch — ours read in place with native matching, ours with both off (fetched through a
 * request-counting store, JavaScript matching) and delta-rs MERGE — must give delta-rs the same rows, and
 * ours the same counters and Add stats.
 */
import { join } from "node:path";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { parquetEngineName } from "@deltalite/parquet-stream";
import { Bool, Float64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { upsert } from "../src/index.js";
import { upsertWithHooks } from "../src/internal.js";
import { addStats, comparableCounters, copiesOf } from "./commit-compare.js";
import { oracleWorkspace } from "./oracle-workspace.js";

const ws = oracleWorkspace("deltalite-upsert-in-place-");
const FLAG = "_deleted";
const PARTS = ["a", "b", "c"];

interface Row {
  id: number;
  v: number;
  del: boolean | null;
}

const keyOf = (id: number) => `key-${String(id).padStart(6, "0")}-${"é".repeat(id % 4)}`;

function tableOf(rows: readonly Row[], withFlag: boolean): Table {
  const columns: Record<string, ReturnType<typeof vectorFromArray>> = {
    sk: vectorFromArray(
      rows.map((r) => keyOf(r.id)),
      new Utf8(),
    ),
    v: vectorFromArray(
      rows.map((r) => r.v),
      new Float64(),
    ),
    part: vectorFromArray(
      rows.map((r) => PARTS[r.id % PARTS.length] as string),
      new Utf8(),
    ),
  };
  if (withFlag) {
    columns[FLAG] = vectorFromArray(
      rows.map((r) => r.del),
      new Bool(),
    );
  }
  return new Table(columns);
}

describe.skipIf(parquetEngineName() !== "native")(
  "upsert: hit files read in place, keys matched natively",
  () => {
    it("gives delta-rs MERGE's rows, and the counters and Add stats of the fetched, JavaScript-matched run", async () => {
      const base = join(ws.dir, "base");
      const rows = 3000;
      // Our inserts, in three appends: one file per partition each, row groups of 50 rows.
      for (let at = 0; at < rows; at += 1000) {
        const batch = Array.from({ length: 1000 }, (_, i) => ({ id: at + i, v: at + i, del: null }));
        const store = new LocalFileStore(base);
        const snapshot = at === 0 ? undefined : await Snapshot.open(store);
        if (snapshot === undefined) {
          await ws.oracle.call("merge_create", {
            uris: [base],
            data: await ws.ipc(tableOf(batch, false)),
            partition_by: ["part"],
            appends: 1,
          });
          continue;
        }
        await upsert(snapshot, tableOf(batch, false), {
          primaryKeys: ["sk"],
          partitionKey: "part",
          maxRowGroupRows: 50,
        });
      }
      const [inPlace, fetched, theirs] = await copiesOf(base, ["in-place", "fetched", "theirs"] as const);
      // Updates and deletes of ids 1000–2999 (our files) past each file's first 200 rows (4 row groups); inserts.
      const source: Row[] = [];
      for (let id = 1000; id < rows; id++) {
        const inFile = Math.floor((id % 1000) / PARTS.length);
        if (inFile < 200 || id % 7 > 2) continue;
        source.push({ id, v: -id, del: id % 7 === 0 ? true : id % 7 === 1 ? false : null });
      }
      for (let i = 0; i < 40; i++) source.push({ id: rows + i, v: 0.5, del: null });
      const options = { primaryKeys: ["sk"], partitionKey: "part", deleteColumn: FLAG };
      const a = await upsert(
        await Snapshot.open(new LocalFileStore(inPlace)),
        tableOf(source, true),
        options,
      );
      const b = await upsertWithHooks(
        await Snapshot.open(new CountingStore(new LocalFileStore(fetched))),
        tableOf(source, true),
        options,
        { valueHashProbe: false },
      );
      await ws.oracle.call("merge_delta_rs", {
        uri: theirs,
        source: await ws.ipc(tableOf(source, true)),
        keys: ["sk"],
        partition_key: "part",
        delete_column: FLAG,
      });
      expect(a.filesPassedThrough).toBeGreaterThan(0);
      expect(b.filesPassedThrough).toBe(a.filesPassedThrough);
      expect(a.rowsUpdated + a.rowsDeleted).toBeGreaterThan(0);
      expect(comparableCounters(a)).toEqual(comparableCounters(b));
      expect(await addStats(inPlace, a.version)).toEqual(await addStats(fetched, b.version));
      const read = (uri: string) =>
        ws.oracle.call<{ rows: unknown[]; schema: unknown }>("merge_read", { uri });
      const [ra, rb, rc] = await Promise.all([read(inPlace), read(fetched), read(theirs)]);
      expect(ra.rows).toEqual(rc.rows);
      expect(rb.rows).toEqual(rc.rows);
    }, 120_000);
  },
);
