// DAT reader cases against DAT's own expected output (independent of delta-rs): for every expected version,
// our snapshot has that version, protocol and table properties, and the row count of DAT's expected table
// content equals the sum of `numRecords` over our live files' stats.
import { readdirSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { readParquetObjects } from "@deltalite/parquet-stream";
import { fixturesDir } from "@deltalite/tools/fixtures";
import { describe, expect, it } from "vitest";
import { Snapshot } from "../src/index.js";

const root = path.join(fixturesDir(), "dat", "reader_tests", "generated");
const cases = readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(path.join(root, d.name, "expected")).map((expected) => ({ name: d.name, expected })),
  );

interface VersionMetadata {
  version: number;
  properties: Record<string, string>;
  min_reader_version: number;
  min_writer_version: number;
}

describe("DAT cases match DAT's expected version metadata and row counts", () => {
  it("finds the DAT cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(4);
  });

  it.each(cases)("$name @ $expected", async ({ name, expected }) => {
    const dir = path.join(root, name, "expected", expected);
    const meta = JSON.parse(
      await fs.readFile(path.join(dir, "table_version_metadata.json"), "utf8"),
    ) as VersionMetadata;
    const version = expected === "latest" ? undefined : Number(expected.replace(/^v/, ""));
    const snapshot = await Snapshot.open(new LocalFileStore(path.join(root, name, "delta")), { version });
    expect(snapshot.version).toBe(meta.version);
    expect(snapshot.protocol.minReaderVersion).toBe(meta.min_reader_version);
    expect(snapshot.protocol.minWriterVersion).toBe(meta.min_writer_version);
    expect({ ...snapshot.configuration }).toEqual(meta.properties);
    const rows = await readParquetObjects(new LocalFileStore(dir), "table_content.parquet");
    const counted = snapshot.files.map((f) => f.stats?.numRecords);
    expect(counted.every((n) => typeof n === "number")).toBe(true);
    expect(counted.reduce((a, b) => (a ?? 0) + (b ?? 0), 0)).toBe(rows.length);
  });
});
