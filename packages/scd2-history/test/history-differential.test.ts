/**
 * Differential property: random SCD2 sequences (fast-check, fixed seed) — several batches each, single and
 * two-column keys with NULL parts (and "" beside NULL), duplicate order values with and without a
 * tie-break (in the table, or only in the source; NULL tie-breaks), backwards and re-read rows, re-runs of
 * an earlier batch, order columns of long (from int32), string (code-point order) and timestamp type, valid-from instants on month and year boundaries given in non-UTC zones — go through
 * `historyUpsert` and through the independent reference model (oracle op `scd2_model_apply`): after every
 * batch delta-rs reads the table and its rows must equal the model's, the counters must equal the model's,
 * a batch that keeps nothing must not commit, and the SCD2 invariants must hold.
 * Runs: DELTALITE_SCD2_SEQUENCES (default 200) and DELTALITE_SCD2_SEED (default 0x5cd2); the long mode is
 * `pnpm history-property --sequences 2000 [--seed N]`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hasErrorKind } from "@deltalite/errors";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { historyUpsert } from "../src/index.js";
import {
  applyModel,
  canonicalFromModel,
  checkInvariants,
  createHistoryTable,
  historyOptions,
  latest,
  type ModelRow,
  microsOf,
  modelBatch,
  readWithDeltaRs,
  type SourceRow,
  sortRows,
  sourceTable,
  type TableLayout,
} from "./history-fixtures.js";

const SEQUENCES = Number(process.env.DELTALITE_SCD2_SEQUENCES ?? 200);

/** Ascending instants around month and year boundaries (an instant at a month's start included). */
const INSTANTS = [
  "2023-11-30T23:59:59.999999Z",
  "2023-12-31T23:00:00Z",
  "2023-12-31T23:59:59.999999Z",
  "2024-01-01T00:00:00Z",
  "2024-01-31T22:30:00Z",
  "2024-02-01T00:00:00Z",
  "2024-02-29T23:59:59Z",
  "2024-03-01T00:00:00.000001Z",
  "2024-12-31T23:30:00Z",
  "2025-01-01T00:00:00Z",
].map(microsOf);

const ZONES = ["UTC", "+02:00", "-05:00", "+05:30"];

interface Batch {
  rows: SourceRow[];
  zone: string;
}

interface Sequence {
  layout: TableLayout;
  /** Valid-from rises with the order value (intervals then also never overlap). */
  monotone: boolean;
  batches: Batch[];
}

const rowArb = (layout: TableLayout, monotone: boolean): fc.Arbitrary<SourceRow> =>
  fc
    .record({
      k1: fc.constantFrom(null, 0, 1, 2),
      k2: fc.constantFrom(null, "", "a", "b"),
      ord: fc.integer({ min: 0, max: 7 }),
      tb: fc.constantFrom(null, 0, 1, 2),
      instant: fc.integer({ min: 0, max: INSTANTS.length - 1 }),
      shiftSeconds: fc.integer({ min: -7200, max: 7200 }),
      pay: fc.constantFrom("x", "y", "z", "ü"),
    })
    .map(({ k1, k2, ord, tb, instant, shiftSeconds, pay }) => ({
      k1,
      k2,
      ord,
      ...(layout.tieBreak === "none" ? {} : { tb }),
      vf: monotone
        ? (INSTANTS[ord] as bigint)
        : (INSTANTS[instant] as bigint) + BigInt(shiftSeconds) * 1_000_000n,
      pay,
    }));

const sequenceArb: fc.Arbitrary<Sequence> = fc
  .record({
    keyColumns: fc.constantFrom<("k1" | "k2")[]>(["k1"], ["k2"], ["k1", "k2"]),
    tieBreak: fc.constantFrom<TableLayout["tieBreak"]>("none", "table", "source"),
    monotone: fc.boolean(),
    orderType: fc.constantFrom<TableLayout["orderType"]>(undefined, undefined, "string", "timestamp"),
  })
  .chain(({ keyColumns, tieBreak, monotone, orderType }) => {
    const layout: TableLayout = { keyColumns, tieBreak, orderType };
    const batchArb = fc.record({
      rows: fc.array(rowArb(layout, monotone), { maxLength: 8 }),
      zone: fc.constantFrom(...ZONES),
    });
    // A step is a new batch, or (a re-run) an earlier batch again.
    const steps = fc.array(
      fc.oneof({ weight: 4, arbitrary: batchArb }, { weight: 1, arbitrary: fc.nat(5) }),
      {
        minLength: 2,
        maxLength: 5,
      },
    );
    return steps.map((list) => {
      const batches: Batch[] = [];
      for (const step of list) {
        if (typeof step !== "number") batches.push(step);
        else if (batches.length > 0) batches.push(batches[step % batches.length] as Batch);
      }
      return { layout, monotone, batches };
    });
  });

const COUNTERS = [
  "rowsIn",
  "rowsDeduped",
  "rowsReread",
  "rowsBackwards",
  "versionsOpened",
  "versionsClosed",
  "chainRowsClosed",
  "committed",
] as const;

describe("historyUpsert = the SCD2 reference model, read back by delta-rs", () => {
  let oracle: Oracle;
  let dir: string;
  beforeAll(async () => {
    oracle = await connectOracle();
    dir = await mkdtemp(join(tmpdir(), "deltalite-scd2-diff-"));
  });
  afterAll(async () => {
    oracle?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function runSequence(sequence: Sequence): Promise<void> {
    const { layout, monotone } = sequence;
    const { uri } = await createHistoryTable(dir, layout);
    let model: ModelRow[] = [];
    for (const batch of sequence.batches) {
      const before = await latest(uri);
      const expected = await applyModel(oracle, layout, model, modelBatch(batch.rows, layout, batch.zone));
      const call = historyUpsert(before, sourceTable(batch.rows, layout, batch.zone), historyOptions(layout));
      if (expected.error !== undefined) {
        const error = await call.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(
          hasErrorKind(error, expected.error.kind as never),
          `model refused: ${expected.error.message}`,
        ).toBe(true);
        expect((await latest(uri)).version).toBe(before.version);
        continue;
      }
      const stats = await call;
      expect(Object.fromEntries(COUNTERS.map((c) => [c, stats[c]]))).toEqual(expected.stats);
      const after = await latest(uri);
      expect(after.version).toBe(stats.committed ? before.version + 1 : before.version);
      expect(stats.version).toBe(after.version);
      const ours = await readWithDeltaRs(oracle, uri);
      expect(sortRows(ours)).toEqual(sortRows(expected.rows.map((r) => canonicalFromModel(r, layout))));
      checkInvariants(ours, layout, monotone);
      model = expected.rows;
    }
  }

  it(`${SEQUENCES} random sequences: identical rows and counters`, { timeout: 3_600_000 }, async () => {
    await fc.assert(fc.asyncProperty(sequenceArb, runSequence), {
      numRuns: SEQUENCES,
      seed: Number(process.env.DELTALITE_SCD2_SEED ?? 0x5cd2),
      endOnFailure: true,
    });
  });
});
