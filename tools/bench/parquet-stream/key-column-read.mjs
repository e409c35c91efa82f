// Key-column read micro-benchmark (not a test): what the upsert's exact probe does per candidate file,
// without the upsert around it — open the file (footer), decode one column of every row group, and encode +
// hash it as keys — over every Parquet file of a table directory, one file after another. Prints, per
// round, the wall and CPU time of the three steps; the median round at the end.
//
//   pnpm exec tsc -b && node tools/bench/parquet-stream/key-column-read.mjs \
//     [--dir /tmp/deltalite-bench/upsert-r1000000-p8-f30-s42/pristine] [--column id] [--rounds 5]
import { readdir, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { defaultKeyHasher, encodeKeys } from "@deltalite/merge-engine";
import { LocalFileStore } from "@deltalite/object-store";
import { openParquetReader } from "@deltalite/parquet-stream";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: "/tmp/deltalite-bench/upsert-r1000000-p8-f30-s42/pristine" },
    column: { type: "string", default: "id" },
    rounds: { type: "string", default: "5" },
  },
});

async function parquetFiles(dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath ?? entry.path, entry.name);
    if (entry.isFile() && entry.name.endsWith(".parquet") && !path.includes("_delta_log")) {
      out.push({ key: relative(dir, path), size: (await stat(path)).size });
    }
  }
  return out;
}

const store = new LocalFileStore(values.dir);
const files = await parquetFiles(values.dir);
const rounds = [];
for (let round = 0; round < Number(values.rounds); round++) {
  const t = { open: 0, decode: 0, keys: 0, rows: 0 };
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (const file of files) {
    let at = performance.now();
    const reader = await openParquetReader(store, file.key, { size: file.size });
    t.open += performance.now() - at;
    at = performance.now();
    for await (const batch of reader.readRowGroups({ columns: [values.column] })) {
      const decoded = performance.now();
      t.decode += decoded - at;
      t.rows += encodeKeys(batch, [values.column], { hasher: defaultKeyHasher }).length;
      at = performance.now();
      t.keys += at - decoded;
    }
    reader.close();
  }
  const cpu = process.cpuUsage(cpu0);
  rounds.push({ wall: performance.now() - wall0, cpu: (cpu.user + cpu.system) / 1000, ...t });
  const r = rounds.at(-1);
  console.log(
    `round ${round}: wall ${r.wall.toFixed(0)} ms, cpu ${r.cpu.toFixed(0)} ms; open ${r.open.toFixed(0)}, ` +
      `decode ${r.decode.toFixed(0)}, keys ${r.keys.toFixed(0)} ms; ${files.length} files, ${r.rows} rows`,
  );
}
const median = (k) => rounds.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(rounds.length / 2)];
console.log(
  `median: wall ${median("wall").toFixed(0)} ms, cpu ${median("cpu").toFixed(0)} ms; open ${median("open").toFixed(0)}, ` +
    `decode ${median("decode").toFixed(0)}, keys ${median("keys").toFixed(0)} ms`,
);
