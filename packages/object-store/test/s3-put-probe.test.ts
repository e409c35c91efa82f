// `S3Store.proveConditionalPut`: the one-time conditional-put probe started before the first create-only put
// (a write calls it as it begins). On the wire (the fault proxy in front of moto): the probe's PUTs are sent
// once, and a create-only put made while it runs waits for it (its own PUT comes after the probe's refusal);
// an endpoint that ignores If-None-Match fails the early probe and every create-only put after it, and
// nothing else reaches it; the opt-out and an aborted signal behave as for a put.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import { type FaultProxy, startFaultProxy } from "@deltalite/tools/fault-proxy";
import { testS3 } from "@deltalite/tools/s3-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, S3Store } from "../src/index.js";

const PROBE_KEY = ".deltalite-conditional-put-probe";
const s3 = testS3();

let proxy: FaultProxy;
beforeAll(async () => {
  proxy = await startFaultProxy({ target: s3.endpoint });
});
afterAll(async () => {
  await proxy.stop();
});

/** A store on a new bucket through the proxy (the probe is remembered per endpoint and bucket). */
async function freshStore(): Promise<{ store: S3Store; bucket: string }> {
  const bucket = await s3.createBucket(`early-probe-${randomBytes(4).toString("hex")}`);
  const store = openStore(`s3://${bucket}/t`, {
    storageOptions: { ...s3.storageOptions, AWS_ENDPOINT_URL: proxy.endpoint },
  });
  expect(store).toBeInstanceOf(S3Store);
  return { store: store as S3Store, bucket };
}

/** The bucket's requests as `METHOD key → status`, in the order the proxy answered them. */
async function answered(bucket: string): Promise<string[]> {
  await proxy.idle();
  return proxy
    .events()
    .filter((e) => e.path.startsWith(`/${bucket}/`))
    .sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0))
    .map((e) => `${e.method} ${e.path.slice(bucket.length + 2)} → ${e.upstreamStatus}`);
}

describe("S3Store.proveConditionalPut", () => {
  it("probes once; a create-only put made meanwhile waits for the proof, later ones do not probe again", async () => {
    const { store, bucket } = await freshStore();
    proxy.clearEvents();
    const early = store.proveConditionalPut();
    const put = store.put("_delta_log/00000000000000000000.json", new Uint8Array([1]), { mode: "create" });
    await Promise.all([early, put]);
    await store.proveConditionalPut(); // proven: no request
    await store.put("a.parquet", new Uint8Array([2]), { mode: "create" });
    expect(await answered(bucket)).toEqual([
      `PUT t/${PROBE_KEY} → 200`,
      `PUT t/${PROBE_KEY} → 412`,
      "PUT t/_delta_log/00000000000000000000.json → 200",
      "PUT t/a.parquet → 200",
    ]);
    // The create was sent only once the probe's refusal had come back.
    const sent = proxy.events().filter((e) => e.path.startsWith(`/${bucket}/`));
    const refusal = sent.find((e) => e.path.endsWith(PROBE_KEY) && e.upstreamStatus === 412);
    const commit = sent.find((e) => e.path.endsWith("00000000000000000000.json"));
    expect(commit!.startedAt).toBeGreaterThanOrEqual(refusal!.endedAt!);
  });

  it("an aborted signal rejects at once with aborted, and sends nothing", async () => {
    const { store, bucket } = await freshStore();
    proxy.clearEvents();
    const error = await store.proveConditionalPut({ signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "aborted" });
    expect(await answered(bucket)).toEqual([]);
  });

  it("an endpoint that ignores If-None-Match: the early probe and every create after it are refused", async () => {
    const seen: string[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      seen.push(`${req.method} ${req.url?.split("?")[0]}`);
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { ETag: '"e"', "Content-Type": "application/xml" });
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const options = { ...s3.storageOptions, AWS_ENDPOINT_URL: endpoint };
      const store = openStore("s3://lenient-early/t", { storageOptions: options }) as S3Store;
      const early = await store.proveConditionalPut().catch((e: unknown) => e);
      expect(early).toMatchObject({ kind: "unsupported" });
      const commit = await store
        .put("_delta_log/00000000000000000000.json", new Uint8Array([1]), { mode: "create" })
        .catch((e: unknown) => e);
      expect(commit).toMatchObject({ kind: "unsupported" });
      // A failed proof is not kept: the put probed again (two more PUTs of the probe object), and no PUT of
      // the commit reached the endpoint.
      expect(seen).toEqual(Array(4).fill(`PUT /lenient-early/t/${PROBE_KEY}`));
      const optedOut = openStore("s3://lenient-early/t", {
        storageOptions: { ...options, DELTALITE_SKIP_CONDITIONAL_PUT_PROBE: "true" },
      }) as S3Store;
      await expect(optedOut.proveConditionalPut()).resolves.toBeUndefined();
      expect(seen).toHaveLength(4);
    } finally {
      server.close();
    }
  });
});
