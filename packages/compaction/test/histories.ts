/**
 * Random table histories for the restore suites, written by two engines: delta-rs (appends of mixed sizes
 * into up to three partitions or none, overwrites, deletes that rewrite files, `optimize.compact`) and our
 * own `compact` between them. A history is replayed on `<name>-ours`, then copied by the oracle (shutil,
 * modification times kept) to `<name>-theirs`, so both engines restore the same log and files.
 */
import fc from "fast-check";
import { compact } from "../src/index.js";
import { addColumnStep, type BuildStep, openLocal, type Workspace } from "./oracle-tables.js";

export type HistoryStep = BuildStep | { op: "ours-compact" };

const PARTS = ["a", "b", "c"];

/**
 * Histories of `minLength`..`maxLength` random steps after a first append. With `schemaChanges`, some appends
 * also add a column (c1, c2, … by delta-rs `schema_mode="merge"`), and every append from the first such one
 * on writes in merge mode (rows without the newer columns read them as null).
 */
export const historyArb = (
  minLength: number,
  maxLength: number,
  options: { schemaChanges?: boolean } = {},
): fc.Arbitrary<HistoryStep[]> =>
  fc
    .array(
      fc.oneof(
        ...(options.schemaChanges
          ? [{ weight: 2, arbitrary: fc.record({ addColumn: fc.integer({ min: 1, max: 60 }) }) }]
          : []),
        {
          weight: 6,
          arbitrary: fc.record({
            rows: fc.integer({ min: 1, max: 120 }),
            pad: fc.integer({ min: 0, max: 200 }),
            parts: fc.subarray(PARTS, { minLength: 1 }),
            overwrite: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
          }),
        },
        {
          weight: 2,
          arbitrary: fc.record({
            deleteFrom: fc.integer({ min: 0, max: 11 }),
            width: fc.integer({ min: 1, max: 100 }),
          }),
        },
        { weight: 1, arbitrary: fc.constant({ optimize: "delta-rs" as const }) },
        { weight: 1, arbitrary: fc.constant({ optimize: "ours" as const }) },
      ),
      { minLength, maxLength },
    )
    .map((raw) => {
      let columns = 0; // extra columns the table has so far
      return raw.map((s, i): HistoryStep => {
        if ("addColumn" in s) return addColumnStep(i, s.addColumn, ++columns, PARTS);
        if ("optimize" in s) return { op: s.optimize === "ours" ? "ours-compact" : "optimize" };
        if ("deleteFrom" in s) {
          const from = s.deleteFrom * 10_000;
          return { op: "delete", predicate: `id >= ${from} AND id < ${from + s.width}` };
        }
        return {
          op: "append",
          rows: s.rows,
          start: i * 10_000,
          pad: s.pad,
          parts: s.parts,
          mode: i > 0 && s.overwrite ? "overwrite" : "append",
          ...(columns > 0 ? { merge: true } : {}),
        };
      });
    })
    .map((steps) => [
      { op: "append", rows: 40, start: 1_000_000, pad: 10, parts: PARTS } as HistoryStep,
      ...steps,
    ]);

/** Replays `steps` on `<dir>/<name>-ours` and copies the result to `<name>-theirs`; returns both paths. */
export async function buildHistory(
  ws: Workspace,
  name: string,
  steps: readonly HistoryStep[],
  partitioned: boolean,
): Promise<{ ours: string; theirs: string }> {
  const { ours, theirs } = { ours: `${ws.dir}/${name}-ours`, theirs: `${ws.dir}/${name}-theirs` };
  let pending: BuildStep[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    await ws.oracle.call("optimize_build", { uris: [ours], steps: pending, partitioned });
    pending = [];
  };
  for (const step of steps) {
    if (step.op === "ours-compact") {
      await flush();
      await compact(await openLocal(ours));
    } else {
      pending.push(step);
    }
  }
  await flush();
  await ws.oracle.call("optimize_build", { uris: [ours, theirs], steps: [], partitioned });
  return { ours, theirs };
}
