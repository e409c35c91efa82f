// Other writers between two of our upserts: delta-rs (the oracle) appends, overwrites, checkpoints, cleans
// the log up with zero retention (the commits below its checkpoint deleted), or deletes the table and
// re-creates it at the same path. Three copies of one delta-rs table: ours with the log-request switches on,
// ours with them off (today's requests), and delta-rs's own, where delta-rs MERGE runs our upserts. Every
// case must end with the same rows as delta-rs MERGE gives; the refresh probe's outcome says which path the
// handle took. Also: a stale-404 store (a cache in front of the store) costs a lost race and then LISTs.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { CountingStore, StaleNotFoundStore } from "@deltalite/object-store/testing";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { type Table, tableToIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitKey, type LogProbeEvent, onLogProbe, parseLogPath } from "../src/index.js";
import {
  columnsOf,
  type DeltaLiteTable,
  LOG_SWITCHES,
  openHandle,
  requestsOf,
  rows,
  withSwitchesOff,
} from "./helpers/handle-rig.js";

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-log-writers-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

const events: LogProbeEvent[] = [];
onLogProbe((event) => events.push(event));

let n = 0;
async function ipcFile(table: Table): Promise<string> {
  const file = path.join(tmp, `source-${n++}.arrow`);
  await fs.writeFile(file, tableToIPC(table, "file"));
  return file;
}

/** Three byte-identical delta-rs tables (versions 0 and 1): ours on, ours off, delta-rs's. */
async function threeCopies(): Promise<{ on: string; off: string; theirs: string }> {
  const base = path.join(tmp, `case-${n++}`);
  const uris = { on: `${base}-on`, off: `${base}-off`, theirs: `${base}-theirs` };
  await oracle.call("merge_create", {
    uris: [uris.on, uris.off, uris.theirs],
    data: await ipcFile(rows([1, 2, 3, 4, 5, 6], 0)),
    partition_by: ["day"],
    appends: 2,
  });
  return uris;
}

/** Our upsert through `table` (switches as `switchesOn` says), and delta-rs MERGE of the same rows on `theirs`. */
async function upsertEverywhere(
  handles: { on: DeltaLiteTable; off: DeltaLiteTable },
  theirs: string,
  source: Table,
): Promise<{ on: unknown; off: unknown }> {
  const settle = (p: Promise<unknown>) =>
    p.then(
      () => "ok",
      (error: unknown) => error,
    );
  const on = await settle(handles.on.upsert(source, { primaryKeys: ["id"] }));
  const off = await withSwitchesOff(LOG_SWITCHES, () =>
    settle(handles.off.upsert(source, { primaryKeys: ["id"] })),
  );
  await oracle.call("merge_delta_rs", {
    uri: theirs,
    source: await ipcFile(source),
    keys: ["id"],
    partition_key: "day",
  });
  return { on, off };
}

const readRows = async (uri: string) => (await oracle.call<{ rows: unknown[] }>("merge_read", { uri })).rows;

/** What the other writer does between our two upserts, on each copy. */
const OTHER_WRITERS: {
  name: string;
  expected: LogProbeEvent["outcome"];
  act: (uri: string) => Promise<void>;
}[] = [
  {
    name: "a delta-rs append",
    expected: "new_commits",
    act: async (uri) => {
      await oracle.call("delta_write", { uri, columns: columnsOf([20, 21, 22], 7), mode: "append" });
    },
  },
  {
    name: "a delta-rs overwrite",
    expected: "new_commits",
    act: async (uri) => {
      await oracle.call("delta_write", {
        uri,
        columns: columnsOf([2, 30], 8),
        mode: "overwrite",
        partition_by: ["day"],
      });
    },
  },
  {
    name: "a delta-rs checkpoint",
    expected: "current",
    act: async (uri) => {
      await oracle.call("delta_create_checkpoint", { uri });
    },
  },
  {
    name: "an append, a checkpoint and log cleanup with zero retention",
    expected: "replaced",
    act: async (uri) => {
      await oracle.call("delta_write", { uri, columns: columnsOf([40], 9), mode: "append" });
      const { version } = await oracle.call<{ version: number }>("delta_create_checkpoint", { uri });
      await removeCommitsBelow(uri, version);
    },
  },
  {
    name: "the table deleted and re-created at the same path",
    expected: "replaced",
    act: async (uri) => {
      await fs.rm(uri, { recursive: true, force: true });
      await oracle.call("delta_write", { uri, columns: columnsOf([1, 50, 51], 10), partition_by: ["day"] });
    },
  },
];

/** Log cleanup with zero retention: every commit and checkpoint file below `version` goes. */
async function removeCommitsBelow(uri: string, version: number): Promise<void> {
  const dir = path.join(uri, "_delta_log");
  for (const name of await fs.readdir(dir)) {
    const parsed = parseLogPath(`_delta_log/${name}`);
    if (parsed.kind !== "unknown" && "version" in parsed && parsed.version < version) {
      await fs.rm(path.join(dir, name));
    }
  }
}

describe("another writer between two of our upserts", () => {
  it.each(OTHER_WRITERS)("$name: observed as delta-rs MERGE sees it", async ({ name, expected, act }) => {
    const uris = await threeCopies();
    const handles = {
      on: await openHandle(new LocalFileStore(uris.on)),
      off: await openHandle(new LocalFileStore(uris.off)),
    };
    expect(await upsertEverywhere(handles, uris.theirs, rows([2, 7], 1))).toEqual({ on: "ok", off: "ok" });
    for (const uri of Object.values(uris)) await act(uri);
    events.splice(0);
    const second = await upsertEverywhere(handles, uris.theirs, rows([1, 2, 8, 20], 2));
    expect(second.on).toBe("ok");
    expect(events[0]).toEqual({ probe: "refresh", outcome: expected });
    const theirs = await readRows(uris.theirs);
    expect(await readRows(uris.on)).toEqual(theirs);
    if (name.includes("re-created")) {
      // Switched off (today), the handle LISTs after its old version, finds nothing and plans on the gone
      // table: the probe of a file the re-created table does not have fails, typed, and nothing is written.
      expect(second.off).toMatchObject({ kind: "not_found" });
      expect(await fs.readdir(path.join(uris.off, "_delta_log"))).toEqual([commitKey(0).slice(11)]);
      return;
    }
    expect(second.off).toBe("ok");
    expect(await readRows(uris.off)).toEqual(theirs);
  });

  it("the table re-created between the refresh and the commit: a conflict, nothing written, re-planned", async () => {
    const uris = await threeCopies();
    // The second anchor HEAD of the upsert is the commit probe's: the table is replaced just before it.
    const store = new CountingStore(new LocalFileStore(uris.on));
    const head = store.head.bind(store);
    let logHeads = 0;
    store.head = async (key, options) => {
      if (key.startsWith("_delta_log/") && ++logHeads === 2) await OTHER_WRITERS[4]!.act(uris.on);
      return head(key, options);
    };
    const table = await openHandle(store);
    events.splice(0);
    const stats = await table.upsert(rows([1, 2, 8], 3), { primaryKeys: ["id"] });
    expect(events.slice(0, 2)).toEqual([
      { probe: "refresh", outcome: "current" },
      { probe: "commit", outcome: "replaced" },
    ]);
    expect(stats.planAttempts).toBe(2);
    // Nothing was committed onto the re-created table by the first attempt: its log is 0 and our 1.
    const log = (await fs.readdir(path.join(uris.on, "_delta_log"))).filter((f) => f.endsWith(".json"));
    expect(log).toEqual([commitKey(0), commitKey(1)].map((k) => k.slice("_delta_log/".length)));
    await OTHER_WRITERS[4]!.act(uris.theirs);
    await oracle.call("merge_delta_rs", {
      uri: uris.theirs,
      source: await ipcFile(rows([1, 2, 8], 3)),
      keys: ["id"],
      partition_key: "day",
    });
    expect(await readRows(uris.on)).toEqual(await readRows(uris.theirs));
  });

  it("a stale 404 of the next commit: the race is lost, the upsert is right, and the handle LISTs from then on", async () => {
    const uris = await threeCopies();
    // The cache in front of the store answers 404 for commit 3 once (after delta-rs wrote it).
    let staleOnce = true;
    const stale = new StaleNotFoundStore(new LocalFileStore(uris.on), (key) => {
      if (key !== commitKey(3) || !staleOnce) return false;
      staleOnce = false;
      return true;
    });
    const store = new CountingStore(stale);
    const table = await openHandle(store);
    await table.upsert(rows([2, 7], 1), { primaryKeys: ["id"] });
    await oracle.call("merge_delta_rs", {
      uri: uris.theirs,
      source: await ipcFile(rows([2, 7], 1)),
      keys: ["id"],
      partition_key: "day",
    });
    for (const uri of [uris.on, uris.theirs]) {
      await oracle.call("delta_write", { uri, columns: columnsOf([20], 7), mode: "append" });
    }
    events.splice(0);
    await table.upsert(rows([2, 9], 2), { primaryKeys: ["id"] });
    await oracle.call("merge_delta_rs", {
      uri: uris.theirs,
      source: await ipcFile(rows([2, 9], 2)),
      keys: ["id"],
      partition_key: "day",
    });
    expect(stale.staleAnswers).toBe(1);
    expect(events[0]).toEqual({ probe: "refresh", outcome: "current" });
    expect(await readRows(uris.on)).toEqual(await readRows(uris.theirs));
    store.reset();
    events.splice(0);
    await table.upsert(rows([3], 3), { primaryKeys: ["id"] });
    expect(events[0]).toEqual({ probe: "refresh", outcome: "listed" });
    expect(requestsOf(store).log.list).toBe(1);
  });
});
