import { randomBytes } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { isDeltaLiteError } from "@deltalite/errors";
import { TEST_SECRET_ACCESS_KEY, testS3 } from "@deltalite/tools/s3-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAll, type ObjectStore, type OpenStoreOptions, openStore, S3Store } from "../src/index.js";
import { runObjectStoreContract } from "../src/testing.js";

const s3 = testS3();

/** A TCP server that accepts every connection and never sends a byte: an S3 endpoint that stalls. */
let stalled: Server;
let stalledEndpoint: string;
const sockets = new Set<Socket>();
let closedSockets = 0;

beforeAll(async () => {
  // Load the AWS SDK once (a real HEAD against moto): the first call of a store imports it lazily, inside its
  // deadline, and on a loaded machine the import alone can outlast the 500 ms deadlines below.
  await openStore("s3://sdk-warm-up", { storageOptions: s3.storageOptions })
    .head("x")
    .catch(() => undefined);
  stalled = createServer((socket) => {
    sockets.add(socket);
    socket.on("data", () => undefined);
    socket.on("close", () => {
      sockets.delete(socket);
      closedSockets += 1;
    });
  });
  await new Promise<void>((resolve) => stalled.listen(0, "127.0.0.1", resolve));
  stalledEndpoint = `http://127.0.0.1:${(stalled.address() as { port: number }).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => stalled.close(() => resolve()));
});

function stalledStore(extra: Omit<OpenStoreOptions, "storageOptions"> = {}, options = {}): ObjectStore {
  return openStore("s3://stalled-bucket/table", {
    storageOptions: { ...s3.storageOptions, AWS_ENDPOINT_URL: stalledEndpoint, ...options },
    ...extra,
  });
}

const CALLS: [string, (store: ObjectStore, signal?: AbortSignal) => Promise<unknown>][] = [
  ["get", (s, signal) => s.get("_delta_log/_last_checkpoint", { signal })],
  ["get", (s, signal) => s.get("part-0.parquet", { range: { start: 100, end: 200 }, signal })],
  ["head", (s, signal) => s.head("_delta_log/00000000000000000000.json", { signal })],
  ["list", (s, signal) => listAll(s, "_delta_log/", { signal })],
  ["delete", (s, signal) => s.delete("part-0.parquet", { signal })],
  ["put", (s, signal) => s.put("part-1.parquet", new Uint8Array(10), { mode: "overwrite", signal })],
];

async function failure(promise: Promise<unknown>) {
  const outcome = await promise.then(
    () => "answered",
    (error: unknown) => error,
  );
  if (!isDeltaLiteError(outcome)) throw new Error(`expected a DeltaLiteError, got ${String(outcome)}`);
  return outcome;
}

describe("S3 store against an endpoint that accepts connections and never answers", () => {
  it.each(CALLS)(
    "%s fails with kind timeout within the `timeout` storage option, leaking no credential",
    async (method, call) => {
      const store = stalledStore({}, { timeout: "500ms" });
      const closedBefore = closedSockets;
      const t0 = performance.now();
      const error = await failure(call(store));
      const elapsed = performance.now() - t0;
      expect(error.kind).toBe("timeout");
      expect(error.retryable).toBe(true);
      expect(error.message).toContain(method);
      expect(error.message).toContain("s3://stalled-bucket/table/");
      expect(error.message).toContain("500 ms");
      expect(elapsed).toBeGreaterThanOrEqual(490);
      expect(elapsed).toBeLessThan(5_000);
      for (const text of [error.message, String(error), JSON.stringify(error), String(error.stack)]) {
        expect(text).not.toContain(TEST_SECRET_ACCESS_KEY);
      }
      // The abort reached the HTTP client: it closed its connection to the stalled server.
      await expect.poll(() => closedSockets, { timeout: 3_000 }).toBeGreaterThan(closedBefore);
    },
  );

  it("an explicit requestTimeout wins over the storage option and the environment", async () => {
    const store = stalledStore(
      { requestTimeout: { baseMs: 300 }, env: { DELTALITE_REQUEST_TIMEOUT_MS: "60000" } },
      { timeout: "1m" },
    );
    expect((store as S3Store).requestTimeout).toEqual({ baseMs: 300, minThroughputBytesPerSec: 1024 * 1024 });
    const t0 = performance.now();
    expect((await failure(store.head("x"))).kind).toBe("timeout");
    expect(performance.now() - t0).toBeLessThan(5_000);
  });

  it("with requestTimeout false the call waits on; the caller's signal still ends it with aborted", async () => {
    const store = stalledStore({ requestTimeout: false });
    expect((store as S3Store).requestTimeout).toBeUndefined();
    const controller = new AbortController();
    const pending = store.get("k", { signal: controller.signal });
    const early = await Promise.race([
      pending.then(
        () => "answered",
        () => "failed",
      ),
      new Promise((r) => setTimeout(() => r("still waiting"), 1_000)),
    ]);
    expect(early).toBe("still waiting");
    controller.abort();
    expect((await failure(pending)).kind).toBe("aborted");
  });

  it("the caller's signal gives aborted, not timeout, while a deadline is running", async () => {
    const store = stalledStore({ requestTimeout: { baseMs: 30_000 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const t0 = performance.now();
    expect((await failure(store.head("k", { signal: controller.signal }))).kind).toBe("aborted");
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});

describe("openStore gives s3:// stores request deadlines by default", () => {
  it.each([
    ["the SPEC defaults", {}, {}, { baseMs: 30_000, minThroughputBytesPerSec: 1024 * 1024 }],
    [
      "the environment",
      { DELTALITE_REQUEST_TIMEOUT_MS: "5000", DELTALITE_MIN_THROUGHPUT_BYTES_PER_SEC: "2048" },
      {},
      { baseMs: 5000, minThroughputBytesPerSec: 2048 },
    ],
    [
      "delta-rs's timeout option over the environment",
      { DELTALITE_REQUEST_TIMEOUT_MS: "5000" },
      { TimeOut: "2m" },
      { baseMs: 120_000, minThroughputBytesPerSec: 1024 * 1024 },
    ],
  ])("from %s", (_, env, options, expected) => {
    const store = openStore("s3://defaults-bucket", {
      storageOptions: { AWS_REGION: "eu-west-1", ...options },
      env,
    });
    expect(store).toBeInstanceOf(S3Store);
    expect((store as S3Store).requestTimeout).toEqual(expected);
  });

  it("refuses a malformed timeout option, naming the option", () => {
    expect(() => openStore("s3://defaults-bucket", { storageOptions: { timeout: "soon" }, env: {} })).toThrow(
      /storage option TIMEOUT/,
    );
  });
});

runObjectStoreContract("S3 (moto_server) with 10 s request deadlines", async () => {
  const name = await s3.createBucket(`timeouts-${randomBytes(4).toString("hex")}`);
  const store = openStore(`s3://${name}/t`, {
    storageOptions: s3.storageOptions,
    requestTimeout: { baseMs: 10_000, minThroughputBytesPerSec: 1024 * 1024 },
  });
  expect((store as S3Store).requestTimeout?.baseMs).toBe(10_000);
  return store;
});
