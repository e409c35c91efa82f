/**
 * The demo: a tour of what deltalite does today, on a local table in a temp folder — create a partitioned
 * table by writing a first sync batch, append a second batch with a new partition, read the history, time
 * travel, plan a vacuum, and finally ask delta-rs (the reference implementation, from the oracle venv that
 * set-up builds) to read the table we wrote. It grows with the product.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { Float64, Int64, Table, Utf8, vectorFromArray } from "apache-arrow";
import { DeltaLiteTable, isDeltaLiteError } from "deltalite";

function events(ids: number[], day: string): Table {
  return new Table({
    id: vectorFromArray(
      ids.map((i) => BigInt(i)),
      new Int64(),
    ),
    day: vectorFromArray(
      ids.map(() => day),
      new Utf8(),
    ),
    user: vectorFromArray(
      ids.map((i) => `user-${i % 7}`),
      new Utf8(),
    ),
    amount: vectorFromArray(
      ids.map((i) => Math.round(i * 13.7) / 10),
      new Float64(),
    ),
  });
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

async function main(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-demo-"));
  const uri = path.join(dir, "events");
  try {
    console.log(`table: ${uri}\n`);
    const first = await DeltaLiteTable.write(
      uri,
      new Table([
        ...events(range(0, 500), "2026-11-28").batches,
        ...events(range(500, 900), "2026-11-29").batches,
      ]),
      {
        partitionBy: ["day"],
      },
    );
    const table = first.table;
    console.log(
      `sync 1: created version ${first.result.version}: ${first.result.rowsWritten} rows in ${first.result.filesAdded} files`,
    );
    const second = await table.write(events(range(900, 1200), "2026-11-30"));
    console.log(
      `sync 2: appended version ${second.version}: ${second.rowsWritten} rows, new partition day=2026-11-30`,
    );

    console.log("\nlive files:");
    for (const file of table.files) {
      console.log(
        `  ${file.path}  ${file.size} bytes, ${file.stats?.numRecords} rows, id ${JSON.stringify(file.stats?.minValues?.id)}..${JSON.stringify(file.stats?.maxValues?.id)}`,
      );
    }
    console.log("\nhistory (newest first):");
    for (const entry of await table.history()) {
      const metrics = entry.commitInfo.operationMetrics as Record<string, unknown> | undefined;
      console.log(
        `  v${entry.version} ${entry.operation} ${JSON.stringify(entry.commitInfo.operationParameters)} ${metrics ? JSON.stringify(metrics) : ""}`,
      );
    }
    const v0 = await DeltaLiteTable.open(uri, { version: 0 });
    console.log(
      `\ntime travel: version 0 has ${v0.numFiles} files, the latest (v${table.version}) has ${table.numFiles}`,
    );

    const wrongType = new Table({ id: vectorFromArray(["not-a-number"], new Utf8()) });
    const refused = await table.write(wrongType).catch((e: unknown) => e);
    console.log(
      `a batch with the wrong column type is refused: ${isDeltaLiteError(refused) ? refused.kind : "??"}; table still at v${(await DeltaLiteTable.open(uri)).version}`,
    );

    const plan = await table.vacuum({ dryRun: true });
    console.log(`vacuum dry run (7-day retention): would delete ${plan.files.length} files`);

    const python = path.resolve(
      path.dirname(fileURLToPath(import.meta.url)),
      "../../../tools/oracle/.venv/bin/python",
    );
    if (existsSync(python)) {
      const check = spawnSync(
        python,
        [
          "-c",
          "import sys; from deltalake import DeltaTable; t = DeltaTable(sys.argv[1]); d = t.to_pyarrow_table(); " +
            'print(f\'delta-rs reads version {t.version()}: {d.num_rows} rows, {len(t.file_uris())} files, ids {min(d["id"].to_pylist())}..{max(d["id"].to_pylist())}\')',
          uri,
        ],
        { encoding: "utf8" },
      );
      console.log(`\n${(check.stdout || check.stderr).trim()}`);
    } else {
      console.log("\n(delta-rs check skipped: run `bash tools/setup.sh` to build the oracle venv)");
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
