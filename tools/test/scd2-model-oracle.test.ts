/**
 * The SCD2 reference model (tools/oracle/scd2_model.py) as the TypeScript suites reach it: through the
 * oracle worker's `scd2_model_apply` op and its JSON contract (ops_scd2.py). A hand-worked call, the refusals
 * as error kinds, random batch sequences checked against the history-table invariants (one open row per key,
 * contiguous intervals, closed rows in the UTC month of their valid-to, the counter identities, re-runs that
 * keep nothing), and the model's own pytest suite, so `pnpm test` runs it too.
 */
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectOracle, type Oracle } from "../src/oracle.js";
import { oracleFile, repoRoot, venvBin } from "../src/python.js";

type Value = string | number | boolean | null;
type Row = Record<string, Value>;

interface ModelStats {
  rowsIn: number;
  rowsDeduped: number;
  rowsReread: number;
  rowsBackwards: number;
  versionsOpened: number;
  versionsClosed: number;
  chainRowsClosed: number;
  committed: boolean;
}

type ModelAnswer = { rows: Row[]; stats: ModelStats } | { error: { kind: string; message: string } };

const TS_UTC = "timestamp[us, tz=UTC]";
const TABLE_SCHEMA = {
  tenant: "string",
  id: "int64",
  seq: "int64",
  vf: TS_UTC,
  vt: TS_UTC,
  p: "string",
  v: "string",
};
const SOURCE_SCHEMA = {
  tenant: "string",
  id: "int64",
  seq: "int64",
  vf: "timestamp[us, tz=+02:00]",
  v: "string",
  tb: "int32",
};
const OPTIONS = {
  keyColumns: ["tenant", "id"],
  orderColumn: "seq",
  validFromColumn: "vf",
  validToColumn: "vt",
  partitionColumn: "p",
  currentPartition: "current",
  tieBreakColumn: "tb",
};

let oracle: Oracle;

beforeAll(async () => {
  oracle = await connectOracle();
});

afterAll(() => {
  oracle.close();
});

function applyModel(
  tableRows: Row[],
  batchRows: Row[],
  options: Record<string, unknown> = OPTIONS,
  sourceSchema: Record<string, string> = SOURCE_SCHEMA,
) {
  return oracle.call<ModelAnswer>("scd2_model_apply", {
    table: { schema: TABLE_SCHEMA, partition_columns: ["p"], rows: tableRows },
    batch: { schema: sourceSchema, rows: batchRows },
    options,
  });
}

async function applyOk(tableRows: Row[], batchRows: Row[]): Promise<{ rows: Row[]; stats: ModelStats }> {
  const answer = await applyModel(tableRows, batchRows);
  if ("error" in answer) throw new Error(`the model refused: ${answer.error.kind}: ${answer.error.message}`);
  return answer;
}

/** Rows as an order-free comparable list. */
function canonical(rows: Row[]): string[] {
  return rows.map((row) => JSON.stringify(Object.entries(row).sort(([a], [b]) => (a < b ? -1 : 1)))).sort();
}

describe("scd2_model_apply, one call worked by hand", () => {
  it("closes the open row at the first kept valid-from, chains the rest and counts every row", async () => {
    const table: Row[] = [
      { tenant: null, id: 1, seq: 10, vf: "2024-01-15T00:00:00.000000Z", vt: null, p: "current", v: "open" },
    ];
    const batch: Row[] = [
      { tenant: null, id: 1, seq: 10, vf: "2024-01-15T02:00:00+02:00", v: "reread", tb: 0 },
      { tenant: null, id: 1, seq: 12, vf: "2024-03-01T01:00:00+02:00", v: "twelve-low", tb: 1 },
      { tenant: null, id: 1, seq: 11, vf: "2024-02-01T01:30:00+02:00", v: "eleven", tb: null },
      { tenant: null, id: 1, seq: 12, vf: "2024-03-01T01:00:00+02:00", v: "twelve-high", tb: 5 },
      { tenant: null, id: 1, seq: 3, vf: "2023-01-01T00:00:00+02:00", v: "backwards", tb: 0 },
      { tenant: "x", id: 1, seq: 1, vf: "2024-01-01T00:00:00+02:00", v: "other key", tb: 0 },
    ];
    const { rows, stats } = await applyOk(table, batch);
    expect(canonical(rows)).toEqual(
      canonical([
        // 2024-02-01T01:30+02:00 is 2024-01-31T23:30Z: January, in UTC.
        {
          tenant: null,
          id: 1,
          seq: 10,
          vf: "2024-01-15T00:00:00.000000Z",
          vt: "2024-01-31T23:30:00.000000Z",
          p: "2024-01",
          v: "open",
        },
        {
          tenant: null,
          id: 1,
          seq: 11,
          vf: "2024-01-31T23:30:00.000000Z",
          vt: "2024-02-29T23:00:00.000000Z",
          p: "2024-02",
          v: "eleven",
        },
        {
          tenant: null,
          id: 1,
          seq: 12,
          vf: "2024-02-29T23:00:00.000000Z",
          vt: null,
          p: "current",
          v: "twelve-high",
        },
        {
          tenant: "x",
          id: 1,
          seq: 1,
          vf: "2023-12-31T22:00:00.000000Z",
          vt: null,
          p: "current",
          v: "other key",
        },
      ]),
    );
    expect(stats).toEqual({
      rowsIn: 6,
      rowsDeduped: 1,
      rowsReread: 1,
      rowsBackwards: 1,
      versionsOpened: 2,
      versionsClosed: 1,
      chainRowsClosed: 1,
      committed: true,
    });
  });

  it("answers refused calls with the deltalite error kind", async () => {
    const row: Row = { tenant: "a", id: 1, seq: 1, vf: "2024-01-01T00:00:00Z", v: null, tb: 0 };
    const kindOf = async (
      batch: Row[],
      options: Record<string, unknown> = OPTIONS,
      schema = SOURCE_SCHEMA,
    ) => {
      const answer = await applyModel([], batch, options, schema);
      return "error" in answer ? answer.error.kind : "accepted";
    };
    expect(await kindOf([row, { ...row, seq: null }])).toBe("generic");
    expect(await kindOf([{ ...row, vf: null }])).toBe("generic");
    expect(await kindOf([row], { ...OPTIONS, partitionColumn: "v" })).toBe("unsupported");
    expect(await kindOf([{ ...row, tb: null }], OPTIONS, { ...SOURCE_SCHEMA, tb: "string" })).toBe(
      "invalid_argument",
    );
    expect(await kindOf([{ ...row, tb: null }], OPTIONS, { ...SOURCE_SCHEMA, tb: "bool" })).toBe(
      "invalid_argument",
    );
    // With "v" as the tie-break, "tb" is a source column the table lacks: that check comes first.
    expect(await kindOf([row], { ...OPTIONS, tieBreakColumn: "v" })).toBe("schema_mismatch");
    expect(await kindOf([row], { ...OPTIONS, keyColumns: ["tenant", "idd"] })).toBe("invalid_argument");
    expect(await kindOf([row])).toBe("accepted");
  });
});

// ---- random sequences against the invariants ------------------------------------------------------------

const MINUTE_US = 60_000_000n;
/** Strictly rising instants (µs since the epoch) around month and year boundaries; order value i ↦ the i-th. */
const INSTANTS = [
  "2023-12-31T22:00:00.000000",
  "2023-12-31T23:59:59.999999",
  "2024-01-01T00:00:00.000000",
  "2024-01-31T23:30:00.000000",
  "2024-02-01T00:00:00.000000",
  "2024-02-29T12:00:00.000000",
  "2024-03-01T00:00:00.000000",
  "2024-03-31T23:59:59.999999",
  "2024-12-31T23:00:00.000000",
  "2025-01-01T00:00:00.000001",
].map(parseUtc);
const OFFSETS_MINUTES = [0, 120, -300, 330, -720, 840];

function parseUtc(text: string): bigint {
  const [seconds, fraction = "0"] = text.replace(/Z$/, "").split(".");
  return BigInt(Date.parse(`${seconds}Z`)) * 1000n + BigInt(fraction.padEnd(6, "0"));
}

/** ISO 8601 text of an instant written at a UTC offset, e.g. 2024-01-31T18:30:00.000000-05:00. */
function isoAtOffset(micros: bigint, offsetMinutes: number): string {
  const local = micros + BigInt(offsetMinutes) * MINUTE_US;
  const wall = new Date(Number(local / 1_000_000n) * 1000).toISOString().slice(0, 19);
  const fraction = (local % 1_000_000n).toString().padStart(6, "0");
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${wall}.${fraction}${zone}`;
}

function utcMonth(modelTimestamp: string): string {
  return new Date(Number(parseUtc(modelTimestamp) / 1000n)).toISOString().slice(0, 7);
}

const sourceRow = fc
  .record({
    tenant: fc.constantFrom("a", "b", null),
    id: fc.constantFrom(1, 2),
    seq: fc.nat({ max: INSTANTS.length - 1 }),
    offset: fc.constantFrom(...OFFSETS_MINUTES),
    v: fc.constantFrom("p", "q", "r"),
    tb: fc.option(fc.integer({ min: -2, max: 2 })),
  })
  .map(({ offset, seq, ...rest }): Row => ({ ...rest, seq, vf: isoAtOffset(INSTANTS[seq]!, offset) }));

const sequences = fc.array(fc.array(sourceRow, { maxLength: 12 }), { minLength: 1, maxLength: 4 });

function keyOf(row: Row): string {
  return JSON.stringify([row.tenant, row.id]);
}

function expectHistoryInvariants(rows: Row[]): void {
  const byKey = new Map<string, Row[]>();
  for (const row of rows) byKey.set(keyOf(row), [...(byKey.get(keyOf(row)) ?? []), row]);
  for (const history of byKey.values()) {
    history.sort((a, b) => (parseUtc(a.vf as string) < parseUtc(b.vf as string) ? -1 : 1));
    expect(history.filter((r) => r.vt === null)).toHaveLength(1); // one open row per key ...
    history.forEach((row, index) => {
      const next = history[index + 1];
      expect(row.vt).toBe(next ? next.vf : null); // ... the newest; intervals meet end to start
      expect(row.p).toBe(row.vt === null ? "current" : utcMonth(row.vt as string));
    });
  }
}

function expectCounterIdentities(
  stats: ModelStats,
  before: number,
  after: number,
  batchLength: number,
): void {
  const kept = stats.versionsOpened + stats.chainRowsClosed;
  expect(stats.rowsIn).toBe(batchLength);
  expect(stats.rowsDeduped + stats.rowsReread + stats.rowsBackwards + kept).toBe(stats.rowsIn);
  expect(stats.versionsClosed).toBeLessThanOrEqual(stats.versionsOpened);
  expect(stats.committed).toBe(kept > 0);
  expect(after).toBe(before + kept);
}

describe("scd2_model_apply on random batch sequences", () => {
  it("keeps every history invariant, and a re-run of a batch keeps nothing", async () => {
    await fc.assert(
      fc.asyncProperty(sequences, async (batches) => {
        let table: Row[] = [];
        for (const batch of batches) {
          const { rows, stats } = await applyOk(table, batch);
          expectCounterIdentities(stats, table.length, rows.length, batch.length);
          expectHistoryInvariants(rows);
          const rerun = await applyOk(rows, batch);
          expect(rerun.stats.committed).toBe(false);
          expect(canonical(rerun.rows)).toEqual(canonical(rows));
          table = rows;
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("the model's own unit tests", () => {
  it("pass under pytest", () => {
    const result = spawnSync(
      venvBin("python"),
      ["-m", "pytest", "-q", "-p", "no:cacheprovider", oracleFile("test_scd2_model.py")],
      {
        cwd: repoRoot,
        encoding: "utf8",
        timeout: 120_000,
      },
    );
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/\d+ passed/);
  });
});
