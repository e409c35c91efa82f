// Broken logs fail with typed errors that name the file: a commit that is not JSON, an unreadable checkpoint,
// a commit missing from the middle of the log; an absolute add.path is invalid_path.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { LocalFileStore } from "@deltalite/object-store";
import { copyFixture, goldenTable } from "@deltalite/tools/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkpointKey, commitKey, Snapshot } from "../src/index.js";

let copies: string[] = [];
beforeAll(() => {
  copies = [];
});
afterAll(async () => {
  for (const dir of copies) await fs.rm(path.dirname(dir), { recursive: true, force: true });
});

async function copy(name: string): Promise<string> {
  const dir = await copyFixture(goldenTable(name));
  copies.push(dir);
  await fs.chmod(path.join(dir, "_delta_log"), 0o755);
  return dir;
}

describe("snapshot loading on broken logs", () => {
  it("a commit file that is not JSON is corrupt_log naming the file", async () => {
    const dir = await copy("basic-with-inserts-updates");
    const file = path.join(dir, commitKey(1));
    await fs.rm(file, { force: true });
    await fs.writeFile(file, '{"add": {"path": "x", "size": 1}\n{oops');
    const error = await Snapshot.open(new LocalFileStore(dir)).catch((e) => e);
    expect(error).toMatchObject({ kind: "corrupt_log" });
    expect(error.message).toContain("00000000000000000001.json");
  });

  it("an unreadable checkpoint is corrupt_log naming the file", async () => {
    const dir = await copy("checkpoint");
    const file = path.join(dir, checkpointKey(10));
    await fs.rm(file, { force: true });
    await fs.writeFile(file, new Uint8Array(64).fill(7));
    const error = await Snapshot.open(new LocalFileStore(dir)).catch((e) => e);
    expect(error).toMatchObject({ kind: "corrupt_log" });
    expect(error.message).toContain("checkpoint.parquet");
  });

  it("a commit missing from the middle of the log is corrupt_log", async () => {
    const dir = await copy("basic-with-inserts-deletes-checkpoint");
    await fs.rm(path.join(dir, commitKey(12)), { force: true });
    const error = await Snapshot.open(new LocalFileStore(dir)).catch((e) => e);
    expect(error).toMatchObject({ kind: "corrupt_log" });
    expect(error.message).toContain("missing commit 12");
  });

  it("an absolute add.path is invalid_path", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-abs-"));
    copies.push(path.join(dir, "t"));
    const store = new LocalFileStore(path.join(dir, "t"));
    const lines = [
      { protocol: { minReaderVersion: 1, minWriterVersion: 2 } },
      {
        metaData: {
          id: "x",
          format: { provider: "parquet", options: {} },
          schemaString: '{"type":"struct","fields":[]}',
          partitionColumns: [],
          configuration: {},
        },
      },
      {
        add: {
          path: "file:///etc/passwd",
          partitionValues: {},
          size: 1,
          modificationTime: 1,
          dataChange: true,
        },
      },
    ];
    await store.put(commitKey(0), new TextEncoder().encode(lines.map((l) => JSON.stringify(l)).join("\n")));
    const error = await Snapshot.open(store).catch((e) => e);
    expect(error).toMatchObject({ kind: "invalid_path" });
  });
});
