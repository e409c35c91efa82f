/**
 * The demo: an incremental sync into a local Delta table in a temp folder, the way a data team runs one.
 * The first batch creates the partitioned table; later batches are upserts on the primary key `id` —
 * updates, inserts, a new partition, rows with a NULL key — each printed with its stats. Then the history,
 * a time-travel read, a refused batch that leaves the table alone, a vacuum plan, and the `deltalite` CLI's
 * `info` and `scan` on the table. The demo needs only Node; when the test oracle's Python environment exists
 * (the test command builds it), delta-rs — the reference implementation — also reads the table and must see
 * the same rows as our scan. The table is kept, and its path printed, so the CLI can be tried on it.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Float64, Int64, type RecordBatch, Table, Utf8, vectorFromArray } from "apache-arrow";
import { batchToJsonRows, DeltaLiteTable, isDeltaLiteError, type UpsertStats } from "deltalite";

interface Row {
  id: number | null;
  day: string;
  status: string;
  amount: number;
}

function batch(rows: Row[]): Table {
  return new Table({
    id: vectorFromArray(
      rows.map((r) => (r.id === null ? null : BigInt(r.id))),
      new Int64(),
    ),
    day: vectorFromArray(
      rows.map((r) => r.day),
      new Utf8(),
    ),
    status: vectorFromArray(
      rows.map((r) => r.status),
      new Utf8(),
    ),
    amount: vectorFromArray(
      rows.map((r) => r.amount),
      new Float64(),
    ),
  });
}

const orders = (from: number, to: number, day: string, status: string): Row[] =>
  Array.from({ length: to - from }, (_, i) => ({
    id: from + i,
    day,
    status,
    amount: Math.round((from + i) * 137) / 100,
  }));

function describe(stats: UpsertStats): string {
  return (
    `v${stats.version}: ${stats.sourceRows} source rows → +${stats.rowsInserted} inserted / ~${stats.rowsUpdated} updated` +
    ` (${stats.nullPkRows} with a NULL key); files: ${stats.filesCandidates} candidates, ${stats.filesProbed} probed,` +
    ` ${stats.filesCarriedOver} carried over, -${stats.filesRemoved} +${stats.filesAdded}; ${Math.round(stats.executionTimeMs)} ms`
  );
}

async function sortedRows(batches: AsyncIterable<RecordBatch>): Promise<string[]> {
  const rows: string[] = [];
  for await (const b of batches) for (const row of batchToJsonRows(b)) rows.push(JSON.stringify(row));
  return rows.sort();
}

/**
 * Runs the `deltalite` CLI (this workspace's build) as a user would, printing the command, then what the CLI
 * printed on stdout and, after it, its stderr (e.g. scan's summary line).
 */
function showCli(args: string[]): void {
  const bin = fileURLToPath(new URL("./cli.js", import.meta.resolve("deltalite")));
  console.log(`\n$ npx deltalite ${args.join(" ")}`);
  const run = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  process.stdout.write(run.stdout + run.stderr);
  if (run.status !== 0) throw new Error(`deltalite ${args[0]} exited with ${run.status}`);
}

/**
 * delta-rs reads the table, when the test oracle's venv exists (or `DELTALITE_DEMO_PYTHON` names a Python
 * with `deltalake`); true when it sees our rows exactly, or when there is no such Python.
 */
function deltaRsAgrees(uri: string, ours: string[]): boolean {
  const python =
    process.env.DELTALITE_DEMO_PYTHON ??
    path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../tools/oracle/.venv/bin/python");
  if (!existsSync(python)) {
    console.log("(delta-rs cross-check skipped: its Python environment is built by the test command)");
    return true;
  }
  const script = [
    "import json, sys",
    "from deltalake import DeltaTable",
    "t = DeltaTable(sys.argv[1])",
    "rows = t.to_pyarrow_table().to_pylist()",
    // JSON as JavaScript prints it: whole floats without a ".0".
    "num = lambda x: int(x) if isinstance(x, float) and x.is_integer() else x",
    "print(json.dumps({'version': t.version(), 'rows': sorted(json.dumps({k: num(r[k]) for k in ['id', 'day', 'status', 'amount']}, separators=(',', ':'), ensure_ascii=False) for r in rows)}))",
    // delta-rs's runtime threads can abort the interpreter's teardown ("terminate called without an
    // active exception", seen once in a fresh-clone run): the answer is printed, so skip the teardown.
    "sys.stdout.flush()",
    "import os; os._exit(0)",
  ].join("\n");
  const check = spawnSync(python, ["-c", script, uri], { encoding: "utf8", maxBuffer: 64 << 20 });
  if (check.status !== 0) throw new Error(`delta-rs check failed: ${check.stderr}`);
  const theirs = JSON.parse(check.stdout) as { version: number; rows: string[] };
  const same = theirs.rows.length === ours.length && theirs.rows.every((r, i) => r === ours[i]);
  console.log(
    `delta-rs reads v${theirs.version}: ${theirs.rows.length} rows — ${same ? "identical to our scan" : "DIFFERENT from our scan"}`,
  );
  return same;
}

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-demo-"));
  const uri = path.join(dir, "orders");
  console.log(`table: ${uri}\n`);
  const initial = [...orders(0, 600, "2026-11-28", "new"), ...orders(600, 1000, "2026-11-29", "new")];
  const { table, result } = await DeltaLiteTable.write(uri, batch(initial), { partitionBy: ["day"] });
  console.log(
    `sync 1 (initial load): v${result.version}: ${result.rowsWritten} rows in ${result.filesAdded} files`,
  );

  const syncs: [string, Row[]][] = [
    ["sync 2 (status updates)", orders(100, 150, "2026-11-28", "shipped")],
    [
      "sync 3 (updates + new orders)",
      [...orders(900, 950, "2026-11-29", "shipped"), ...orders(1000, 1100, "2026-11-29", "new")],
    ],
    ["sync 4 (a new day)", orders(1100, 1300, "2026-11-30", "new")],
    [
      "sync 5 (rows without a key)",
      [
        { id: null, day: "2026-11-30", status: "unmatched", amount: 1 },
        { id: null, day: "2026-11-30", status: "unmatched", amount: 2 },
        ...orders(1299, 1301, "2026-11-30", "shipped"),
      ],
    ],
  ];
  for (const [name, rows] of syncs) {
    const stats = await table.upsert(batch(rows), {
      primaryKeys: ["id"],
      partitionKey: "day",
      commitMetadata: { source: "demo-sync", step: name },
    });
    console.log(`${name}: ${describe(stats)}`);
  }

  console.log("\nhistory (newest first):");
  for (const entry of await table.history()) {
    console.log(
      `  v${entry.version} ${entry.operation} ${JSON.stringify(entry.commitInfo.operationMetrics ?? {})}`,
    );
  }
  const v0 = await DeltaLiteTable.open(uri, { version: 0 });
  console.log(`\ntime travel: v0 had ${v0.numFiles} files; v${table.version} has ${table.numFiles}`);

  const duplicate = batch([...orders(5, 6, "2026-11-28", "a"), ...orders(5, 6, "2026-11-28", "b")]);
  const refused = await table.upsert(duplicate, { primaryKeys: ["id"] }).catch((e: unknown) => e);
  console.log(
    `a batch with a duplicate key is refused (${isDeltaLiteError(refused) ? refused.kind : "??"}: ${(refused as Error).message}); table still at v${(await DeltaLiteTable.open(uri)).version}`,
  );
  const plan = await table.vacuum({ dryRun: true });
  console.log(`vacuum dry run (7-day retention): would delete ${plan.files.length} files`);

  const ours = await sortedRows(table.scan());
  console.log(`\nour scan: ${ours.length} rows`);
  if (!deltaRsAgrees(uri, ours)) process.exitCode = 1;

  showCli(["info", uri]);
  showCli(["scan", uri, "--columns", "id,day,status", "--limit", "3"]);
  console.log(
    `\nthe table stays at ${uri} — try the CLI on it (\`npx deltalite --help\`), delete it when done`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
