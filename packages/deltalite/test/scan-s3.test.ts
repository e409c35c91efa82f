// A filtered scan of a delta-rs table on the S3 server (moto, started by the vitest global set-up): rows equal
// delta-rs's, and through a CountingStore the data files GET are exactly those delta-rs finds matching rows
// in — data-file sizes come from the Add actions, so no HEAD is sent.

import type { ScanFilterCondition } from "@deltalite/data-files";
import { Snapshot } from "@deltalite/delta-log";
import { openStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ScanRows, scanRows, sortedRows } from "./scan-helpers.js";

let oracle: Oracle;
beforeAll(async () => {
  oracle = await connectOracle();
});
afterAll(() => oracle?.close());

it("scans a delta-rs table on S3 with partition and stats pruning", async () => {
  const s3 = testS3();
  const bucket = await s3.createBucket(`scan-${Date.now().toString(36)}`);
  const uri = `s3://${bucket}/events`;
  await oracle.call("scan_make_table", { uri, storage_options: s3.storageOptions, appends: 2 });
  const store = new CountingStore(openStore(uri, { storageOptions: s3.storageOptions }));
  const snapshot = await Snapshot.open(store);
  store.reset();
  const filter: ScanFilterCondition[] = [
    { column: "region", op: "ne", value: "eu" },
    { column: "id", op: "ge", value: 1000n },
    { column: "id", op: "lt", value: 2000n },
  ];
  const jsonFilter = filter.map((c) => ({
    ...c,
    value: typeof c.value === "bigint" ? Number(c.value) : c.value,
  }));
  const ours = await scanRows(snapshot, { filter, columns: ["id", "region", "name"] });
  const theirs = await oracle.call<ScanRows>("scan_delta", {
    uri,
    filter: jsonFilter,
    columns: ["id", "region", "name"],
    storage_options: s3.storageOptions,
  });
  expect(ours.fields).toEqual(theirs.fields);
  expect(ours.rows.length).toBe(100);
  expect(sortedRows(ours.rows)).toEqual(sortedRows(theirs.rows));
  const withMatches = await oracle.call<string[]>("scan_files_with_matches", {
    uri,
    filter: jsonFilter,
    storage_options: s3.storageOptions,
  });
  expect(withMatches).toHaveLength(2);
  const read = [...new Set(store.log.filter((r) => r.method === "get").map((r) => r.key))].sort();
  expect(read).toEqual(withMatches);
  expect(store.counts.head.calls).toBe(0);
});
