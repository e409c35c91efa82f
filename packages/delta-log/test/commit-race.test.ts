// Racing writer processes: 4 processes × 25 blind-append commits on one table, on local disk and on the
// moto S3 server. Every version 1..100 is written exactly once, no commit is lost (the losers rebase), each
// commit holds exactly the add its writer made, and delta-rs reads the result. The children import the
// BUILT package (run `pnpm exec tsc -b` first). Conflicting processes (all removing one file) end with exactly
// one commit and typed conflicts for the rest.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { openStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitKey, commitTransaction, createTable, parseCommit, Snapshot } from "../src/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const PROCESSES = 4;
const COMMITS = 25;

let oracle: Oracle;
let tmp: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-race-"));
});
afterAll(async () => {
  oracle?.close();
  await fs.rm(tmp, { recursive: true, force: true });
});

interface ChildResult {
  id: number;
  versions: number[];
  attempts: number[];
}

function runChild(
  uri: string,
  id: number,
  startAt: number,
  storageOptions: Record<string, string>,
): Promise<ChildResult> {
  return runScript("commit-race-child.mjs", [
    uri,
    String(id),
    String(COMMITS),
    String(startAt),
    JSON.stringify(storageOptions),
  ]);
}

/** Runs a child script (args[1] is its id) and parses the JSON it prints. */
function runScript<T>(script: string, args: string[]): Promise<T> {
  const child = path.join(here, "fixtures", script);
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    proc.stdout.on("data", (d) => {
      out += d;
    });
    proc.stderr.on("data", (d) => {
      err += d;
    });
    proc.on("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(out) as T)
        : reject(new Error(`child ${args[1]} exited ${code}: ${err}`)),
    );
  });
}

const backends = [
  {
    name: "local disk",
    async location() {
      return { uri: path.join(tmp, `table-${randomBytes(4).toString("hex")}`), storageOptions: {} };
    },
  },
  {
    name: "S3 (moto)",
    async location() {
      const s3 = testS3();
      const bucket = await s3.createBucket(`race-${randomBytes(4).toString("hex")}`);
      return { uri: `s3://${bucket}/events`, storageOptions: s3.storageOptions };
    },
  },
];

describe("commit races across processes", () => {
  it("runs against the built package", () => {
    const dist = path.join(here, "..", "dist", "transaction.js");
    expect(existsSync(dist), "the race children import the built package: run `pnpm exec tsc -b` first").toBe(
      true,
    );
  });

  it.each(backends)(
    "$name: 4 processes × 25 commits write versions 1..100 exactly once and lose nothing",
    async ({ location }) => {
      const { uri, storageOptions } = await location();
      const store = openStore(uri, { storageOptions });
      await createTable(store, {
        schema: { type: "struct", fields: [{ name: "id", type: "long", nullable: true, metadata: {} }] },
      });
      const startAt = Date.now() + 1500;
      const results = await Promise.all(
        Array.from({ length: PROCESSES }, (_, id) => runChild(uri, id, startAt, storageOptions)),
      );

      // Each process got COMMITS distinct versions, and together they are exactly 1..100.
      const all = results.flatMap((r) => r.versions).sort((a, b) => a - b);
      expect(all).toEqual(Array.from({ length: PROCESSES * COMMITS }, (_, i) => i + 1));
      // The processes really raced: some commits needed more than one attempt.
      const attempts = results.flatMap((r) => r.attempts);
      expect(attempts.some((a) => a > 1)).toBe(true);
      console.log(
        `${uri.startsWith("s3://") ? "S3" : "local"} race: ${attempts.length} commits, ${attempts.filter((a) => a > 1).length} rebased, ` +
          `max attempts ${Math.max(...attempts)}, total attempts ${attempts.reduce((x, y) => x + y, 0)}`,
      );

      // Every commit file holds exactly the add its writer reported for that version.
      for (const r of results) {
        for (const [seq, version] of r.versions.entries()) {
          const actions = parseCommit(await store.get(commitKey(version)), commitKey(version));
          const adds = actions.flatMap((a) => ("add" in a ? [a.add] : []));
          expect(adds.map((a) => a.path)).toEqual([
            `writer-${r.id}/file-${String(seq).padStart(3, "0")}.parquet`,
          ]);
          const info = actions.find((a) => "commitInfo" in a);
          expect(info && "commitInfo" in info ? info.commitInfo : undefined).toMatchObject({
            operation: "WRITE",
            writer: r.id,
            seq,
            isBlindAppend: true,
          });
        }
      }

      const snapshot = await Snapshot.open(store);
      expect(snapshot.version).toBe(100);
      expect(snapshot.numFiles).toBe(100);

      // delta-rs reads the same table: version 100 with the same 100 files.
      const theirs = await oracle.call<{ version: number; files: { path: string; size: number }[] }>(
        "delta_snapshot",
        {
          uri,
          storage_options: storageOptions,
        },
      );
      expect(theirs.version).toBe(100);
      expect(theirs.files.map((f) => `${f.path}:${f.size}`).sort()).toEqual(
        snapshot.files.map((f) => `${f.path}:${f.size}`).sort(),
      );
    },
    180_000,
  );

  it.each(backends)(
    "$name: 4 processes removing the same file at once — exactly one commits, the others get the typed conflict",
    async ({ location }) => {
      const { uri, storageOptions } = await location();
      const store = openStore(uri, { storageOptions });
      const { snapshot } = await createTable(store, {
        schema: { type: "struct", fields: [{ name: "id", type: "long", nullable: true, metadata: {} }] },
      });
      await commitTransaction(
        snapshot,
        [
          {
            add: {
              path: "victim.parquet",
              partitionValues: {},
              size: 5,
              modificationTime: 1,
              dataChange: true,
            },
          },
        ],
        { operation: "WRITE" },
      );
      const startAt = Date.now() + 1500;
      type Outcome = {
        id: number;
        version?: number;
        error?: { kind: string; name: string; retryable: boolean; winningVersion: number };
      };
      const outcomes = await Promise.all(
        Array.from({ length: PROCESSES }, (_, id) =>
          runScript<Outcome>("conflict-child.mjs", [
            uri,
            String(id),
            String(startAt),
            JSON.stringify(storageOptions),
          ]),
        ),
      );
      const winners = outcomes.filter((o) => o.version !== undefined);
      expect(winners).toHaveLength(1);
      expect(winners[0]!.version).toBe(2);
      expect(outcomes.filter((o) => o.error)).toHaveLength(PROCESSES - 1);
      for (const loser of outcomes.filter((o) => o.error)) {
        expect(loser.error).toEqual({
          kind: "conflict",
          name: "DeltaLiteCommitConflictError",
          retryable: true,
          winningVersion: 2,
        });
      }
      const final = await Snapshot.open(store);
      expect(final.version).toBe(2);
      expect(final.files.map((f) => f.path)).toEqual([`replacement-${winners[0]!.id}.parquet`]);
    },
    60_000,
  );
});
