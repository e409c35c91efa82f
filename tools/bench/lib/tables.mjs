// Owns the benchmarks' tables on disk: a command run to completion with its output passed through (`run`),
// `exists`, the generate-once cache of a pristine table or batch (`cached`: an interrupted run never leaves
// a half-made entry) and a contender's own fresh copy of a pristine table (`freshCopy`).
import { spawn } from "node:child_process";
import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Runs `command args` (stdout and stderr inherited); rejects unless it exits 0. */
export function run(command, args) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code, signal) =>
      code === 0
        ? resolveRun()
        : reject(new Error(`${command} ${args.join(" ")} exited with ${code ?? signal}`)),
    );
  });
}

export function exists(path) {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The JSON in `metaFile`, or: run `produce(partialPath)` (it makes the entry and returns its meta), then
 * move its output and the meta into place so an interrupted run never leaves a half-made cache entry. */
export async function cached(metaFile, finalPath, partialPath, produce) {
  if (await exists(metaFile)) return JSON.parse(await readFile(metaFile, "utf8"));
  await rm(partialPath, { recursive: true, force: true });
  const meta = await produce(partialPath);
  await rm(finalPath, { recursive: true, force: true });
  await rename(partialPath, finalPath);
  await writeFile(metaFile, `${JSON.stringify(meta, null, 2)}\n`);
  return meta;
}

/**
 * A fresh copy of the table at `pristine` under `workDir`, in a folder named after `contender`, on disk
 * before it is handed out: the copy's dirty pages are flushed (`sync`) first, so their writeback does not
 * run during the contender's call. A contender that syncs its own writes (ours fsyncs every data file
 * before the commit names it) would otherwise wait behind up to the whole table's bytes on the device
 * (merge-engine BENCHMARKS.md, session 28).
 */
export async function freshCopy(pristine, workDir, contender) {
  const tableDir = join(workDir, contender.replace(/[^a-z0-9]+/gi, "-"));
  await rm(tableDir, { recursive: true, force: true });
  await run("cp", ["-r", pristine, tableDir]);
  await run("sync", []);
  return tableDir;
}
