// Several upserts of one batch in ONE process, for warm-calls.mjs: reads the batch with parquet-stream's
// reader, then for each table directory in turn opens it with the BUILT package and upserts the batch, and
// prints one JSON line: callsMs (one per call, the upsert call alone) and stats (the UpsertStats of each).
// The first call pays the process's first-use costs (JIT, the encoder workers' WebAssembly tiering); the
// later ones show a long-running process.
//
//   node upsert-ours-calls.mjs <batch.parquet> '<json UpsertOptions>' <table-dir> [<table-dir> …]
import { importBuiltDeltalite, readParquetTable, timedCall } from "../lib/ours-child.mjs";

const [batchFile, optionsJson, ...tableDirs] = process.argv.slice(2);
if (!batchFile || !optionsJson || tableDirs.length === 0) {
  console.error(
    "usage: node upsert-ours-calls.mjs <batch.parquet> '<json UpsertOptions>' <table-dir> [<table-dir> …]",
  );
  process.exit(2);
}
const options = JSON.parse(optionsJson);
const { DeltaLiteTable } = await importBuiltDeltalite();
const source = await readParquetTable(batchFile);
const callsMs = [];
const stats = [];
for (const tableDir of tableDirs) {
  const table = await DeltaLiteTable.open(tableDir);
  const call = await timedCall(() => table.upsert(source, options));
  callsMs.push(call.callMs);
  stats.push(call.value);
}
console.log(JSON.stringify({ callsMs, stats }));
