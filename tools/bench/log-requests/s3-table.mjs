// The S3 side of `pnpm bench log-requests`: empties the moto server (its reset API) and uploads a scenario's
// local pristine table into a fresh bucket, straight to moto (never through the counting proxy), so every
// engine's run starts from the same bytes and no earlier run's objects linger in moto's memory. Optionally the
// table root also gets the hidden object our S3 store's conditional-put probe keeps there (as an earlier
// deltalite process would have left it; packages/object-store/src/s3.ts).
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

const UPLOAD_CONCURRENCY = 16;
/** The key (under the table root) and a body of the probe object of packages/object-store/src/s3.ts. */
const PROBE_OBJECT_KEY = ".deltalite-conditional-put-probe";
const PROBE_OBJECT_BODY = "left by an earlier deltalite process (pnpm bench log-requests --probe-object)\n";

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

/**
 * Resets moto, creates `bucket` and copies `localTableDir` to `s3://bucket/<prefix>/` (plus the probe object
 * when `withProbeObject`); returns the number of table files.
 */
export async function freshTableOnS3(moto, bucket, prefix, localTableDir, { withProbeObject = false } = {}) {
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
  if (withProbeObject)
    await putObject(moto.endpoint, bucket, `${prefix}/${PROBE_OBJECT_KEY}`, PROBE_OBJECT_BODY);
  return files.length;
}
