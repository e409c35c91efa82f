import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { LOCAL_TEMP_PREFIX, LocalFileStore, listAll, openStore, PrefixedStore } from "../src/index.js";
import { runObjectStoreContract } from "../src/testing.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-local-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
});

runObjectStoreContract("local file system", async () => new LocalFileStore(await tempDir()), {
  partSizeBytes: 64 * 1024,
});

runObjectStoreContract(
  "local file system (prefixed)",
  async () => new PrefixedStore(new LocalFileStore(await tempDir()), "sub/dir"),
  { partSizeBytes: 64 * 1024 },
);

describe("local store specifics", () => {
  it("frees chunks handed over once stored, and leaves the caller's chunks alone otherwise", async () => {
    const store = new LocalFileStore(await tempDir());
    const handed = [new Uint8Array(1000).fill(1), new Uint8Array(2000).fill(2)];
    await store.putMultipart("a.bin", handed, { handOver: true });
    expect(handed.map((chunk) => chunk.byteLength)).toEqual([0, 0]);
    expect((await store.get("a.bin")).length).toBe(3000);
    const kept = [new Uint8Array(1000).fill(3)];
    await store.putMultipart("b.bin", kept);
    expect(kept[0]?.byteLength).toBe(1000);
    // A view of part of a larger buffer is never detached (it would take the rest of the buffer with it).
    const shared = new Uint8Array(100).fill(4);
    await store.put("c.bin", shared.subarray(10, 20), { handOver: true });
    expect(shared.byteLength).toBe(100);
    expect(Array.from(await store.get("c.bin"))).toEqual(Array(10).fill(4));
  });

  it("leaves no temp files behind after successful and losing creates", async () => {
    const dir = await tempDir();
    const store = new LocalFileStore(dir);
    await Promise.allSettled(
      Array.from({ length: 8 }, () => store.put("a/b.json", new Uint8Array([1]), { mode: "create" })),
    );
    const entries = await fs.readdir(path.join(dir, "a"));
    expect(entries).toEqual(["b.json"]);
    expect(entries.some((e) => e.startsWith(LOCAL_TEMP_PREFIX))).toBe(false);
  });

  it("never resolves a key outside the root, even with percent-encoded separators", async () => {
    const dir = await tempDir();
    const store = new LocalFileStore(path.join(dir, "root"));
    await store.put("part=a%2F..%2F..%2Fx/f.parquet", new Uint8Array([7]));
    expect(existsSync(path.join(dir, "root", "part=a%2F..%2F..%2Fx", "f.parquet"))).toBe(true);
    expect((await fs.readdir(dir)).sort()).toEqual(["root"]);
  });

  it("opens plain paths and file:// URIs at the same root", async () => {
    const dir = await tempDir();
    await openStore(dir).put("x", new Uint8Array([1, 2]));
    expect((await openStore(`file://${dir}`).get("x")).length).toBe(2);
    expect((await listAll(openStore(`${dir}/`), "")).map((m) => m.key)).toEqual(["x"]);
  });

  it("racing creators in 4 processes: exactly one winner in each of 20 rounds", {
    timeout: 120_000,
  }, async () => {
    const child = path.join(here, "fixtures", "race-child.mjs");
    const dist = path.join(here, "..", "dist", "index.js");
    expect(existsSync(dist), "the race children import the built package: run `pnpm build` first").toBe(true);
    const dir = await tempDir();
    const rounds = 20;
    const processes = 4;
    const startAt = Date.now() + 1500;
    const outputs = await Promise.all(
      Array.from(
        { length: processes },
        (_, id) =>
          new Promise<string>((resolve, reject) => {
            const proc = spawn(process.execPath, [child, dir, String(id), String(rounds), String(startAt)], {
              stdio: ["ignore", "pipe", "pipe"],
            });
            let out = "";
            let err = "";
            proc.stdout.on("data", (d) => {
              out += d;
            });
            proc.stderr.on("data", (d) => {
              err += d;
            });
            proc.on("exit", (code) =>
              code === 0 ? resolve(out) : reject(new Error(`child ${id} exited ${code}: ${err}`)),
            );
          }),
      ),
    );
    const results = outputs.map((o) => JSON.parse(o) as { id: number; won: number[]; lost: number[] });
    const store = new LocalFileStore(dir);
    for (let round = 0; round < rounds; round++) {
      const winners = results.filter((r) => r.won.includes(round));
      expect(winners, `round ${round}`).toHaveLength(1);
      expect(results.filter((r) => r.lost.includes(round))).toHaveLength(processes - 1);
      const content = new TextDecoder().decode(
        await store.get(`_delta_log/${String(round).padStart(20, "0")}.json`),
      );
      expect(content).toBe(`process-${winners[0]!.id}`);
    }
    // Each process wrote in parallel bursts; the rounds really raced (every process won or lost every round).
    for (const r of results) expect(r.won.length + r.lost.length).toBe(rounds);
  });
});
