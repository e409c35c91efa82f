/**
 * The fault proxy against the run's real moto server: pass-through fidelity (bodies over 1 MiB, 100-continue,
 * chunked uploads, keep-alive, the Host header), each fault's effect on what moto stored (always read from moto
 * directly, never from the proxy), rule counting, seeded random runs, the loopback guard and stopping.
 * @aws-sdk/client-s3 is not resolvable from tools, so requests go through node:http, signed with SigV4 here
 * (moto treats unsigned object reads as anonymous and refuses them).
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { Agent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { Socket } from "node:net";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FaultProxy, type ProxyFault, startFaultProxy } from "../src/fault-proxy.js";
import { TEST_ACCESS_KEY_ID, TEST_SECRET_ACCESS_KEY, testS3 } from "../src/s3-server.js";

const s3 = testS3();
let bucket = "";
let proxy: FaultProxy;

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The server answered 100 Continue before the body was sent. */
  continued: boolean;
  /** The request went out on a kept-alive socket. */
  reusedSocket: boolean;
  socket: Socket | undefined;
}

interface SendOptions {
  body?: Buffer | string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  agent?: Agent;
  /** Send `Expect: 100-continue` and hold the body until the server says 100 Continue. */
  expectContinue?: boolean;
  /** Send the body in pieces with Transfer-Encoding: chunked (no Content-Length). */
  chunked?: boolean;
}

function sha256(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** AWS SigV4 headers (x-amz-date, x-amz-content-sha256, Authorization) over Host and the given headers. */
function sigV4(method: string, url: URL, host: string, headers: Record<string, string>, body: Buffer) {
  const amzDate = new Date().toISOString().replace(/[-:]|\.\d{3}/g, "");
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256(body);
  const signed: Record<string, string> = { host, "x-amz-content-sha256": payloadHash, "x-amz-date": amzDate };
  for (const [name, value] of Object.entries(headers)) signed[name.toLowerCase()] = value.trim();
  const names = Object.keys(signed).sort();
  const query = [...url.searchParams]
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
    .sort()
    .join("&");
  const canonical = [
    method,
    url.pathname,
    query,
    names.map((n) => `${n}:${signed[n]}\n`).join(""),
    names.join(";"),
    payloadHash,
  ].join("\n");
  const scope = `${day}/us-east-1/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  let key = hmac(`AWS4${TEST_SECRET_ACCESS_KEY}`, day);
  for (const part of ["us-east-1", "s3", "aws4_request"]) key = hmac(key, part);
  const signature = createHmac("sha256", key).update(toSign).digest("hex");
  return {
    "x-amz-date": amzDate,
    "x-amz-content-sha256": payloadHash,
    Authorization: `AWS4-HMAC-SHA256 Credential=${TEST_ACCESS_KEY_ID}/${scope}, SignedHeaders=${names.join(";")}, Signature=${signature}`,
  };
}

/** One signed S3 request over node:http; rejects on a socket error or an abort, like an SDK attempt would. */
function send(
  endpoint: string,
  method: string,
  pathAndQuery: string,
  options: SendOptions = {},
): Promise<Reply> {
  const url = new URL(pathAndQuery, endpoint);
  const body = Buffer.from(options.body ?? "");
  const host = options.headers?.Host ?? url.host;
  const extra = Object.fromEntries(Object.entries(options.headers ?? {}).filter(([n]) => n !== "Host"));
  const headers: Record<string, string> = { Host: host, ...extra, ...sigV4(method, url, host, extra, body) };
  if (body.length > 0 && !options.chunked) headers["Content-Length"] = String(body.length);
  if (options.expectContinue) headers.Expect = "100-continue";
  return new Promise((resolve, reject) => {
    let continued = false;
    const req = httpRequest(url, {
      method,
      headers,
      agent: options.agent ?? false,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    req.once("error", reject);
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.once("error", reject);
      res.once("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          continued,
          reusedSocket: req.reusedSocket,
          socket: req.socket ?? undefined,
        }),
      );
    });
    const writeBody = () => {
      if (options.chunked) {
        const piece = Math.ceil(body.length / 4) || 1;
        for (let at = 0; at < body.length; at += piece) req.write(body.subarray(at, at + piece));
        req.end();
      } else req.end(body);
    };
    if (options.expectContinue) {
      req.once("continue", () => {
        continued = true;
        writeBody();
      });
      req.flushHeaders();
    } else writeBody();
  });
}

function viaProxy(method: string, key: string, options?: SendOptions): Promise<Reply> {
  return send(proxy.endpoint, method, `/${bucket}/${key}`, options);
}

/** The object as moto has it, read directly (not through the proxy); undefined when moto has no such key. */
async function motoObject(key: string): Promise<Buffer | undefined> {
  const encoded = key.split("/").map(encodeURIComponent).join("/");
  const reply = await send(s3.endpoint, "GET", `/${bucket}/${encoded}`);
  if (reply.status === 404) return undefined;
  if (reply.status !== 200) throw new Error(`moto GET ${key}: HTTP ${reply.status} ${reply.body}`);
  return reply.body;
}

async function motoText(key: string): Promise<string | undefined> {
  return (await motoObject(key))?.toString();
}

/**
 * Keeps moto busy: moto_atomic_server runs one request at a time and reads a request's body inside its lock,
 * so a direct PUT whose body is only partly sent makes every later request wait until `release()` (or 3 s,
 * so a failing test never leaves the run's shared moto blocked). Resolves once a direct HEAD sent after the
 * hold has stayed unanswered for 200 ms; `stillHolding()` says whether that HEAD is still waiting.
 */
async function holdMoto(key: string): Promise<{ stillHolding(): boolean; release(): Promise<void> }> {
  const req = httpRequest(new URL(`/${bucket}/${key}`, s3.endpoint), {
    method: "PUT",
    headers: { "Content-Length": "4" },
    agent: false,
  });
  let holdAnswered = false;
  const answered = new Promise<number>((resolve, reject) => {
    req.once("error", reject);
    req.once("response", (res) => {
      holdAnswered = true;
      res.resume();
      resolve(res.statusCode ?? 0);
    });
  });
  answered.catch(() => {});
  req.write("h");
  const cap = setTimeout(() => req.end("old"), 3000);
  const release = async () => {
    clearTimeout(cap);
    if (!req.writableEnded) req.end("old");
    expect(await answered).toBe(200);
  };
  for (let attempt = 0; attempt < 10; attempt++) {
    let probeAnswered = false;
    send(s3.endpoint, "HEAD", `/${bucket}`).then(
      () => {
        probeAnswered = true;
      },
      () => {
        probeAnswered = true;
      },
    );
    await sleep(200);
    if (!probeAnswered && !holdAnswered) {
      return { stillHolding: () => !probeAnswered && !holdAnswered, release };
    }
  }
  await release();
  throw new Error("could not hold moto busy: a HEAD sent after the held PUT kept being answered");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function pollUntil<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined || Date.now() > deadline) return value;
    await sleep(50);
  }
}

function putPath(key: string): string {
  return `/${bucket}/${key}`;
}

beforeAll(async () => {
  bucket = await s3.createBucket(`fault-proxy-${process.pid}-${Date.now().toString(36)}`);
});

beforeEach(async () => {
  proxy = await startFaultProxy({ target: s3.endpoint });
});

afterEach(async () => {
  await proxy.stop();
});

describe("pass-through", () => {
  it("relays PUT, GET, HEAD and LIST, a >1 MiB body with 100-continue and a chunked upload", async () => {
    const big = randomBytes(1536 * 1024 + 7);
    const put = await viaProxy("PUT", "pass/big.bin", { body: big, expectContinue: true });
    expect(put.status).toBe(200);
    expect(put.continued).toBe(true);
    expect((await motoObject("pass/big.bin"))?.equals(big)).toBe(true);

    const got = await viaProxy("GET", "pass/big.bin");
    expect(got.status).toBe(200);
    expect(got.body.equals(big)).toBe(true);
    expect(got.headers.etag).toBe(put.headers.etag);

    const head = await viaProxy("HEAD", "pass/big.bin");
    expect(head.status).toBe(200);
    expect(head.headers["content-length"]).toBe(String(big.length));
    expect(head.body.length).toBe(0);

    const chunkedBody = randomBytes(1100 * 1024);
    const chunked = await viaProxy("PUT", "pass/chunked.bin", { body: chunkedBody, chunked: true });
    expect(chunked.status).toBe(200);
    expect((await motoObject("pass/chunked.bin"))?.equals(chunkedBody)).toBe(true);

    const missing = await viaProxy("GET", "pass/missing.txt");
    expect(missing.status).toBe(404);
    expect(missing.body.toString()).toContain("<Code>NoSuchKey</Code>");

    const list = await send(proxy.endpoint, "GET", `/${bucket}?list-type=2&prefix=pass%2F`);
    expect(list.status).toBe(200);
    const keys = [...list.body.toString().matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1]);
    expect(keys).toEqual(["pass/big.bin", "pass/chunked.bin"]);

    const events = proxy.events();
    expect(events.map((e) => `${e.method} ${e.path} ${e.query} ${e.upstreamStatus}`)).toEqual([
      `PUT /${bucket}/pass/big.bin  200`,
      `GET /${bucket}/pass/big.bin  200`,
      `HEAD /${bucket}/pass/big.bin  200`,
      `PUT /${bucket}/pass/chunked.bin  200`,
      `GET /${bucket}/pass/missing.txt  404`,
      `GET /${bucket} list-type=2&prefix=pass%2F 200`,
    ]);
    expect(events.every((e) => e.fault === "none" && e.forwarded && e.replied && e.endedAt)).toBe(true);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("serves many requests over one kept-alive client socket", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const sockets = new Set<Socket | undefined>();
      const reused: boolean[] = [];
      for (let i = 0; i < 25; i++) {
        const put = await viaProxy("PUT", `alive/${i}.txt`, { body: `value ${i}`, agent });
        const get = await viaProxy("GET", `alive/${i}.txt`, { agent });
        expect([put.status, get.status, get.body.toString()]).toEqual([200, 200, `value ${i}`]);
        sockets.add(put.socket).add(get.socket);
        reused.push(put.reusedSocket, get.reusedSocket);
      }
      expect(sockets.size).toBe(1);
      expect(reused.slice(1).every(Boolean)).toBe(true);
      expect(await motoText("alive/24.txt")).toBe("value 24");
      expect(proxy.events()).toHaveLength(50);
    } finally {
      agent.destroy();
    }
  });

  it("keeps the Host header as the client sent it (virtual-host addressing reaches moto's bucket)", async () => {
    // moto reads the bucket from a Host like <bucket>.s3.example: the object lands in our bucket only if the
    // proxy forwards Host untouched; with Host rewritten to moto's 127.0.0.1:port it would be bucket "vhost.txt".
    const host = `${bucket}.s3.fault-proxy.test`;
    const put = await send(proxy.endpoint, "PUT", "/vhost.txt", { body: "virtual", headers: { Host: host } });
    expect(put.status).toBe(200);
    expect(await motoText("vhost.txt")).toBe("virtual");
  });

  it("accepts a localhost target", async () => {
    const port = new URL(s3.endpoint).port;
    const local = await startFaultProxy({ target: `http://localhost:${port}` });
    try {
      const put = await send(local.endpoint, "PUT", putPath("localhost.txt"), { body: "via localhost" });
      expect(put.status).toBe(200);
      expect(await motoText("localhost.txt")).toBe("via localhost");
    } finally {
      await local.stop();
    }
  });
});

describe("faults", () => {
  it("drop-after: moto stored the object, the client only saw its socket die once moto had answered", async () => {
    proxy.setRules([{ method: "PUT", path: putPath("drop/after.txt"), fault: { type: "drop-after" } }]);
    const hold = await holdMoto("drop/holder.txt");
    let settled = false;
    let put: Promise<unknown> = Promise.resolve();
    try {
      put = viaProxy("PUT", "drop/after.txt", { body: "applied" }).finally(() => {
        settled = true;
      });
      put.catch(() => {});
      await sleep(400);
      expect(hold.stillHolding(), "moto should be held busy (moto_atomic_server's lock)").toBe(true);
      expect(settled, "the client was cut off before moto answered").toBe(false);
    } finally {
      await hold.release();
    }
    await expect(put).rejects.toMatchObject({ code: "ECONNRESET" });
    expect(await motoText("drop/after.txt")).toBe("applied");
    expect(proxy.events()).toMatchObject([
      { fault: "drop-after", forwarded: true, replied: false, upstreamStatus: 200 },
    ]);
  });

  it("drop-before: nothing reaches moto; rules match the decoded path", async () => {
    proxy.setRules([{ path: putPath("drop/a b+c.txt"), fault: { type: "drop-before" } }]);
    await expect(viaProxy("PUT", "drop/a%20b%2Bc.txt", { body: "lost" })).rejects.toMatchObject({
      code: "ECONNRESET",
    });
    const big = randomBytes(1200 * 1024);
    await expect(
      viaProxy("PUT", "drop/a%20b%2Bc.txt", { body: big, expectContinue: true }),
    ).rejects.toMatchObject({ code: "ECONNRESET" });
    expect((await viaProxy("PUT", "drop/other.txt", { body: "kept" })).status).toBe(200);
    await proxy.idle(5000);
    expect(await motoObject("drop/a b+c.txt")).toBeUndefined();
    expect(await motoText("drop/other.txt")).toBe("kept");
    expect(proxy.events()).toMatchObject([
      { path: `/${bucket}/drop/a b+c.txt`, fault: "drop-before", forwarded: false, replied: false },
      { path: `/${bucket}/drop/a b+c.txt`, fault: "drop-before", forwarded: false, replied: false },
      { path: `/${bucket}/drop/other.txt`, fault: "none", forwarded: true, replied: true },
    ]);
  });

  it("status-before 503: an S3 error body, nothing stored, the kept-alive socket still usable", async () => {
    proxy.setRules([{ path: putPath("status/before.txt"), fault: { type: "status-before", status: 503 } }]);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = randomBytes(1100 * 1024);
      const failed = await viaProxy("PUT", "status/before.txt", { body: big, agent, expectContinue: true });
      expect(failed.status).toBe(503);
      expect(failed.headers["content-type"]).toBe("application/xml");
      expect(failed.body.toString()).toMatch(/<Error><Code>ServiceUnavailable<\/Code><Message>.+<\/Message>/);
      const next = await viaProxy("PUT", "status/after-503.txt", { body: "next", agent });
      expect(next.status).toBe(200);
      expect(next.reusedSocket).toBe(true);
    } finally {
      agent.destroy();
    }
    expect(await motoObject("status/before.txt")).toBeUndefined();
    expect(await motoText("status/after-503.txt")).toBe("next");
    expect(proxy.events()[0]).toMatchObject({ fault: "status-before", forwarded: false, replied: true });
    expect(proxy.events()[0]?.upstreamStatus).toBeUndefined();
  });

  it("status-after 500: moto stored the object, the client got InternalError", async () => {
    proxy.setRules([{ path: putPath("status/after.txt"), fault: { type: "status-after", status: 500 } }]);
    const reply = await viaProxy("PUT", "status/after.txt", { body: "stored anyway" });
    expect(reply.status).toBe(500);
    expect(reply.body.toString()).toContain("<Code>InternalError</Code>");
    expect(reply.headers.etag).toBeUndefined();
    expect(await motoText("status/after.txt")).toBe("stored anyway");
    expect(proxy.events()).toMatchObject([
      { fault: "status-after", forwarded: true, replied: true, upstreamStatus: 200 },
    ]);
  });

  it("stall: the client gives up, the request lands on moto later", async () => {
    proxy.setRules([{ method: "PUT", path: putPath("stall.txt"), fault: { type: "stall", ms: 1500 } }]);
    const started = Date.now();
    await expect(
      viaProxy("PUT", "stall.txt", { body: "late", signal: AbortSignal.timeout(300) }),
    ).rejects.toMatchObject({ name: "AbortError" });
    expect(await motoObject("stall.txt")).toBeUndefined();
    const landed = await pollUntil(() => motoText("stall.txt"), 10_000);
    expect(landed).toBe("late");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    await proxy.idle(5000);
    expect(proxy.events()).toMatchObject([
      { fault: "stall", forwarded: true, replied: false, upstreamStatus: 200 },
    ]);
  });

  it("stall: a patient client gets the late reply; idle() waits for it or for its timeout", async () => {
    proxy.setRules([
      { method: "PUT", path: putPath("stall-patient.txt"), fault: { type: "stall", ms: 800 } },
    ]);
    const started = Date.now();
    const pending = viaProxy("PUT", "stall-patient.txt", { body: "patient" });
    await pollUntil(async () => proxy.events()[0], 2000);
    await proxy.idle(100);
    expect(Date.now() - started).toBeLessThan(700); // idle() gave up after its timeout
    expect(await motoObject("stall-patient.txt")).toBeUndefined();
    await proxy.idle(5000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(750);
    expect(await motoText("stall-patient.txt")).toBe("patient"); // idle() resolved only after moto answered
    expect((await pending).status).toBe(200);
    expect(proxy.events()).toMatchObject([{ fault: "stall", forwarded: true, replied: true }]);
  });

  it("delay: the request is late but goes through", async () => {
    proxy.setRules([{ method: "PUT", fault: { type: "delay", ms: 300 } }]);
    const started = Date.now();
    const reply = await viaProxy("PUT", "delay.txt", { body: "slow" });
    expect(reply.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(await motoText("delay.txt")).toBe("slow");
    expect(proxy.events()).toMatchObject([{ fault: "delay", forwarded: true, replied: true }]);
  });
});

describe("rules", () => {
  it("count matching requests: `call` fires once on the nth, `times` bounds the firings, setRules resets", async () => {
    proxy.setRules([
      { method: "PUT", path: /\/count\/put-/, call: 2, fault: { type: "status-before", status: 503 } },
      { method: "GET", path: /\/count\//, times: 2, fault: { type: "status-before", status: 500 } },
      { method: "GET", query: /(^|&)list-type=2/, fault: { type: "status-before", status: 503 } },
    ]);
    const puts: number[] = [];
    for (let i = 1; i <= 4; i++)
      puts.push((await viaProxy("PUT", `count/put-${i}.txt`, { body: `${i}` })).status);
    expect(puts).toEqual([200, 503, 200, 200]);
    const gets: number[] = [];
    for (let i = 1; i <= 4; i++) gets.push((await viaProxy("GET", "count/put-1.txt")).status);
    expect(gets).toEqual([500, 500, 200, 200]);
    expect((await send(proxy.endpoint, "GET", `/${bucket}?list-type=2`)).status).toBe(503);
    expect((await send(proxy.endpoint, "GET", `/${bucket}?list-type=2`)).status).toBe(503);
    expect((await send(proxy.endpoint, "GET", `/${bucket}?uploads`)).status).toBe(200);
    expect(await motoText("count/put-1.txt")).toBe("1");
    expect(await motoObject("count/put-2.txt")).toBeUndefined();
    expect(await motoText("count/put-3.txt")).toBe("3");

    proxy.setRules([
      { method: "PUT", path: /\/count\/put-/, call: 2, times: 2, fault: { type: "drop-before" } },
    ]);
    const after: (number | string)[] = [];
    for (let i = 5; i <= 8; i++) {
      after.push(
        await viaProxy("PUT", `count/put-${i}.txt`, { body: `${i}` }).then(
          (reply) => reply.status,
          (error: NodeJS.ErrnoException) => error.code ?? "error",
        ),
      );
    }
    expect(after).toEqual([200, "ECONNRESET", "ECONNRESET", 200]);
    await proxy.idle(5000);
    const stored = await Promise.all([5, 6, 7, 8].map((i) => motoText(`count/put-${i}.txt`)));
    expect(stored).toEqual(["5", undefined, undefined, "8"]);
  });

  it("take precedence over random faults", async () => {
    proxy.setRules([{ path: putPath("precedence/0.txt"), fault: { type: "status-before", status: 500 } }]);
    proxy.setRandom({ rate: 1, seed: 7, faults: [{ type: "status-before", status: 503 }] });
    expect((await viaProxy("PUT", "precedence/0.txt", { body: "0" })).status).toBe(500);
    expect((await viaProxy("PUT", "precedence/1.txt", { body: "1" })).status).toBe(503);
    proxy.setRandom(undefined);
    expect((await viaProxy("PUT", "precedence/2.txt", { body: "2" })).status).toBe(200);
    expect(await Promise.all([0, 1, 2].map((i) => motoText(`precedence/${i}.txt`)))).toEqual([
      undefined,
      undefined,
      "2",
    ]);
  });
});

describe("random faults", () => {
  const faults: ProxyFault[] = [
    { type: "status-before", status: 500 },
    { type: "status-after", status: 503 },
    { type: "delay", ms: 5 },
  ];

  async function seededRun(seed: number, prefix: string, getsBetweenPuts: number) {
    proxy.clearEvents();
    proxy.setRandom({ rate: 0.5, seed, faults, match: { method: "PUT" } });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      statuses.push((await viaProxy("PUT", `${prefix}/${i}.txt`, { body: `${i}` })).status);
      for (let g = 0; g < (i % 3) * getsBetweenPuts; g++) {
        expect((await send(proxy.endpoint, "GET", `/${bucket}?list-type=2&max-keys=1`)).status).toBe(200);
      }
    }
    const events = proxy.events();
    expect(events.filter((e) => e.method === "GET").every((e) => e.fault === "none")).toBe(true);
    const puts = events.filter((e) => e.method === "PUT");
    const stored = await Promise.all(puts.map((_, i) => motoText(`${prefix}/${i}.txt`)));
    puts.forEach((event, i) => {
      // what moto holds follows the fault: only status-before keeps the object away from moto
      expect(stored[i]).toBe(event.fault === "status-before" ? undefined : `${i}`);
    });
    return { faults: puts.map((e) => e.fault), statuses };
  }

  it("a seed gives the same fault sequence every run, whatever the unmatched traffic", async () => {
    const first = await seededRun(20240601, "random-a", 1);
    const second = await seededRun(20240601, "random-b", 2);
    expect(second).toEqual(first);
    expect(new Set(first.faults)).toEqual(new Set(["none", "status-before", "status-after", "delay"]));
    const expectedStatus = { none: 200, delay: 200, "status-before": 500, "status-after": 503 } as const;
    expect(first.statuses).toEqual(first.faults.map((f) => expectedStatus[f as keyof typeof expectedStatus]));
    const otherSeed = await seededRun(99, "random-c", 0);
    expect(otherSeed.faults).not.toEqual(first.faults);
  });
});

describe("bounds", () => {
  it("refuses a target that is not on loopback", async () => {
    for (const target of [
      "http://10.0.0.1:9000",
      "http://192.168.1.20:9000",
      "http://example.com",
      "http://127.0.0.1.nip.io:9000",
      "https://127.0.0.1:9000",
      "not a url",
    ]) {
      await expect(startFaultProxy({ target })).rejects.toThrow(/fault proxy: target/);
    }
  });

  it("listens on 127.0.0.1 only", () => {
    expect(proxy.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("stop() cuts a stall short without forwarding it, refuses new connections and is idempotent", async () => {
    proxy.setRules([{ method: "PUT", fault: { type: "stall", ms: 1500 } }]);
    const pending = viaProxy("PUT", "stopped.txt", { body: "never" });
    await pollUntil(async () => proxy.events()[0], 2000);
    await sleep(100); // the body is in; the request is being held
    const stopping = Date.now();
    await proxy.stop();
    await expect(pending).rejects.toMatchObject({ code: "ECONNRESET" });
    expect(Date.now() - stopping).toBeLessThan(1000);
    await proxy.stop();
    await proxy.idle(1000);
    await expect(send(proxy.endpoint, "GET", `/${bucket}`)).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await sleep(1800); // past the stall: had it been forwarded anyway, moto would have the object by now
    expect(await motoObject("stopped.txt")).toBeUndefined();
    expect(proxy.events()).toMatchObject([{ fault: "stall", forwarded: false, replied: false }]);
  });

  it("stops by itself after maxLifetimeMs", async () => {
    const shortLived = await startFaultProxy({ target: s3.endpoint, maxLifetimeMs: 200 });
    expect(
      (await send(shortLived.endpoint, "PUT", putPath("lifetime.txt"), { body: "in time" })).status,
    ).toBe(200);
    await sleep(500);
    await expect(send(shortLived.endpoint, "GET", `/${bucket}`)).rejects.toMatchObject({
      code: "ECONNREFUSED",
    });
    await shortLived.stop();
    expect(await motoText("lifetime.txt")).toBe("in time");
  });
});
