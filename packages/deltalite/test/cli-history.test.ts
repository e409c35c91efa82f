// `deltalite history-upsert` and `deltalite key-buckets` as a user runs them (the built bin from a temporary
// working directory): history-upsert prints HistoryUpsertStats and leaves the table exactly as the library
// call leaves a twin table (both read by delta-rs), with the commit metadata in the commit; a re-run commits
// nothing; key-buckets prints the ids the library computes in this process; usage mistakes and
// invalid_argument errors exit 2, others 1, and none of them changes the table.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import {
  Field,
  Int32,
  Int64,
  makeData,
  makeVector,
  Schema,
  Table,
  TimestampMicrosecond,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeltaLiteTable, type HistoryUpsertOptions, type HistoryUpsertStats } from "../src/index.js";

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
let oracle: Oracle;
let cwd: string;

beforeAll(async () => {
  expect(existsSync(cli), "run `pnpm exec tsc -b` first").toBe(true);
  oracle = await connectOracle();
  cwd = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-cli-history-"));
});
afterAll(async () => {
  oracle?.close();
  if (cwd) await fs.rm(cwd, { recursive: true, force: true });
});

function run(args: string[]) {
  const out = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8" });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

const TABLE_SCHEMA = new Schema([
  new Field("id", new Int64(), true),
  new Field("ord", new Int64(), true),
  new Field("vf", new TimestampMicrosecond("UTC"), true),
  new Field("vt", new TimestampMicrosecond("UTC"), true),
  new Field("month", new Utf8(), true),
  new Field("pay", new Utf8(), true),
]);
const OPTIONS: HistoryUpsertOptions = {
  keyColumns: ["id"],
  orderColumn: "ord",
  validFromColumn: "vf",
  validToColumn: "vt",
  partitionColumn: "month",
  currentPartition: "open",
};
const FLAGS = [
  "--key-columns",
  "id",
  "--order-column",
  "ord",
  "--valid-from-column",
  "vf",
  "--valid-to-column",
  "vt",
  "--partition-column",
  "month",
  "--current-partition",
  "open",
];

/** Source rows [id, ord, valid-from ISO]; `id` as int32 (cast to the table's long). */
function source(rows: [number | null, number, string][]): Table {
  return new Table({
    id: vectorFromArray(
      rows.map((r) => r[0]),
      new Int32(),
    ),
    ord: vectorFromArray(
      rows.map((r) => BigInt(r[1])),
      new Int64(),
    ),
    vf: makeVector(
      makeData({
        type: new TimestampMicrosecond("UTC"),
        length: rows.length,
        data: BigInt64Array.from(rows.map((r) => BigInt(Date.parse(r[2])) * 1000n)),
      }),
    ),
    pay: vectorFromArray(
      rows.map((r) => `p${r[0]}-${r[1]}`),
      new Utf8(),
    ),
  });
}

const BATCHES = [
  source([
    [1, 1, "2024-01-10T00:00:00Z"],
    [2, 1, "2024-01-11T00:00:00Z"],
    [null, 1, "2024-01-12T00:00:00Z"],
  ]),
  source([
    [1, 2, "2024-02-29T23:59:59Z"],
    [1, 3, "2024-03-01T00:00:00Z"],
    [2, 1, "2024-03-02T00:00:00Z"],
    [null, 4, "2024-12-31T23:00:00-02:00"],
  ]),
];

async function inputFile(name: string, table: Table): Promise<string> {
  await fs.writeFile(path.join(cwd, name), tableToIPC(table, "file"));
  return name;
}

async function historyTable(name: string): Promise<DeltaLiteTable> {
  return DeltaLiteTable.create(path.join(cwd, name), TABLE_SCHEMA, { partitionBy: ["month"] });
}

interface DeltaRsRead {
  rows: Record<string, unknown>[];
  version: number;
}
async function read(name: string): Promise<{ rows: string[]; version: number }> {
  const result = await oracle.call<DeltaRsRead>("tw_read_table", { uri: path.join(cwd, name) });
  return {
    rows: result.rows.map((r) => JSON.stringify(r, Object.keys(r).sort())).sort(),
    version: result.version,
  };
}

const COUNTERS = [
  "rowsIn",
  "rowsDeduped",
  "rowsReread",
  "rowsBackwards",
  "versionsOpened",
  "versionsClosed",
  "chainRowsClosed",
  "committed",
  "version",
] as const;
const countersOf = (stats: HistoryUpsertStats) => Object.fromEntries(COUNTERS.map((c) => [c, stats[c]]));

describe("deltalite history-upsert", () => {
  it("prints HistoryUpsertStats and leaves the table as the library call does (delta-rs reads both)", async () => {
    await historyTable("cli");
    const twin = await historyTable("api");
    for (const [i, batch] of BATCHES.entries()) {
      const file = await inputFile(`batch-${i}.arrow`, batch);
      const out = run([
        "history-upsert",
        "cli",
        "--input",
        file,
        ...FLAGS,
        "--commit-metadata",
        `job=b${i}`,
        "--json",
      ]);
      expect(out.code, out.stderr).toBe(0);
      const stats = JSON.parse(out.stdout) as HistoryUpsertStats;
      const expected = await twin.historyUpsert(batch, OPTIONS);
      expect(countersOf(stats)).toEqual(countersOf(expected));
      expect(stats).toMatchObject({ committed: true, version: i + 1 });
      for (const key of ["filesAdded", "filesRemoved", "bytesWritten", "executionTimeMs", "planAttempts"]) {
        expect(stats, key).toHaveProperty(key);
      }
      expect((await read("cli")).rows).toEqual((await read("api")).rows);
    }
    const final = await read("cli");
    expect(final.rows.length).toBe(6);
    expect(final.rows.filter((r) => r.includes('"month":"2025-01"'))).toHaveLength(1);
    const history = JSON.parse(run(["history", "cli", "--limit", "1", "--json"]).stdout) as Record<
      string,
      unknown
    >[];
    expect(history[0]).toMatchObject({ operation: "MERGE", job: "b1" });

    const again = run(["history-upsert", "cli", "--input", "batch-1.arrow", ...FLAGS]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      /^nothing to write: no input row is newer than its key's open version \(0 deduplicated, 3 re-read, 1 backwards\); the table stays at version 2\n$/,
    );
    expect((await read("cli")).version).toBe(2);
    const human = run([
      "history-upsert",
      "cli",
      "--input",
      await inputFile("b3.arrow", source([[5, 1, "2024-06-01T00:00:00Z"]])),
      ...FLAGS,
    ]);
    expect(human.stdout).toMatch(/^committed version 3: 1 versions opened, 0 closed, 0 written closed \(/);
  }, 60_000);

  it("exits 2 on usage mistakes and invalid arguments, 1 on a table it cannot write; nothing changes", async () => {
    await historyTable("bad");
    const file = await inputFile("bad.arrow", BATCHES[0] as Table);
    const withoutOrder = FLAGS.filter((_, i) => i !== 2 && i !== 3);
    const cases: [string[], number, string, RegExp][] = [
      [
        ["history-upsert", "bad", "--input", file, ...withoutOrder],
        2,
        "invalid_argument",
        /--order-column is required/,
      ],
      [
        ["history-upsert", "bad", "--input", file, ...FLAGS, "--tie-brake-column", "x"],
        2,
        "invalid_argument",
        /did you mean "--tie-break-column"/,
      ],
      [["history-upsert", "bad", ...FLAGS], 2, "invalid_argument", /--input is required/],
      [
        ["history-upsert", "bad", "--input", file, ...FLAGS.slice(0, -1), ""],
        2,
        "invalid_argument",
        /--current-partition is required/,
      ],
      [
        ["history-upsert", "bad", "--input", file, ...FLAGS.slice(0, 9), "pay", ...FLAGS.slice(10)],
        1,
        "unsupported",
        /partition/,
      ],
      [["history-upsert", "missing", "--input", file, ...FLAGS], 1, "not_found", /./],
    ];
    for (const [args, code, kind, message] of cases) {
      const out = run([...args, "--json"]);
      expect(out.code, `${args.join(" ")}: ${out.stderr}`).toBe(code);
      const error = JSON.parse(out.stdout).error as { kind: string; message: string };
      expect(error.kind, args.join(" ")).toBe(kind);
      expect(error.message).toMatch(message);
    }
    expect(await read("bad")).toEqual({ rows: [], version: 0 });
  }, 60_000);
});

describe("deltalite key-buckets", () => {
  it("prints the ids the library computes, cast to the table's types; usage mistakes exit 2", async () => {
    const table = await historyTable("buckets");
    const data = new Table({
      id: vectorFromArray([1, 2, null, 3, 1, 2_000_000_000], new Int32()),
      pay: vectorFromArray(["a", "b", "c", "d", "e", "f"], new Utf8()),
    });
    const file = await inputFile("keys.arrow", data);
    const expected = [...table.keyBuckets(data, ["id"], 4)];
    const out = run([
      "key-buckets",
      "buckets",
      "--input",
      file,
      "--key-columns",
      "id",
      "--buckets",
      "4",
      "--json",
    ]);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ buckets: expected });
    expect(expected[0]).toBe(expected[4]);
    const human = run(["key-buckets", "buckets", "--input", file, "--key-columns", "id", "--buckets", "4"]);
    expect(human.stdout).toBe(`${expected.join("\n")}\n`);

    for (const [args, message] of [
      [["--key-columns", "id", "--buckets", "0"], /bucket count/],
      [["--key-columns", "id"], /--buckets is required/],
      [["--key-columns", "di", "--buckets", "4"], /did you mean "id"/],
      [["--buckets", "4"], /--key-columns is required/],
    ] as [string[], RegExp][]) {
      const bad = run(["key-buckets", "buckets", "--input", file, ...args, "--json"]);
      expect(bad.code, args.join(" ")).toBe(2);
      expect(JSON.parse(bad.stdout).error).toMatchObject({ kind: "invalid_argument", message });
    }
  }, 60_000);
});
