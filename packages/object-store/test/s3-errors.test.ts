/**
 * S3 failures in our words, against the real moto server and real sockets: a missing bucket is `not_found`
 * naming the bucket, missing credentials name what to set, unreachable endpoints (refused, DNS, no answer)
 * name the endpoint, and no message is a bare SDK class name. The SDK error stays as `cause`, and no secret
 * appears in a message, in `toJSON`, or anywhere in the cause chain.
 */
import { randomBytes } from "node:crypto";
import { createServer, type Server, type Socket } from "node:net";
import { inspect } from "node:util";
import { TEST_SECRET_ACCESS_KEY, testS3 } from "@deltalite/tools/s3-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ObjectStore, openStore } from "../src/index.js";

const s3 = testS3();
const SDK_CLASS_NAMES = /^(NoSuchBucket|NotFound|NoSuchKey|CredentialsProviderError|UnknownError|Error)$/;

/** Every text a user or a log could see of an error: message, JSON, stack and the whole cause chain. */
function everythingPrinted(error: unknown): string {
  const parts: string[] = [];
  for (let e = error as { cause?: unknown } | undefined, depth = 0; e && depth < 6; depth++) {
    parts.push(inspect(e, { depth: 8, showHidden: true }));
    try {
      parts.push(JSON.stringify(e));
    } catch {
      // circular SDK objects: inspect above covers them
    }
    e = e.cause as typeof e;
  }
  return parts.join("\n");
}

async function failureOf(
  call: () => Promise<unknown>,
): Promise<Error & { kind: string; retryable: boolean }> {
  const outcome = await call().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome, "the call should have failed").toBeDefined();
  return outcome as Error & { kind: string; retryable: boolean };
}

function expectOurWords(error: Error & { kind: string }, secret = TEST_SECRET_ACCESS_KEY): void {
  expect(error.message).not.toMatch(SDK_CLASS_NAMES);
  expect(error.message).not.toContain("UnknownError");
  expect(JSON.stringify(error)).toBe(
    JSON.stringify({
      kind: error.kind,
      message: error.message,
      retryable: (error as never as { retryable: boolean }).retryable,
    }),
  );
  expect(everythingPrinted(error)).not.toContain(secret);
}

const allCalls = (store: ObjectStore) =>
  [
    ["GET", () => store.get("_delta_log/00000000000000000000.json")],
    ["HEAD", () => store.head("_delta_log/00000000000000000000.json")],
    ["PUT", () => store.put("k", new Uint8Array([1]))],
    ["PUT create", () => store.put("k", new Uint8Array([1]), { mode: "create" })],
    [
      "LIST",
      async () => {
        for await (const _ of store.list("_delta_log/")) void _;
      },
    ],
    ["DELETE", () => store.delete("k")],
  ] as const;

describe("a missing bucket", () => {
  it.each(["GET", "HEAD", "PUT", "PUT create", "LIST", "DELETE"])(
    "%s is not_found naming the bucket, with the SDK error as cause",
    async (label) => {
      const bucket = `missing-${randomBytes(4).toString("hex")}`;
      const store = openStore(`s3://${bucket}/tables/t`, { storageOptions: s3.storageOptions });
      const call = allCalls(store).find(([name]) => name === label)![1];
      const error = await failureOf(call);
      expect(error.kind).toBe("not_found");
      expect(error.message).toContain(`S3 bucket "${bucket}" does not exist at ${s3.endpoint}`);
      expect((error.cause as { name?: string }).name).toMatch(/NoSuchBucket|NotFound/);
      expectOurWords(error);
    },
  );

  it("a missing key in an existing bucket stays a plain not_found of the object", async () => {
    const bucket = await s3.createBucket(`present-${randomBytes(4).toString("hex")}`);
    const store = openStore(`s3://${bucket}`, { storageOptions: s3.storageOptions });
    for (const call of [() => store.get("nope"), () => store.head("nope")]) {
      const error = await failureOf(call);
      expect(error.kind).toBe("not_found");
      expect(error.message).toBe(`object not found: s3://${bucket}/nope`);
    }
    await expect(store.delete("nope")).resolves.toBeUndefined();
  });
});

describe("missing credentials", () => {
  const saved: Record<string, string | undefined> = {};
  const isolate = {
    AWS_CONFIG_FILE: "/nonexistent/deltalite-config",
    AWS_SHARED_CREDENTIALS_FILE: "/nonexistent/deltalite-credentials",
    AWS_EC2_METADATA_DISABLED: "true",
  };
  beforeAll(() => {
    for (const key of Object.keys(process.env)) {
      if (key.startsWith("AWS_")) {
        saved[key] = process.env[key];
        delete process.env[key];
      }
    }
    Object.assign(process.env, isolate);
  });
  afterAll(() => {
    for (const key of Object.keys(isolate)) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it("name the variables and storage options to set (permission_denied)", async () => {
    const bucket = await s3.createBucket(`nocreds-${randomBytes(4).toString("hex")}`);
    const { AWS_ACCESS_KEY_ID: _id, AWS_SECRET_ACCESS_KEY: _secret, ...withoutKeys } = s3.storageOptions;
    const store = openStore(`s3://${bucket}`, { storageOptions: withoutKeys });
    for (const [, call] of allCalls(store)) {
      const error = await failureOf(call);
      expect(error.kind).toBe("permission_denied");
      expect(error.message).toContain(`no AWS credentials found for s3://${bucket}`);
      for (const hint of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "aws_access_key_id", "AWS_PROFILE"]) {
        expect(error.message).toContain(hint);
      }
      expect((error.cause as { name?: string }).name).toBe("CredentialsProviderError");
      expectOurWords(error);
    }
  });
});

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("an unreachable endpoint is named (never with credentials)", () => {
  const optionsFor = (endpoint: string) => ({ ...s3.storageOptions, AWS_ENDPOINT_URL: endpoint });

  it("connection refused", async () => {
    const port = await closedPort();
    const store = openStore("s3://some-bucket/t", { storageOptions: optionsFor(`http://127.0.0.1:${port}`) });
    for (const [, call] of allCalls(store)) {
      const error = await failureOf(call);
      expect(error.kind).toBe("generic");
      expect(error.retryable).toBe(true);
      expect(error.message).toContain(`could not reach the S3 endpoint http://127.0.0.1:${port}`);
      expect(error.message).toContain("connection refused");
      expect((error.cause as { code?: string }).code).toBe("ECONNREFUSED");
      expectOurWords(error);
    }
  });

  it("an endpoint URL with user info is shown without it", async () => {
    const port = await closedPort();
    const userInfoSecret = "userinfo-secret-do-not-print";
    const store = openStore("s3://some-bucket", {
      storageOptions: optionsFor(`http://someone:${userInfoSecret}@127.0.0.1:${port}`),
    });
    const error = await failureOf(() => store.get("k"));
    expect(error.message).toContain(`http://127.0.0.1:${port}`);
    expectOurWords(error, userInfoSecret);
    expect(everythingPrinted(error)).not.toContain(TEST_SECRET_ACCESS_KEY);
  });

  it("a host name that does not resolve", async () => {
    const store = openStore("s3://some-bucket", {
      storageOptions: optionsFor("http://deltalite-no-such-host.invalid:9000"),
    });
    const error = await failureOf(() => store.get("k"));
    expect(error.kind).toBe("generic");
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("http://deltalite-no-such-host.invalid:9000");
    expect(error.message).toContain("host name not found");
    expectOurWords(error);
  });

  describe("a server that accepts connections and never answers", () => {
    let silent: Server;
    let port: number;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      // Sockets stay open and no byte is ever sent back.
      silent = createServer((socket) => {
        sockets.add(socket);
        socket.on("error", () => undefined);
      });
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      port = (silent.address() as { port: number }).port;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });

    it("times out naming the endpoint", async () => {
      const store = openStore("s3://some-bucket", {
        storageOptions: optionsFor(`http://127.0.0.1:${port}`),
        requestTimeout: { baseMs: 300 },
      });
      for (const call of [
        () => store.get("k"),
        () => store.head("k"),
        async () => {
          for await (const _ of store.list("")) void _;
        },
      ]) {
        const error = await failureOf(call);
        expect(error.kind).toBe("timeout");
        expect(error.message).toContain(`the S3 endpoint http://127.0.0.1:${port}`);
        expectOurWords(error);
      }
    });
  });
});

describe("bad arguments", () => {
  it("a multipart part size under 5 MiB is invalid_argument", async () => {
    const bucket = await s3.createBucket(`parts-${randomBytes(4).toString("hex")}`);
    const store = openStore(`s3://${bucket}`, { storageOptions: s3.storageOptions });
    const error = await failureOf(() =>
      store.putMultipart("k", [new Uint8Array(1)], { partSizeBytes: 1024 }),
    );
    expect(error.kind).toBe("invalid_argument");
    expect(error.message).toContain("at least 5 MiB");
  });
});
