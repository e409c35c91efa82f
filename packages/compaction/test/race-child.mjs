// One side of a compaction / upsert race (compact-race.test.ts starts two of these at once): loads the table,
// says "ready" on stdout, waits for "go" on stdin, sleeps the seeded delay, then runs its operation through
// the BUILT packages (packages/*/dist, as a separate Node process would use them) and prints one JSON line
// with what it did — or the error's kind and message.
//
//   node race-child.mjs compact <table-dir> '{"delayMs": 3, "options": {...}}'
//   node race-child.mjs upsert  <table-dir> '{"delayMs": 0, "rows": [[id, payload, part], ...]}'
import { createInterface } from "node:readline";
import { Int64, Table, Utf8, vectorFromArray } from "apache-arrow";

const dist = (name) => new URL(`../../${name}/dist/index.js`, import.meta.url).href;
const { LocalFileStore } = await import(dist("object-store"));
const { Snapshot } = await import(dist("delta-log"));
const { compact } = await import(dist("compaction"));
const { upsert } = await import(dist("merge-engine"));

const [role, tableDir, argText] = process.argv.slice(2);
const args = JSON.parse(argText);

function upsertSource(rows) {
  return new Table({
    id: vectorFromArray(
      rows.map((r) => BigInt(r[0])),
      new Int64(),
    ),
    payload: vectorFromArray(
      rows.map((r) => r[1]),
      new Utf8(),
    ),
    part: vectorFromArray(
      rows.map((r) => r[2]),
      new Utf8(),
    ),
  });
}

const snapshot = await Snapshot.open(new LocalFileStore(tableDir));
const source = role === "upsert" ? upsertSource(args.rows) : undefined;
process.stdout.write("ready\n");
const lines = createInterface({ input: process.stdin });
for await (const line of lines) if (line.trim() === "go") break;
lines.close();
await new Promise((resolve) => setTimeout(resolve, args.delayMs));
try {
  const result =
    role === "compact"
      ? await compact(snapshot, args.options ?? {})
      : await upsert(snapshot, source, {
          primaryKeys: ["id"],
          partitionKey: "part",
          ...(args.options ?? {}),
        });
  const keep = [
    "version",
    "binsDropped",
    "replanRounds",
    "commitRetries",
    "commits",
    "numFilesRemoved",
    "planAttempts",
    "rowsUpdated",
    "rowsInserted",
  ];
  process.stdout.write(
    `${JSON.stringify({ ok: true, ...Object.fromEntries(keep.filter((k) => k in result).map((k) => [k, result[k]])) })}\n`,
  );
} catch (error) {
  process.stdout.write(
    `${JSON.stringify({ ok: false, kind: error?.kind, message: String(error?.message ?? error) })}\n`,
  );
}
process.exit(0);
