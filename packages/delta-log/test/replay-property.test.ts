// Property: for random action sequences (adds, removes, re-adds, deletion-vector variants of one path, txn
// updates, metadata changes), a snapshot loaded from a checkpoint plus the JSON tail equals the full replay
// of every commit — at the latest version and at every version after the checkpoint. The checkpoint is a
// real v2 JSON checkpoint (`<v>.checkpoint.<uuid>.json`, with `_last_checkpoint` pointing at it), read
// through the same segment and checkpoint code as any other table; then the commits up to the checkpoint
// are deleted (as log cleanup would) so the checkpoint alone must carry the state.
import { randomUUID } from "node:crypto";
import { InMemoryStore } from "@deltalite/object-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Action,
  commitKey,
  formatVersion,
  LAST_CHECKPOINT_KEY,
  type ParsedAction,
  ReplayState,
  Snapshot,
  serializeCommit,
} from "../src/index.js";

const PATHS = ["a.parquet", "b.parquet", "p=1/c.parquet", "p=2/d%20e.parquet", "f.parquet"];
const DVS = [undefined, "dv1", "dv2"];

type Op =
  | { op: "add"; path: number; dv: number; size: number }
  | { op: "remove"; path: number; dv: number }
  | { op: "txn"; app: number; version: number }
  | { op: "config"; value: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant("add" as const),
    path: fc.nat(PATHS.length - 1),
    dv: fc.nat(2),
    size: fc.nat(1000),
  }),
  fc.record({ op: fc.constant("remove" as const), path: fc.nat(PATHS.length - 1), dv: fc.nat(2) }),
  fc.record({ op: fc.constant("txn" as const), app: fc.nat(2), version: fc.nat(50) }),
  fc.record({ op: fc.constant("config" as const), value: fc.nat(9) }),
);

const schemaString = JSON.stringify({
  type: "struct",
  fields: [{ name: "id", type: "long", nullable: true, metadata: {} }],
});

function toActions(ops: Op[], version: number): Action[] {
  return ops.map((o): Action => {
    const dv = (i: number) =>
      DVS[i] === undefined
        ? {}
        : { deletionVector: { storageType: "i", pathOrInlineDv: DVS[i]!, sizeInBytes: 1, cardinality: 1 } };
    switch (o.op) {
      case "add":
        return {
          add: {
            path: PATHS[o.path]!,
            partitionValues: {},
            size: o.size,
            modificationTime: version,
            dataChange: true,
            ...dv(o.dv),
          },
        };
      case "remove":
        return {
          remove: { path: PATHS[o.path]!, deletionTimestamp: version, dataChange: true, ...dv(o.dv) },
        };
      case "txn":
        return { txn: { appId: `app-${o.app}`, version: o.version } };
      case "config":
        return {
          metaData: {
            id: "table-id",
            format: { provider: "parquet", options: {} },
            schemaString,
            partitionColumns: [],
            configuration: { "x.setting": String(o.value) },
            createdTime: 0,
          },
        };
      default:
        throw new Error("unknown op");
    }
  });
}

/** The state as comparable JSON: live files and tombstones by id, txns, metadata configuration. */
function stateOf(s: {
  liveFiles(): Iterable<{ key: string; add: { size: number; deletionVector?: unknown } }>;
  tombstones: readonly { path: string }[];
  appTransactions: ReadonlyMap<string, number>;
  configuration: Readonly<Record<string, string>>;
  version: number;
}) {
  return {
    version: s.version,
    files: [...s.liveFiles()]
      .map((f) => `${f.key}|${JSON.stringify(f.add.deletionVector ?? null)}|${f.add.size}`)
      .sort(),
    tombstones: s.tombstones.map((t) => t.path).sort(),
    txns: [...s.appTransactions].sort(),
    configuration: s.configuration,
  };
}

function v2Checkpoint(state: ReplayState, version: number): ParsedAction[] {
  return [
    { checkpointMetadata: { version } },
    { protocol: state.protocol! },
    { metaData: state.metadata! },
    ...[...state.txns.values()].map((txn) => ({ txn })),
    ...[...state.files.values()].map((f) => ({ add: { ...f.add, dataChange: false } })),
    ...[...state.tombstones.values()].map((t) => ({ remove: t.remove })),
  ];
}

describe("checkpoint + tail replay equals full replay", () => {
  it("on random action sequences, at the latest version and every version after the checkpoint (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(opArb, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 12 }),
        fc.nat(),
        async (commits, pick) => {
          const store = new InMemoryStore();
          const create: Action[] = [
            { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
            ...toActions([{ op: "config", value: 0 }], 0),
          ];
          const all: Action[][] = [create, ...commits.map((ops, i) => toActions(ops, i + 1))];
          for (const [version, actions] of all.entries()) {
            await store.put(commitKey(version), serializeCommit(actions), { mode: "create" });
          }
          // Full replay, version by version.
          const full: ReplayState[] = [];
          const state = new ReplayState("t");
          for (const [version, actions] of all.entries()) {
            state.apply(actions, version);
            full.push(state.clone());
          }
          const latest = all.length - 1;
          const checkpointVersion = pick % all.length;
          const cp = v2Checkpoint(full[checkpointVersion]!, checkpointVersion);
          const name = `_delta_log/${formatVersion(checkpointVersion)}.checkpoint.${randomUUID()}.json`;
          await store.put(name, serializeCommit(cp));
          await store.put(
            LAST_CHECKPOINT_KEY,
            new TextEncoder().encode(JSON.stringify({ version: checkpointVersion, size: cp.length })),
          );

          const viaCheckpoint = await Snapshot.open(store);
          expect(stateOf(viaCheckpoint)).toEqual(stateOf(snapshotLike(full[latest]!, latest)));
          for (let v = checkpointVersion; v <= latest; v++) {
            const at = await Snapshot.open(store, { version: v });
            expect(stateOf(at)).toEqual(stateOf(snapshotLike(full[v]!, v)));
          }
          // Versions before the checkpoint still replay from the JSON commits.
          if (checkpointVersion > 0) {
            const before = await Snapshot.open(store, { version: checkpointVersion - 1 });
            expect(stateOf(before)).toEqual(
              stateOf(snapshotLike(full[checkpointVersion - 1]!, checkpointVersion - 1)),
            );
          }
          // With the commits up to the checkpoint cleaned up, only the checkpoint can give the state.
          for (let v = 0; v <= checkpointVersion; v++) await store.delete(commitKey(v));
          expect(stateOf(await Snapshot.open(store))).toEqual(stateOf(snapshotLike(full[latest]!, latest)));
          const atCheckpoint = await Snapshot.open(store, { version: checkpointVersion });
          expect(stateOf(atCheckpoint)).toEqual(
            stateOf(snapshotLike(full[checkpointVersion]!, checkpointVersion)),
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});

function snapshotLike(state: ReplayState, version: number) {
  return {
    version,
    liveFiles: () => state.files.values(),
    tombstones: [...state.tombstones.values()].map((t) => ({ path: t.key })),
    appTransactions: new Map([...state.txns.values()].map((t) => [t.appId, t.version])),
    configuration: state.metadata!.configuration,
  };
}

describe("reload", () => {
  it("falls back to a full open when the commits right after the snapshot were cleaned up", async () => {
    const store = new InMemoryStore();
    const create: Action[] = [
      { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
      ...toActions([{ op: "config", value: 0 }], 0),
    ];
    await store.put(commitKey(0), serializeCommit(create));
    const old = await Snapshot.open(store);
    const state = new ReplayState("t");
    state.apply(create, 0);
    for (let v = 1; v <= 4; v++) {
      const actions = toActions([{ op: "add", path: v % PATHS.length, dv: 0, size: v }], v);
      state.apply(actions, v);
      await store.put(commitKey(v), serializeCommit(actions));
    }
    // Checkpoint at 3, commits 0..3 cleaned up: only 4.json follows it.
    await store.put(
      `_delta_log/${formatVersion(3)}.checkpoint.${randomUUID()}.json`,
      serializeCommit(v2Checkpoint(stateAt(3), 3)),
    );
    for (let v = 0; v <= 3; v++) await store.delete(commitKey(v));
    const reloaded = await old.reload();
    expect(stateOf(reloaded)).toEqual(stateOf(snapshotLike(state, 4)));

    function stateAt(version: number): ReplayState {
      const s = new ReplayState("t");
      s.apply(create, 0);
      for (let v = 1; v <= version; v++)
        s.apply(toActions([{ op: "add", path: v % PATHS.length, dv: 0, size: v }], v), v);
      return s;
    }
  });
});

describe("file versions", () => {
  it("each live file carries the version that added it; files a checkpoint lists carry its version", async () => {
    const store = new InMemoryStore();
    const create: Action[] = [
      { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
      ...toActions([{ op: "config", value: 0 }], 0),
    ];
    await store.put(commitKey(0), serializeCommit(create));
    const state = new ReplayState("t");
    state.apply(create, 0);
    // v1 adds a, v2 adds b, v3 adds p=1/c, v4 re-adds a (a new size) and adds f.
    const commits: Op[][] = [
      [{ op: "add", path: 0, dv: 0, size: 1 }],
      [{ op: "add", path: 1, dv: 0, size: 2 }],
      [{ op: "add", path: 2, dv: 0, size: 3 }],
      [
        { op: "add", path: 0, dv: 0, size: 4 },
        { op: "add", path: 4, dv: 0, size: 5 },
      ],
    ];
    for (const [i, ops] of commits.entries()) {
      await store.put(commitKey(i + 1), serializeCommit(toActions(ops, i + 1)));
    }
    const versions = (s: Snapshot) => Object.fromEntries(s.files.map((f) => [f.path, f.version]));
    const full = await Snapshot.open(store);
    expect(versions(full)).toEqual({ "a.parquet": 4, "b.parquet": 2, "p=1/c.parquet": 3, "f.parquet": 4 });
    const v2 = await Snapshot.open(store, { version: 2 });
    expect(versions(v2)).toEqual({ "a.parquet": 1, "b.parquet": 2 });
    // Commits applied in memory (the commit layer's view) stamp their own version.
    const advanced = v2.withCommits([{ version: 3, actions: toActions(commits[2]!, 3) }]);
    expect(versions(advanced)).toEqual({ "a.parquet": 1, "b.parquet": 2, "p=1/c.parquet": 3 });

    // A checkpoint at 3: the files it lists carry version 3, the tail's files their own.
    for (let v = 1; v <= 3; v++) state.apply(toActions(commits[v - 1]!, v), v);
    await store.put(
      `_delta_log/${formatVersion(3)}.checkpoint.${randomUUID()}.json`,
      serializeCommit(v2Checkpoint(state, 3)),
    );
    await store.put(LAST_CHECKPOINT_KEY, JSON.stringify({ version: 3, size: 1 }), { mode: "overwrite" });
    const fromCheckpoint = await Snapshot.open(store);
    expect(versions(fromCheckpoint)).toEqual({
      "a.parquet": 4,
      "b.parquet": 3,
      "p=1/c.parquet": 3,
      "f.parquet": 4,
    });
  });
});
