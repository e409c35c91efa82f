import { randomBytes } from "node:crypto";
import { TEST_SECRET_ACCESS_KEY, testS3 } from "@deltalite/tools/s3-server";
import { describe, expect, it } from "vitest";
import { openStore, S3Store } from "../src/index.js";
import { runObjectStoreContract } from "../src/testing.js";

const s3 = testS3();
const bucket = () => `contract-${randomBytes(4).toString("hex")}`;

runObjectStoreContract("S3 (moto_server), bucket root", async () => {
  const name = await s3.createBucket(bucket());
  return openStore(`s3://${name}`, { storageOptions: s3.storageOptions });
});

runObjectStoreContract("S3 (moto_server), under a prefix", async () => {
  const name = await s3.createBucket(bucket());
  return openStore(`s3://${name}/warehouse/events`, { storageOptions: s3.storageOptions });
});

describe("S3 store specifics", () => {
  it("is a real server: raw HTTP answers with S3 XML, and a second conditional PUT gets 412", async () => {
    const name = await s3.createBucket(bucket());
    const listing = await (await fetch(`${s3.endpoint}/`)).text();
    expect(listing).toContain("<ListAllMyBucketsResult");
    expect(listing).toContain(name);
    const store = openStore(`s3://${name}`, { storageOptions: s3.storageOptions });
    await store.put("k", new Uint8Array([1]), { mode: "create" });
    const second = await store.put("k", new Uint8Array([2]), { mode: "create" }).catch((e) => e);
    expect(second.kind).toBe("already_exists");
  });

  it("errors never contain credentials (message, JSON or stack)", async () => {
    const store = openStore("s3://no-such-bucket-deltalite", { storageOptions: s3.storageOptions });
    for (const attempt of [
      () => store.get("x"),
      () => store.put("x", new Uint8Array([1])),
      () => store.head("x"),
    ]) {
      const error = await attempt().catch((e) => e);
      expect(error.kind).toBeTypeOf("string");
      const text = `${error.message}\n${error.stack}\n${JSON.stringify(error)}\n${JSON.stringify(error.cause ?? null)}`;
      expect(text).not.toContain(TEST_SECRET_ACCESS_KEY);
      expect(text).toContain("no-such-bucket-deltalite");
    }
  });

  it("loads the AWS SDK only when an s3:// store is used", async () => {
    const store = openStore("s3://lazy-bucket", { storageOptions: s3.storageOptions });
    expect(store).toBeInstanceOf(S3Store);
    // Constructing the store did no I/O and imported nothing: the root is known without a client.
    expect(store.root).toBe("s3://lazy-bucket");
  });

  it("refuses an endpoint that ignores If-None-Match before the first create", async () => {
    // A tiny HTTP server that accepts every PUT (like s3rver does) stands in for a non-conforming endpoint.
    const { createServer } = await import("node:http");
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { ETag: '"e"', "Content-Type": "application/xml" });
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      const store = openStore("s3://lenient", {
        storageOptions: { ...s3.storageOptions, AWS_ENDPOINT_URL: `http://127.0.0.1:${port}` },
      });
      const error = await store
        .put("_delta_log/00000000000000000000.json", new Uint8Array([1]), { mode: "create" })
        .catch((e) => e);
      expect(error.kind).toBe("unsupported");
      expect(error.message).toContain("If-None-Match");
      const optedOut = openStore("s3://lenient", {
        storageOptions: {
          ...s3.storageOptions,
          AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
          DELTALITE_SKIP_CONDITIONAL_PUT_PROBE: "true",
        },
      });
      await expect(optedOut.put("k", new Uint8Array([1]), { mode: "create" })).resolves.toBeDefined();
    } finally {
      server.close();
    }
  });
});
