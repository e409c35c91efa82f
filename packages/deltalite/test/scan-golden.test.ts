// Reading real tables: for every table under the shared fixtures (golden = Spark-written, dat = DAT) that our
// Snapshot opens, and every version its log holds, our scan equals delta-rs's scan — same column names and
// types, same rows (order-free), all encoded by the §7 JSON rules on both sides (ours in TypeScript, delta-rs's
// rows in tools/oracle/ops_scan.py). Tables our Snapshot refuses with DeltaLiteUnsupportedTableError are
// recorded with the reason; the run prints a table × version report. The DAT cases are also compared with
// their `expected/*/table_content.parquet` (read by pyarrow).
import { existsSync, readdirSync, statSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { parseLogPath, Snapshot } from "@deltalite/delta-log";
import { DeltaLiteUnsupportedTableError, isDeltaLiteError } from "@deltalite/errors";
import { LocalFileStore } from "@deltalite/object-store";
import { fixturesDir } from "@deltalite/tools/fixtures";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { tableFromIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchToJsonRows } from "../src/json/index.js";
import { rowsDigest, type ScanRows, scanRows, sortedRows, sortedRowsByName } from "./scan-helpers.js";

const BIG_TABLE_ROWS = 20_000;

/**
 * pass: compared and equal; refused: our Snapshot refuses it (DeltaLiteUnsupportedTableError); both-refuse:
 * neither we nor delta-rs can open or read it (corrupt logs, data files missing from the fixture); uncompared:
 * we read it but delta-rs 1.6.6 refuses it (so there is nothing to compare with); fail: anything else.
 */
type Outcome = "pass" | "refused" | "both-refuse" | "uncompared" | "fail";
interface ReportRow {
  table: string;
  version: number;
  outcome: Outcome;
  detail: string;
}
const report: ReportRow[] = [];
let oracle: Oracle;

function discoverTables(): { name: string; dir: string }[] {
  const root = fixturesDir();
  const out: { name: string; dir: string }[] = [];
  const walk = (dir: string) => {
    if (existsSync(path.join(dir, "_delta_log"))) {
      out.push({ name: path.relative(root, dir), dir });
      return;
    }
    for (const entry of readdirSync(dir)) {
      const child = path.join(dir, entry);
      if (statSync(child).isDirectory() && !entry.startsWith("_") && !entry.startsWith(".")) walk(child);
    }
  };
  walk(path.join(root, "golden"));
  walk(path.join(root, "dat"));
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

function versionsInLog(dir: string): number[] {
  const versions = new Set<number>();
  for (const name of readdirSync(path.join(dir, "_delta_log"))) {
    const p = parseLogPath(name);
    if (
      p.kind === "commit" ||
      p.kind === "checkpoint" ||
      p.kind === "multipartCheckpoint" ||
      p.kind === "uuidCheckpoint"
    ) {
      versions.add(p.version);
    }
  }
  return [...versions].sort((a, b) => a - b);
}

const tables = discoverTables();

let tmp: string;

beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-scan-golden-"));
});

afterAll(async () => {
  oracle?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  const count = (o: Outcome) => report.filter((r) => r.outcome === o).length;
  const byTable = new Map<string, ReportRow[]>();
  for (const r of report) byTable.set(r.table, [...(byTable.get(r.table) ?? []), r]);
  const lines = [
    "scan conformance (table: versions passed / refused by us / refused by both / uncompared (delta-rs refuses) / failed):",
  ];
  for (const [table, rows] of byTable) {
    const n = (o: Outcome) => rows.filter((r) => r.outcome === o).length;
    const notes = [
      ...new Set(rows.filter((r) => r.outcome !== "pass").map((r) => `${r.outcome}: ${r.detail}`)),
    ];
    lines.push(
      `  ${table.padEnd(72)} ${n("pass")} / ${n("refused")} / ${n("both-refuse")} / ${n("uncompared")} / ${n("fail")}${notes.length ? `  — ${notes.join("; ").slice(0, 240)}` : ""}`,
    );
  }
  lines.push(
    `total: ${report.length} table versions — ${count("pass")} passed, ${count("refused")} refused by us (unsupported), ${count("both-refuse")} refused by both, ${count("uncompared")} uncompared (delta-rs refuses), ${count("fail")} failed`,
  );
  console.log(lines.join("\n"));
});

async function compareVersion(name: string, dir: string, version: number): Promise<ReportRow> {
  const row = (outcome: Outcome, detail = "") => ({ table: name, version, outcome, detail });
  let snapshot: Snapshot;
  try {
    snapshot = await Snapshot.open(new LocalFileStore(dir), { version });
  } catch (error) {
    if (error instanceof DeltaLiteUnsupportedTableError)
      return row("refused", (error as Error).message.slice(0, 160));
    const theirs = await oracle.call<{ error?: { message: string } }>("scan_delta", { uri: dir, version });
    if (theirs.error && isDeltaLiteError(error)) {
      return row("both-refuse", `${error.kind}; delta-rs: ${theirs.error.message.slice(0, 100)}`);
    }
    return row("fail", `we could not open: ${(error as Error).message.slice(0, 200)}`);
  }
  let ours: ScanRows;
  try {
    ours = await scanRows(snapshot);
  } catch (error) {
    const message = (error as Error).message.slice(0, 120);
    const theirs = await oracle.call<{ error?: { message: string } }>("scan_delta", { uri: dir, version });
    if (theirs.error && isDeltaLiteError(error)) {
      return row("both-refuse", `${error.kind}: ${message}; delta-rs: ${theirs.error.message.slice(0, 100)}`);
    }
    return row("fail", `our scan threw: ${message}`);
  }
  // Big tables (two golden tables hold 1M rows): delta-rs's rows come back as an Arrow IPC stream and are
  // JSON-encoded here by the same encoder as ours (json-encoding.test.ts checks that encoder against the
  // independent Python one), then compared as an order-free digest of every row.
  const big = ours.rows.length > BIG_TABLE_ROWS;
  const ipcPath = big ? path.join(tmp, `${name.replace(/\W+/g, "_")}-v${version}.arrows`) : undefined;
  const theirs = await oracle.call<
    ScanRows & { error?: { type: string; message: string }; numRows?: number }
  >("scan_delta", { uri: dir, version, ...(ipcPath ? { ipc_path: ipcPath } : {}) });
  if (theirs.error) return row("uncompared", `delta-rs refuses: ${theirs.error.message.slice(0, 160)}`);
  if (JSON.stringify(ours.fields) !== JSON.stringify(theirs.fields)) {
    return row(
      "fail",
      `fields differ: ours ${JSON.stringify(ours.fields)} vs delta-rs ${JSON.stringify(theirs.fields)}`,
    );
  }
  if (ipcPath) {
    const table = tableFromIPC(await fs.readFile(ipcPath));
    await fs.rm(ipcPath);
    const rows: object[] = [];
    for (const batch of table.batches) for (const r of batchToJsonRows(batch)) rows.push(r);
    if (rows.length !== ours.rows.length)
      return row("fail", `${ours.rows.length} rows vs delta-rs ${rows.length}`);
    if (rowsDigest(rows) !== rowsDigest(ours.rows)) return row("fail", "row digests differ");
    return row("pass", `${rows.length} rows (digest)`);
  }
  const a = sortedRows(ours.rows);
  const b = sortedRows(theirs.rows);
  if (a.length !== b.length) return row("fail", `${a.length} rows vs delta-rs ${b.length}`);
  const at = a.findIndex((r, i) => r !== b[i]);
  if (at >= 0)
    return row("fail", `row differs: ours ${a[at]!.slice(0, 200)} vs delta-rs ${b[at]!.slice(0, 200)}`);
  return row("pass", `${a.length} rows`);
}

describe("scan of the fixture tables equals delta-rs's scan", () => {
  it.each(tables.map((t) => [t.name, t.dir]))("%s: every version", async (name, dir) => {
    const rows: ReportRow[] = [];
    for (const version of versionsInLog(dir)) rows.push(await compareVersion(name, dir, version));
    report.push(...rows);
    const failures = rows.filter((r) => r.outcome === "fail");
    expect(failures.map((f) => `v${f.version}: ${f.detail}`)).toEqual([]);
  });
});

const datCases = tables.filter((t) => t.name.startsWith("dat/"));

describe("scan of the DAT cases equals their expected content", () => {
  it.each(datCases.map((t) => [t.name, t.dir]))("%s", async (_name, dir) => {
    const expectedDir = path.join(path.dirname(dir), "expected");
    const versions = readdirSync(expectedDir);
    expect(versions.length).toBeGreaterThan(0);
    for (const entry of versions) {
      const version = entry === "latest" ? undefined : Number(entry.slice(1));
      const snapshot = await Snapshot.open(new LocalFileStore(dir), { version });
      const ours = await scanRows(snapshot);
      const expected = await oracle.call<ScanRows>("scan_read_file", {
        path: path.join(expectedDir, entry, "table_content.parquet"),
        format: "parquet",
      });
      expect(new Set(ours.fields.map((f) => f.name)), entry).toEqual(
        new Set(expected.fields.map((f) => f.name)),
      );
      expect(sortedRowsByName(ours.rows), entry).toEqual(sortedRowsByName(expected.rows));
    }
  });
});
