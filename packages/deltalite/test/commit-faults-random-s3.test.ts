// A seeded run of upserts and writes (append, overwrite) through the fault proxy to moto, with 10% of all
// requests (GET, HEAD, LIST, PUT, multipart) given a random fault: 500, 503, a drop before forwarding, a
// drop after the server answered, a stall past the request deadline. One handle, as a sync job holds it.
// After every operation: the answer agrees with the log (success exactly when a commit with the operation's
// opId landed, at the reported version, once; a clean failure left none; an unknown outcome is counted and
// judged by the log). A model applies exactly the landed operations; at the end delta-rs reads every version,
// no referenced file is missing, and the table's rows equal the model's. Figures are printed as one JSON
// line. DELTALITE_FAULT_RUN_OPS and DELTALITE_FAULT_RUN_SEED change the size and the seed.
import { isCommitOutcomeUnknown, isDeltaLiteError } from "@deltalite/errors";
import { mulberry32 } from "@deltalite/tools/fault-proxy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable } from "../src/index.js";
import { type FaultRig, loggedCommits, rowsOf, STALL_MS, startRig, wholeness } from "./fault-rig.js";

const OPS = Number(process.env.DELTALITE_FAULT_RUN_OPS ?? 120);
const SEED = Number(process.env.DELTALITE_FAULT_RUN_SEED ?? 20261201);

let rig: FaultRig;
beforeAll(async () => {
  rig = await startRig("fault-run");
});
afterAll(async () => {
  await rig?.close();
});

type Kind = "upsert" | "append" | "overwrite";
type Verdict = "succeeded" | "failed cleanly" | "unknown, landed" | "unknown, not landed" | "disagrees";

describe("a seeded run with 10% random faults", () => {
  it(`${OPS} upserts and writes: no corrupt version, no answer that disagrees with the table`, {
    timeout: 900_000,
  }, async () => {
    // The run's own choices (which operation, which keys), apart from the proxy's fault draws.
    const next = mulberry32(SEED);
    const uri = `s3://${rig.bucket}/table`;
    const model = new Map<number, string>();
    const seed = rowsOf(
      Array.from({ length: 30 }, (_, i) => i),
      "v0",
    );
    await DeltaLiteTable.write(uri, seed, { storageOptions: rig.direct, partitionBy: ["part"] });
    for (let id = 0; id < 30; id++) model.set(id, `v0-${id}`);
    let nextId = 30;
    rig.proxy.setRandom({
      rate: 0.1,
      seed: SEED,
      faults: [
        { type: "status-before", status: 500 },
        { type: "status-before", status: 503 },
        { type: "drop-before" },
        { type: "drop-after" },
        { type: "status-after", status: 500 },
        { type: "stall", ms: STALL_MS },
      ],
      match: { path: new RegExp(`^/${rig.bucket}/table/`) },
    });
    const handle = await openWithRetries(uri);
    const verdicts: Record<string, number> = {};
    const failures: Record<string, number> = {};
    const disagreements: string[] = [];
    const examples: string[] = [];
    const kinds: Record<string, number> = {};
    let latest = (await loggedCommits(uri, rig.direct)).at(-1)?.version ?? -1;
    for (let i = 1; i <= OPS; i++) {
      const opId = `op-${i}`;
      const roll = next();
      const kind: Kind = roll < 0.6 ? "upsert" : roll < 0.92 ? "append" : "overwrite";
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      const existing = [...model.keys()];
      const ids =
        kind === "upsert"
          ? [
              ...new Set(Array.from({ length: 8 }, () => existing[Math.floor(next() * existing.length)]!)),
            ].concat(Array.from({ length: 4 }, () => nextId++))
          : Array.from({ length: kind === "append" ? 6 : 10 }, () => nextId++);
      const batch = rowsOf(ids, `${opId}`);
      let version: number | undefined;
      let error: unknown;
      try {
        if (kind === "upsert") {
          const stats = await handle.upsert(batch, {
            primaryKeys: ["id"],
            partitionKey: "part",
            commitMetadata: { opId },
          });
          version = stats.version;
        } else {
          const result = await handle.write(batch, {
            mode: kind === "overwrite" ? "overwrite" : "append",
            commitMetadata: { opId },
          });
          version = result.version;
        }
      } catch (caught) {
        error = caught;
      }
      await rig.proxy.idle(15_000);
      const fresh = await loggedCommits(uri, rig.direct, latest + 1);
      latest = fresh.at(-1)?.version ?? latest;
      const landed = fresh.filter((c) => c.opId === opId);
      const unknown = isCommitOutcomeUnknown(error);
      let verdict: Verdict;
      if (landed.length > 1) verdict = "disagrees";
      else if (error === undefined)
        verdict = landed.length === 1 && landed[0]!.version === version ? "succeeded" : "disagrees";
      else if (unknown) verdict = landed.length === 1 ? "unknown, landed" : "unknown, not landed";
      else verdict = landed.length === 0 && isDeltaLiteError(error) ? "failed cleanly" : "disagrees";
      verdicts[verdict] = (verdicts[verdict] ?? 0) + 1;
      if (error !== undefined && !unknown) {
        const key = isDeltaLiteError(error)
          ? `${error.kind}${error.retryable ? " (retryable)" : ""}`
          : "not typed";
        failures[key] = (failures[key] ?? 0) + 1;
        if (failures[key] <= 2) examples.push(`${opId} ${kind}: ${String(error).slice(0, 300)}`);
      }
      if (verdict === "disagrees") {
        disagreements.push(
          `${opId} ${kind}: answer ${error === undefined ? `v${version}` : String(error)}; log ${JSON.stringify(landed)}`,
        );
      }
      if (landed.length === 1) {
        if (kind === "overwrite") model.clear();
        for (const id of ids) model.set(id, `${opId}-${id}`);
      }
    }
    rig.proxy.setRandom(undefined);
    const events = rig.proxy.events();
    const faults: Record<string, number> = {};
    for (const e of events) if (e.fault !== "none") faults[e.fault] = (faults[e.fault] ?? 0) + 1;
    const whole = await wholeness(rig, uri);
    const corrupt = whole.versions.filter((v) => v.error !== undefined);
    const rows = (await rig.oracle.call("delta_read_rows", {
      uri,
      storage_options: rig.direct,
      sort_by: ["id"],
    })) as { id: number; val: string }[];
    const expected = [...model].sort((a, b) => a[0] - b[0]).map(([id, val]) => ({ id, val }));
    const figures = {
      seed: SEED,
      operations: OPS,
      kinds,
      requests: events.length,
      faultsFired: faults,
      verdicts,
      failures,
      failureExamples: examples,
      disagreements: disagreements.length,
      versions: whole.versions.length,
      corruptVersions: corrupt.length,
      missingFiles: whole.missing.length,
      rows: rows.length,
      rowsEqualModel:
        JSON.stringify(rows.map((r) => ({ id: r.id, val: r.val }))) === JSON.stringify(expected),
    };
    console.log(`fault run figures: ${JSON.stringify(figures)}`);
    expect(disagreements).toEqual([]);
    expect(corrupt).toEqual([]);
    expect(whole.missing).toEqual([]);
    expect(rows.map((r) => ({ id: r.id, val: r.val }))).toEqual(expected);
    expect(Object.values(faults).reduce((a, b) => a + b, 0)).toBeGreaterThan(OPS / 2);
    expect(verdicts.succeeded ?? 0).toBeGreaterThan(OPS / 2);
  });
});

/** Opening the handle goes through the faults too; a failed open is retried (it changes nothing). */
async function openWithRetries(uri: string): Promise<DeltaLiteTable> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await DeltaLiteTable.open(uri, { storageOptions: rig.viaProxy });
    } catch (error) {
      if (attempt >= 10) throw error;
    }
  }
}
