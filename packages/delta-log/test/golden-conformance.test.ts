// Golden/DAT conformance: for every table under the shared fixtures (golden = Spark-written, dat = DAT) and
// every version its log holds, our snapshot equals delta-rs's (version, live file paths with sizes and
// partition values, file URIs, schema, configuration, partition columns, table id, protocol). The expected
// side is computed by delta-rs through the oracle, never written by hand. Tables we refuse must be refused
// with a typed error; the run prints a pass/refuse/fail report.
import { existsSync, readdirSync, statSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { isDeltaLiteError } from "@deltalite/errors";
import { LocalFileStore } from "@deltalite/object-store";
import { copyFixture, fixturesDir } from "@deltalite/tools/fixtures";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DeltaDataType, type DeltaSchema, parseLogPath, Snapshot } from "../src/index.js";
import { comparablePartitionValue } from "./helpers/partition-compare.js";

interface Comparable {
  version: number;
  files: { path: string; size: number; partitionValues: Record<string, unknown> }[];
  fileUris: string[];
  schema: unknown;
  configuration: Record<string, string>;
  partitionColumns: string[];
  tableId: string;
  protocol: {
    minReaderVersion: number;
    minWriterVersion: number;
    readerFeatures: string[] | null;
    writerFeatures: string[] | null;
  };
}

type OracleSnapshot = (Comparable & { error?: undefined }) | { error: { type: string; message: string } };

type Outcome = "pass" | "refuse" | "both-refuse" | "fail";
interface Row {
  table: string;
  version: string;
  outcome: Outcome;
  detail: string;
}

const rows: Row[] = [];
let oracle: Oracle;
let tmp: string;

/** Every table root under the fixtures (a folder holding `_delta_log`), plus top-level folders without a log. */
function discoverTables(): { name: string; dir: string; hasLog: boolean }[] {
  const root = fixturesDir();
  const out: { name: string; dir: string; hasLog: boolean }[] = [];
  const walk = (dir: string) => {
    if (existsSync(path.join(dir, "_delta_log"))) {
      out.push({ name: path.relative(root, dir), dir, hasLog: true });
      return;
    }
    for (const entry of readdirSync(dir)) {
      const child = path.join(dir, entry);
      if (statSync(child).isDirectory() && !entry.startsWith("_") && !entry.startsWith(".")) walk(child);
    }
  };
  walk(path.join(root, "golden"));
  walk(path.join(root, "dat"));
  // Golden folders with no log anywhere below: reading them must say "table not found".
  for (const entry of readdirSync(path.join(root, "golden"))) {
    const dir = path.join(root, "golden", entry);
    if (!out.some((t) => t.dir === dir || t.dir.startsWith(`${dir}/`))) {
      out.push({ name: path.relative(root, dir), dir, hasLog: false });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

const tables = discoverTables();

beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join((await import("node:os")).tmpdir(), "deltalite-conformance-"));
});

afterAll(async () => {
  oracle?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  printReport();
});

function versionsInLog(dir: string): number[] {
  const logDir = path.join(dir, "_delta_log");
  const versions = new Set<number>();
  for (const name of readdirSync(logDir)) {
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

function fieldType(schema: DeltaSchema, column: string): DeltaDataType {
  return schema.fields.find((f) => f.name === column)?.type ?? "string";
}

function ours(snapshot: Snapshot): Comparable {
  const partitionColumns = [...snapshot.partitionColumns];
  return {
    version: snapshot.version,
    files: snapshot.files
      .map((f) => ({
        path: f.add.path,
        size: f.size,
        partitionValues: Object.fromEntries(
          partitionColumns.map((c) => [
            c,
            comparablePartitionValue(f.partitionValues[c], fieldType(snapshot.deltaSchema, c), c),
          ]),
        ),
      }))
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
    fileUris: snapshot.fileUris.map((u) => u.replace(/^file:\/\//, "")).sort(),
    schema: JSON.parse(snapshot.schemaJson),
    configuration: { ...snapshot.configuration },
    partitionColumns,
    tableId: snapshot.tableId,
    protocol: {
      minReaderVersion: snapshot.protocol.minReaderVersion,
      minWriterVersion: snapshot.protocol.minWriterVersion,
      readerFeatures: snapshot.protocol.readerFeatures?.length
        ? [...snapshot.protocol.readerFeatures].sort()
        : null,
      writerFeatures: snapshot.protocol.writerFeatures?.length
        ? [...snapshot.protocol.writerFeatures].sort()
        : null,
    },
  };
}

function theirs(s: Comparable): Comparable {
  return {
    ...s,
    files: [...s.files].sort((a, b) => (a.path < b.path ? -1 : 1)),
    fileUris: [...s.fileUris].sort(),
  };
}

/** Field-by-field differences (first few), for the report. */
function differences(a: Comparable, b: Comparable): string[] {
  const out: string[] = [];
  for (const key of Object.keys(b) as (keyof Comparable)[]) {
    if (JSON.stringify(canonical(a[key])) !== JSON.stringify(canonical(b[key]))) {
      out.push(
        `${key}: ours ${JSON.stringify(a[key]).slice(0, 300)} vs delta-rs ${JSON.stringify(b[key]).slice(0, 300)}`,
      );
    }
  }
  return out;
}

/** JSON with object keys sorted, so key order never matters. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

async function compareAt(name: string, dir: string, version: number | undefined): Promise<Row> {
  const label = version === undefined ? "latest" : String(version);
  const expected = await oracle.call<OracleSnapshot>("delta_snapshot", {
    uri: dir,
    version: version ?? null,
  });
  let snapshot: Snapshot;
  try {
    snapshot = await Snapshot.open(new LocalFileStore(dir), { version });
  } catch (error) {
    if (!isDeltaLiteError(error)) {
      return { table: name, version: label, outcome: "fail", detail: `untyped error: ${String(error)}` };
    }
    const theirsSays = expected.error
      ? `delta-rs also refuses (${expected.error.type})`
      : "delta-rs reads it";
    const feature = (error as { feature?: string }).feature;
    const message = error.message.replaceAll(`file://${dir}`, "<table>");
    const what = `${error.kind}${feature ? ` [${feature}]` : ""}: ${message.slice(0, 160)}`;
    // A refusal for an unsupported feature or path is allowed; calling a log corrupt or a version missing
    // is only right when delta-rs cannot read it either.
    if (expected.error)
      return { table: name, version: label, outcome: "both-refuse", detail: `${what}; ${theirsSays}` };
    if (error.kind === "unsupported" || error.kind === "invalid_path") {
      return { table: name, version: label, outcome: "refuse", detail: `${what}; ${theirsSays}` };
    }
    return { table: name, version: label, outcome: "fail", detail: `${what}; ${theirsSays}` };
  }
  if (expected.error) {
    return {
      table: name,
      version: label,
      outcome: "fail",
      detail: `we read version ${snapshot.version} but delta-rs refuses: ${expected.error.type}: ${expected.error.message.slice(0, 200)}`,
    };
  }
  let mine: Comparable;
  try {
    mine = ours(snapshot);
  } catch (error) {
    return {
      table: name,
      version: label,
      outcome: "fail",
      detail: `our snapshot failed to convert: ${String(error)}`,
    };
  }
  const diffs = differences(mine, theirs(expected));
  return diffs.length === 0
    ? { table: name, version: label, outcome: "pass", detail: `${mine.files.length} files` }
    : { table: name, version: label, outcome: "fail", detail: diffs.join(" | ") };
}

function printReport(): void {
  const count = (o: Outcome) => rows.filter((r) => r.outcome === o).length;
  const tablesBy = (o: Outcome) => new Set(rows.filter((r) => r.outcome === o).map((r) => r.table)).size;
  const lines = [
    "",
    "=== delta-log golden/DAT conformance (ours vs delta-rs) ===",
    `tables: ${tables.length}; table-versions compared: ${rows.length}`,
    `pass:        ${count("pass")} versions in ${tablesBy("pass")} tables`,
    `refuse:      ${count("refuse")} versions in ${tablesBy("refuse")} tables (typed refusal; delta-rs reads them)`,
    `both-refuse: ${count("both-refuse")} versions in ${tablesBy("both-refuse")} tables (delta-rs refuses too)`,
    `fail:        ${count("fail")} versions in ${tablesBy("fail")} tables`,
    "",
    "tables with refused versions (versions passed / refused; first refusal):",
  ];
  const byTable = new Map<string, Row[]>();
  for (const r of rows) byTable.set(r.table, [...(byTable.get(r.table) ?? []), r]);
  for (const [table, list] of byTable) {
    const refused = list.filter((r) => r.outcome === "refuse" || r.outcome === "both-refuse");
    if (refused.length === 0) continue;
    const passed = list.filter((r) => r.outcome === "pass").length;
    const first = refused[0]!;
    lines.push(
      `  ${table}: ${passed} passed / ${refused.length} refused; @${first.version} [${first.outcome}] ${first.detail}`,
    );
  }
  const fails = rows.filter((r) => r.outcome === "fail");
  if (fails.length) {
    lines.push("", "failures:");
    for (const r of fails) lines.push(`  ${r.table} @${r.version}: ${r.detail}`);
  }
  console.log(lines.join("\n"));
}

describe("golden and DAT tables: our snapshot equals delta-rs's at every version", () => {
  it("discovers the fixture tables", () => {
    expect(tables.length).toBeGreaterThan(100);
  });

  it.each(tables)(
    "$name",
    async ({ name, dir: source, hasLog }) => {
      const dir = await copyFixture(source);
      try {
        const versions: (number | undefined)[] = hasLog ? [...versionsInLog(dir), undefined] : [undefined];
        const tableRows: Row[] = [];
        for (const version of versions) tableRows.push(await compareAt(name, dir, version));
        rows.push(...tableRows);
        if (!hasLog) {
          // No _delta_log at all: our answer must be the typed "table not found".
          expect(
            tableRows.every((r) => r.outcome === "both-refuse" && r.detail.startsWith("not_found")),
          ).toBe(true);
        }
        const failures = tableRows.filter((r) => r.outcome === "fail");
        expect(failures.map((r) => `@${r.version}: ${r.detail}`)).toEqual([]);
      } finally {
        await fs.rm(path.dirname(dir), { recursive: true, force: true });
      }
    },
    120_000,
  );
});
