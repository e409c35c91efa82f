// The one commit-read seam: `readCommit` is one GET of `_delta_log/<v>.json` parsed into actions in file
// order; a missing commit is the store's `not_found` (callers such as the winners' peek rely on the kind), a
// malformed one `corrupt_log` naming the table and the key. `readCommits` keeps the given order.
import { InMemoryStore } from "@deltalite/object-store";
import { CountingStore } from "@deltalite/object-store/testing";
import { describe, expect, it } from "vitest";
import { type Action, commitKey, readCommit, readCommits, serializeCommit } from "../src/index.js";

const add = (i: number): Action => ({
  add: { path: `f-${i}.parquet`, partitionValues: {}, size: i, modificationTime: i, dataChange: true },
});

async function storeWith(versions: number): Promise<CountingStore> {
  const store = new CountingStore(new InMemoryStore("memory://seam"));
  for (let v = 0; v < versions; v++) {
    await store.put(commitKey(v), serializeCommit([add(v), add(v + 100)]), { mode: "create" });
  }
  store.reset();
  return store;
}

describe("readCommit", () => {
  it("reads one commit with one GET, actions in file order", async () => {
    const store = await storeWith(2);
    expect(await readCommit(store, 1)).toEqual([add(1), add(101)]);
    expect(store.log.map((r) => `${r.method} ${r.key}`)).toEqual([`get ${commitKey(1)}`]);
  });

  it("propagates the store's not_found for a missing commit", async () => {
    const store = await storeWith(1);
    await expect(readCommit(store, 1)).rejects.toMatchObject({ kind: "not_found" });
  });

  it("answers corrupt_log naming the table and the key for a malformed commit", async () => {
    const store = await storeWith(0);
    await store.put(commitKey(0), new TextEncoder().encode("{not json\n"));
    const error = await readCommit(store, 0, { table: "s3://b/t" }).catch((e) => e);
    expect(error).toMatchObject({ kind: "corrupt_log" });
    expect(error.message).toContain(`s3://b/t/${commitKey(0)}`);
  });

  it("readCommits returns the commits in the order asked, one GET each", async () => {
    const store = await storeWith(12);
    const wanted = [11, 3, 7, 0, 5].map((version) => ({ version }));
    const got = await readCommits(store, wanted, "t", undefined, 3);
    expect(got).toEqual(wanted.map(({ version }) => [add(version), add(version + 100)]));
    expect(store.counts.get.calls).toBe(wanted.length);
  });
});
