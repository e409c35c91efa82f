// The S3 side of `pnpm bench log-requests`: empties the moto server (its reset API) and uploads a scenario's
// local pristine table into a fresh bucket, straight to moto (never through the counting proxy), so every
// engine's run starts from the same bytes and no earlier run's objects linger in moto's memory.
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

const UPLOAD_CONCURRENCY = 16;

async function filesUnder(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

async function putObject(endpoint, bucket, key, body) {
  const path = key.split("/").map(encodeURIComponent).join("/");
  const response = await fetch(`${endpoint}/${bucket}/${path}`, { method: "PUT", body });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`uploading ${key} to moto failed: HTTP ${response.status}`);
}

/** Resets moto, creates `bucket` and copies `localTableDir` to `s3://bucket/<prefix>/`; returns the object count. */
export async function freshTableOnS3(moto, bucket, prefix, localTableDir) {
  const reset = await fetch(`${moto.endpoint}/moto-api/reset`, { method: "POST" });
  await reset.arrayBuffer();
  if (!reset.ok) throw new Error(`resetting moto failed: HTTP ${reset.status}`);
  await moto.createBucket(bucket);
  const files = await filesUnder(localTableDir);
  let next = 0;
  async function worker() {
    while (next < files.length) {
      const file = files[next++];
      const key = `${prefix}/${relative(localTableDir, file).split("\\").join("/")}`;
      await putObject(moto.endpoint, bucket, key, await readFile(file));
    }
  }
  await Promise.all(Array.from({ length: UPLOAD_CONCURRENCY }, worker));
  return files.length;
}
