// Faults between our S3 client and the real (moto) server, injected by the tools' fault proxy on loopback:
// a reply dropped after the server stored the request, a stall past the request deadline that lands later,
// a 5xx before and after forwarding, a request dropped before forwarding — on the commit PUT and on the
// data-file PUTs of upsert, append, overwrite, the upsert's relax commit and vacuum. After each: the answer
// agrees with the table (success exactly when the operation's commit landed, a landed commit reported and
// written once), delta-rs reads every version, and no file a version references is missing.
import { spawn } from "node:child_process";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { isCommitOutcomeUnknown, isDeltaLiteError } from "@deltalite/errors";
import type { ProxyFault } from "@deltalite/tools/fault-proxy";
import { tableToIPC } from "apache-arrow";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DeltaLiteTable } from "../src/index.js";
import {
  dataFilesOnServer,
  type FaultRig,
  loggedCommits,
  rowsOf,
  STALL_MS,
  startRig,
  strictSchema,
  wholeness,
} from "./fault-rig.js";

let rig: FaultRig;
beforeAll(async () => {
  rig = await startRig("commit-faults");
});
afterAll(async () => {
  await rig?.close();
});

type Op = "upsert" | "append" | "overwrite" | "relax" | "vacuum";

const commitFaults: ProxyFault[] = [
  { type: "drop-after" },
  { type: "stall", ms: STALL_MS },
  { type: "status-before", status: 503 },
  { type: "status-after", status: 500 },
  { type: "drop-before" },
];
const dataFaults: ProxyFault[] = [
  { type: "drop-after" },
  { type: "stall", ms: STALL_MS },
  { type: "status-before", status: 503 },
  { type: "status-after", status: 500 },
];
const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/** Creates the table straight on moto; returns its version and delta-rs's row count. */
async function setUp(op: Op, uri: string): Promise<{ version: number; rows: number }> {
  const direct = { storageOptions: rig.direct };
  if (op === "relax") {
    const table = await DeltaLiteTable.create(uri, strictSchema(), { ...direct, partitionBy: ["part"] });
    await table.write(rowsOf(ids(0, 30), "old"));
  } else {
    const { table } = await DeltaLiteTable.write(uri, rowsOf(ids(0, 30), "old"), {
      ...direct,
      partitionBy: ["part"],
    });
    if (op === "vacuum") await table.write(rowsOf(ids(0, 12), "new"), { mode: "overwrite" });
  }
  const table = await DeltaLiteTable.open(uri, direct);
  return { version: table.version, rows: op === "vacuum" ? 12 : 30 };
}

/** Runs `op` through the proxy with commitMetadata.opId; returns the version it reports, or its error. */
async function run(op: Op, uri: string, opId: string): Promise<{ version?: number; error?: unknown }> {
  const commitMetadata = { opId };
  try {
    const table = await DeltaLiteTable.open(uri, { storageOptions: rig.viaProxy });
    switch (op) {
      case "upsert":
      case "relax": {
        const source = rowsOf([...ids(20, 10), ...ids(100, 5)], "upd", (id) => op === "relax" && id === 21);
        const stats = await table.upsert(source, {
          primaryKeys: ["id"],
          partitionKey: "part",
          commitMetadata,
        });
        return { version: stats.version };
      }
      case "append":
        return { version: (await table.write(rowsOf(ids(200, 15), "app"), { commitMetadata })).version };
      case "overwrite":
        return {
          version: (await table.write(rowsOf(ids(300, 9), "ovr"), { mode: "overwrite", commitMetadata }))
            .version,
        };
      case "vacuum": {
        const result = await table.vacuum({
          retentionHours: 0,
          enforceRetentionDuration: false,
          commitMetadata,
        });
        expect(result.files.length).toBeGreaterThan(0);
        return { version: result.versions.at(-1) };
      }
    }
  } catch (error) {
    return { error };
  }
}

/** delta-rs's row count after a landed `op` on a table of `before` rows. */
function rowsAfter(op: Op, before: number): number {
  return { upsert: before + 5, relax: before + 5, append: before + 15, overwrite: 9, vacuum: before }[op];
}

let n = 0;
async function faultCase(op: Op, target: "commit" | "data", fault: ProxyFault) {
  const name = `${op}-${target}-${fault.type}-${++n}`;
  const uri = `s3://${rig.bucket}/${name}`;
  const before = await setUp(op, uri);
  // The operation's own commit: the relax commit comes first for "relax", VACUUM START for "vacuum".
  const commitVersion = String(before.version + 1).padStart(20, "0");
  const path =
    target === "commit"
      ? new RegExp(`^/${rig.bucket}/${name}/_delta_log/${commitVersion}\\.json$`)
      : new RegExp(`^/${rig.bucket}/${name}/.*\\.parquet$`);
  rig.proxy.clearEvents();
  rig.proxy.setRules([{ method: "PUT", path, times: 1, fault }]);
  const outcome = await run(op, uri, name);
  await rig.proxy.idle(10_000); // a stalled request lands (or is refused) before we judge
  rig.proxy.setRules([]);

  expect(rig.proxy.events().filter((e) => e.fault === fault.type && path.test(e.path))).toHaveLength(1);
  const commits = (await loggedCommits(uri, rig.direct)).filter((c) => c.version > before.version);
  const ours = commits.filter((c) => c.opId === name);
  // A vacuum deletes what versions before the table's overwrite referenced: those are not judged.
  const whole = await wholeness(rig, uri, op === "vacuum" ? before.version : 0);
  expect(whole.missing).toEqual([]);
  expect(whole.versions.filter((v) => v.error !== undefined)).toEqual([]);
  expect(isCommitOutcomeUnknown(outcome.error), String(outcome.error)).toBe(false);
  if (outcome.error === undefined) {
    // Landed, and exactly once: one commit of the operation (VACUUM START + END for vacuum), one relax commit.
    expect(ours.map((c) => c.operation)).toEqual(
      op === "vacuum"
        ? ["VACUUM START", "VACUUM END"]
        : [op === "append" || op === "overwrite" ? "WRITE" : "MERGE"],
    );
    expect(outcome.version).toBe(ours.at(-1)?.version);
    expect(commits.length).toBe(ours.length + (op === "relax" ? 1 : 0));
    expect(whole.versions.at(-1)?.rows).toBe(rowsAfter(op, before.rows));
  } else {
    expect(isDeltaLiteError(outcome.error), String(outcome.error)).toBe(true);
    expect(ours).toEqual([]);
  }
  return { outcome, name, uri };
}

describe("commit PUT faults through a proxy to moto", () => {
  for (const op of ["upsert", "append", "overwrite", "relax", "vacuum"] as const) {
    for (const fault of commitFaults) {
      it(`${op}: ${fault.type} on its commit PUT — it lands once and the call says so`, async () => {
        const { outcome } = await faultCase(op, "commit", fault);
        // One fault on one request is always recoverable: the outcome is settled as a success.
        expect(outcome.error, String(outcome.error)).toBeUndefined();
      });
    }
  }
});

describe("data-file PUT faults through a proxy to moto", () => {
  for (const op of ["upsert", "append", "overwrite"] as const) {
    for (const fault of dataFaults) {
      it(`${op}: ${fault.type} on a data-file PUT — the answer agrees with the table`, async () => {
        const { outcome } = await faultCase(op, "data", fault);
        if (fault.type === "stall") {
          // The file is not there when the deadline passes, so the call fails (typed, retryable) and commits
          // nothing; the late file is an orphan for vacuum.
          expect(outcome.error).toMatchObject({ kind: "timeout", retryable: true });
        } else {
          // A lost reply or a 5xx after storing: the retry's 412 is recognised as our own file.
          expect(outcome.error, String(outcome.error)).toBeUndefined();
        }
      });
    }
  }
});

describe("a commit PUT that keeps failing", () => {
  it("append: every commit PUT answered 503 — outcome unknown, files kept, table unchanged; vacuum takes them", async () => {
    const name = `unknown-${++n}`;
    const uri = `s3://${rig.bucket}/${name}`;
    const before = await setUp("append", uri);
    const filesBefore = await dataFilesOnServer(uri, rig.direct);
    rig.proxy.setRules([
      {
        method: "PUT",
        path: new RegExp(`^/${rig.bucket}/${name}/_delta_log/.*\\.json$`),
        fault: { type: "status-before", status: 503 },
      },
    ]);
    const outcome = await run("append", uri, name);
    rig.proxy.setRules([]);
    expect(isCommitOutcomeUnknown(outcome.error), String(outcome.error)).toBe(true);
    expect(outcome.error).toMatchObject({ kind: "generic", retryable: false, version: before.version + 1 });
    expect((await loggedCommits(uri, rig.direct)).length).toBe(before.version + 1);
    const filesAfter = await dataFilesOnServer(uri, rig.direct);
    expect(filesAfter.length).toBeGreaterThan(filesBefore.length);
    const whole = await wholeness(rig, uri);
    expect(whole.missing).toEqual([]);
    // The kept files are referenced by no version: a full vacuum removes exactly them.
    const table = await DeltaLiteTable.open(uri, { storageOptions: rig.direct });
    const vacuumed = await table.vacuum({ full: true, retentionHours: 0, enforceRetentionDuration: false });
    expect(vacuumed.files.filter((f) => !filesBefore.includes(f)).sort()).toEqual(
      filesAfter.filter((f) => !filesBefore.includes(f)),
    );
  });
});

describe("the CLI through the proxy", () => {
  const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");

  /** Runs the built CLI in a child process (asynchronously: the proxy serves from this process). */
  function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cli, ...args], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  }

  async function appendViaCli(name: string, rule: Parameters<FaultRig["proxy"]["setRules"]>[0][number]) {
    const uri = `s3://${rig.bucket}/${name}`;
    const before = await setUp("append", uri);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-faults-"));
    const input = path.join(dir, "rows.arrow");
    await fs.writeFile(input, tableToIPC(rowsOf(ids(500, 7), "cli"), "file"));
    const options = Object.entries(rig.viaProxy).flatMap(([k, v]) => ["--storage-option", `${k}=${v}`]);
    rig.proxy.setRules([rule]);
    const out = await runCli(["write", uri, "--input", input, "--mode", "append", "--json", ...options]);
    await rig.proxy.idle(10_000);
    rig.proxy.setRules([]);
    await fs.rm(dir, { recursive: true, force: true });
    return { out, before, commits: await loggedCommits(uri, rig.direct), uri };
  }

  it("write --mode append with the commit reply dropped: exit 0, the version it names, committed once", async () => {
    const name = `cli-drop-${++n}`;
    const commit = new RegExp(`^/${rig.bucket}/${name}/_delta_log/0{19}1\\.json$`);
    const { out, commits, uri } = await appendViaCli(name, {
      method: "PUT",
      path: commit,
      times: 1,
      fault: { type: "drop-after" },
    });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ version: 1, rowsWritten: 7 });
    expect(commits.map((c) => c.version)).toEqual([0, 1]);
    expect((await wholeness(rig, uri)).versions.map((v) => v.rows)).toEqual([30, 37]);
  });

  it("write --mode append whose commit never settles: exit 1, the JSON error says unknown and not retryable", async () => {
    const name = `cli-unknown-${++n}`;
    const { out, commits } = await appendViaCli(name, {
      method: "PUT",
      path: new RegExp(`^/${rig.bucket}/${name}/_delta_log/.*\\.json$`),
      fault: { type: "status-before", status: 503 },
    });
    expect(out.code).toBe(1);
    expect(JSON.parse(out.stdout)).toEqual({
      error: {
        kind: "generic",
        message: expect.stringContaining("may or may not have landed"),
        retryable: false,
        commitOutcome: "unknown",
        version: 1,
        txnId: expect.any(String),
      },
    });
    // One line on stderr, ours: the AWS SDK's Node-version notice does not reach the user.
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
    expect(out.stderr).toMatch(/^deltalite write: generic: /);
    expect(out.stdout + out.stderr).not.toContain(rig.direct.AWS_SECRET_ACCESS_KEY);
    expect(commits.map((c) => c.version)).toEqual([0]);
  });
});

describe("a refresh that fails after a landed commit", () => {
  // A handle that adopts its own commit's snapshot and probes instead of listing makes no LIST here: these
  // cases are the listing refresh's, so the two switches are off (log-requests-*.test.ts cover them on).
  const SWITCHES = ["DELTALITE_ADOPT_COMMIT_SNAPSHOT", "DELTALITE_PROBE_REFRESH"];
  beforeEach(() => {
    for (const name of SWITCHES) process.env[name] = "off";
  });
  afterEach(() => {
    for (const name of SWITCHES) delete process.env[name];
  });
  for (const op of ["upsert", "vacuum"] as const) {
    it(`${op}: the landed commit is the answer; the handle reloads before its next use`, async () => {
      const name = `refresh-${op}-${++n}`;
      const uri = `s3://${rig.bucket}/${name}`;
      const before = await setUp(op, uri);
      const table = await DeltaLiteTable.open(uri, { storageOptions: rig.viaProxy });
      // Every LIST after the first one this operation makes fails (the SDK's retries included).
      const list = { method: "GET", path: new RegExp(`^/${rig.bucket}/?$`), query: /list-type=2/ };
      rig.proxy.clearEvents();
      rig.proxy.setRules([{ ...list, call: 2, times: 50, fault: { type: "status-before", status: 500 } }]);
      const version =
        op === "upsert"
          ? (await table.upsert(rowsOf(ids(20, 5), "upd"), { primaryKeys: ["id"], partitionKey: "part" }))
              .version
          : (await table.vacuum({ retentionHours: 0, enforceRetentionDuration: false })).versions.at(-1);
      rig.proxy.setRules([]);
      expect(rig.proxy.events().filter((e) => e.fault === "status-before").length).toBeGreaterThan(0);
      const logged = await loggedCommits(uri, rig.direct);
      expect(version).toBe(logged.at(-1)?.version);
      expect(version).toBeGreaterThan(before.version);
      // The next operation through the same handle starts from the table as it is.
      const next = await table.write(rowsOf(ids(900, 3), "after"));
      expect(next.version).toBe((version as number) + 1);
    });
  }
});
