// The physical floor of `pnpm bench upsert` (upsert-bench.mjs starts it as its own child process after the
// contenders): a raw read + write copy of exactly the bytes an upsert rewrote. Each listed file is read fully
// into memory and written to a copy in <out-dir>, one file after another, NOT fsync'd (like the contenders'
// local writes: they go to the page cache). Prints one JSON line: wallMs (first read to last write),
// bytesRead, bytesWritten, files.
//
//   node raw-copy.mjs <out-dir> '<json array of file paths>'
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

const [outDir, pathsJson] = process.argv.slice(2);
if (!outDir || !pathsJson) {
  console.error("usage: node raw-copy.mjs <out-dir> '<json array of file paths>'");
  process.exit(2);
}
const paths = JSON.parse(pathsJson);
await mkdir(outDir, { recursive: true });
let bytesRead = 0;
let bytesWritten = 0;
const started = performance.now();
for (const [i, path] of paths.entries()) {
  const bytes = await readFile(path);
  bytesRead += bytes.byteLength;
  await writeFile(join(outDir, `copy-${i}.bin`), bytes);
  bytesWritten += bytes.byteLength;
}
const wallMs = performance.now() - started;
console.log(JSON.stringify({ wallMs, bytesRead, bytesWritten, files: paths.length }));
