// Local-store read micro-benchmark (not a test): the ranged GETs an upsert's probe sends to LocalFileStore —
// per Parquet file of a table directory, its last 64 KiB (the footer) and 200 KB from its start (a key
// column chunk) — 8 files at a time, as the probe's permits allow. Prints wall and CPU time per round and the
// median round; run it on two builds to compare them.
//
//   pnpm exec tsc -b && node tools/bench/object-store/local-reads.mjs \
//     [--dir /tmp/deltalite-bench/upsert-r1000000-p8-f30-s42/pristine] [--rounds 7]
import { readdir, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { LocalFileStore } from "@deltalite/object-store";

const { values } = parseArgs({
  options: {
    dir: { type: "string", default: "/tmp/deltalite-bench/upsert-r1000000-p8-f30-s42/pristine" },
    rounds: { type: "string", default: "7" },
  },
});

const files = [];
for (const entry of await readdir(values.dir, { withFileTypes: true, recursive: true })) {
  const path = join(entry.parentPath ?? entry.path, entry.name);
  if (entry.isFile() && entry.name.endsWith(".parquet") && !path.includes("_delta_log")) {
    files.push({ key: relative(values.dir, path), size: (await stat(path)).size });
  }
}
const store = new LocalFileStore(values.dir);
const FOOTER = 65536;
const CHUNK = 200_000;

const rounds = [];
for (let round = 0; round < Number(values.rounds); round++) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < files.length; i += 8) {
    await Promise.all(
      files
        .slice(i, i + 8)
        .flatMap(({ key, size }) => [
          store.get(key, { range: { start: Math.max(0, size - FOOTER), end: size } }),
          store.get(key, { range: { start: 0, end: Math.min(size, CHUNK) } }),
        ]),
    );
  }
  const used = process.cpuUsage(cpu);
  rounds.push({ wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 });
  console.log(
    `round ${round}: ${files.length * 2} reads, wall ${rounds.at(-1).wallMs.toFixed(1)} ms, cpu ${rounds.at(-1).cpuMs.toFixed(1)} ms`,
  );
}
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `median: wall ${median(rounds.map((r) => r.wallMs)).toFixed(1)} ms, cpu ${median(rounds.map((r) => r.cpuMs)).toFixed(1)} ms`,
);
