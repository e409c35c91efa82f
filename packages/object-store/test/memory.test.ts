import { describe, expect, it } from "vitest";
import { InMemoryStore, namedMemoryStore, openStore } from "../src/index.js";
import { runObjectStoreContract } from "../src/testing.js";

runObjectStoreContract("memory", () => new InMemoryStore(), { partSizeBytes: 64 * 1024 });
runObjectStoreContract(
  "memory (prefixed, via memory://name/sub/dir)",
  () => openStore("memory://contract/sub/dir"),
  {
    partSizeBytes: 64 * 1024,
  },
);

describe("memory:// URIs", () => {
  it("give the same store for the same name within the process", async () => {
    const a = openStore("memory://shared-name");
    await a.put("k", new TextEncoder().encode("v"));
    const b = openStore("memory://shared-name");
    expect(new TextDecoder().decode(await b.get("k"))).toBe("v");
    expect(namedMemoryStore("shared-name")).toBe(a);
  });

  it("keep prefixed views apart from each other", async () => {
    const t1 = openStore("memory://views/t1");
    const t2 = openStore("memory://views/t2");
    await t1.put("_delta_log/x", new Uint8Array([1]));
    expect((await t2.head("_delta_log/x").catch((e) => e)).kind).toBe("not_found");
    expect((await openStore("memory://views").head("t1/_delta_log/x")).size).toBe(1);
  });
});
