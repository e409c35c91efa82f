/**
 * The demo: what deltalite can do today, on a local folder in a temp directory. It grows with the
 * product; at this stage it shows the storage layer every Delta commit will stand on — atomic create
 * (eight racing writers, one winner), sorted listings, ranged reads, and typed errors.
 */
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { isDeltaLiteError, listAll, openStore } from "deltalite";

const enc = new TextEncoder();
const dec = new TextDecoder();

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-demo-"));
  try {
    const store = openStore(dir);
    console.log(`store root: ${store.root}`);

    const commit = "_delta_log/00000000000000000000.json";
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, (_, writer) =>
        store.put(commit, enc.encode(`{"writer":${writer}}\n`), { mode: "create" }),
      ),
    );
    const winners = attempts.flatMap((a, i) => (a.status === "fulfilled" ? [i] : []));
    const losers = attempts.flatMap((a) =>
      a.status === "rejected" && isDeltaLiteError(a.reason) ? [a.reason.kind] : [],
    );
    console.log(
      `8 writers raced to create ${commit}: winner ${JSON.stringify(winners)}, losers got ${JSON.stringify([...new Set(losers)])} x${losers.length}`,
    );
    console.log(`content: ${dec.decode(await store.get(commit)).trim()}`);

    await store.put("day=2026-01-02/part-00001.parquet", enc.encode("0123456789"));
    await store.put("day=2026-01-01/part-00000.parquet", enc.encode("abcdefghij"));
    const listed = await listAll(store, "");
    console.log("sorted listing:");
    for (const meta of listed) console.log(`  ${meta.key} (${meta.size} bytes)`);
    const tail = dec.decode(
      await store.get("day=2026-01-01/part-00000.parquet", { range: { start: 6, end: 10 } }),
    );
    console.log(`last 4 bytes of day=2026-01-01/part-00000.parquet: ${tail}`);

    const outside = await store.get("../outside").catch((e: unknown) => e);
    console.log(
      `a key that tries to leave the root fails with kind: ${isDeltaLiteError(outside) ? outside.kind : "??"}`,
    );
    const missing = await store.head("nope").catch((e: unknown) => e);
    console.log(`a missing object fails with kind: ${isDeltaLiteError(missing) ? missing.kind : "??"}`);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
