// Schema evolution and time travel through a scan of a delta-rs table whose schema grew by a merge append (a
// nested struct field, a list column and a timestamp column that the first file lacks): every version reads
// like delta-rs reads it, with the missing columns and nested fields null-filled in the table's types, and
// a filter on a column some files lack. The lazy snapshot source (what `table.scan({ version })` uses) loads
// the version on first iteration.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { type ScanFilterCondition, scanTable } from "@deltalite/data-files";
import { Snapshot } from "@deltalite/delta-log";
import { LocalFileStore } from "@deltalite/object-store";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { afterAll, beforeAll, expect, it } from "vitest";
import { batchToJsonRows } from "../src/json/index.js";
import { fieldsOf, type ScanRows, scanRows, sortedRows } from "./scan-helpers.js";

let oracle: Oracle;
let tmp: string;
let uri: string;
beforeAll(async () => {
  oracle = await connectOracle();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-scan-evolution-"));
  uri = path.join(tmp, "grown");
  await oracle.call("scan_make_evolved_table", { uri });
});
afterAll(async () => {
  oracle?.close();
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

it.each([0, 1])("version %i equals delta-rs's rows and types", async (version) => {
  const snapshot = await Snapshot.open(new LocalFileStore(uri), { version });
  const ours = await scanRows(snapshot);
  const theirs = await oracle.call<ScanRows>("scan_delta", { uri, version });
  expect(ours.fields).toEqual(theirs.fields);
  expect(sortedRows(ours.rows)).toEqual(sortedRows(theirs.rows));
});

it("a filter on a column the old file lacks sees nulls there", async () => {
  const snapshot = await Snapshot.open(new LocalFileStore(uri));
  const filter: ScanFilterCondition[] = [{ column: "ts", op: "isNull" }];
  const columns = ["s", "id"];
  const ours = await scanRows(snapshot, { filter, columns });
  const theirs = await oracle.call<ScanRows>("scan_delta", { uri, filter, columns });
  expect(ours.fields).toEqual(theirs.fields);
  expect(ours.rows.length).toBe(4);
  expect(sortedRows(ours.rows)).toEqual(sortedRows(theirs.rows));
});

it("a filter on a list column is refused before anything is read (only primitive columns filter)", async () => {
  const snapshot = await Snapshot.open(new LocalFileStore(uri));
  const filter: ScanFilterCondition[] = [{ column: "tags", op: "isNotNull" }];
  await expect(scanTable(snapshot, { filter }).plan()).rejects.toMatchObject({ kind: "unsupported" });
});

it("a lazy snapshot source is loaded on first iteration, at the version asked for", async () => {
  const store = new LocalFileStore(uri);
  let loads = 0;
  const scan = scanTable(
    () => {
      loads++;
      return Snapshot.open(store, { version: 0 });
    },
    { columns: ["id"] },
  );
  expect(loads).toBe(0);
  const rows: object[] = [];
  for await (const batch of scan) for (const r of batchToJsonRows(batch)) rows.push(r);
  const plan = await scan.plan();
  expect(loads).toBe(1);
  expect(fieldsOf(plan.schema)).toEqual([{ name: "id", type: "int64" }]);
  const theirs = await oracle.call<ScanRows>("scan_delta", { uri, version: 0, columns: ["id"] });
  expect(sortedRows(rows)).toEqual(sortedRows(theirs.rows));
});
