// The one-time conditional-put probe of an S3 endpoint, counted on the wire (the fault proxy in front of
// moto records every HTTP request, including the store's own): the first commit of a process to a table root
// whose probe object does not exist yet costs two create-only PUTs of it (200, then 412) and no DELETE; once
// the hidden object exists, one PUT answered 412 is the proof. delta-rs reads the table as if the object were
// not there, and an endpoint that ignores If-None-Match is still refused before anything reaches the log.
import { createServer, type IncomingMessage } from "node:http";
import { openStore } from "@deltalite/object-store";
import { type FaultProxy, type ProxyEvent, startFaultProxy } from "@deltalite/tools/fault-proxy";
import { connectOracle, type Oracle } from "@deltalite/tools/oracle";
import { testS3 } from "@deltalite/tools/s3-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitKey } from "../src/index.js";
import { DeltaLiteTable, rows } from "./helpers/handle-rig.js";

const PROBE_KEY = ".deltalite-conditional-put-probe";

let proxy: FaultProxy;
let oracle: Oracle;
beforeAll(async () => {
  proxy = await startFaultProxy({ target: testS3().endpoint });
  oracle = await connectOracle();
});
afterAll(async () => {
  await proxy.stop();
});

/** A new bucket (the probe is remembered per endpoint and bucket for the process, so each test gets one). */
let n = 0;
async function freshBucket(): Promise<string> {
  return testS3().createBucket(`put-probe-${Date.now().toString(36)}-${n++}`);
}

const throughProxy = () => ({ ...testS3().storageOptions, AWS_ENDPOINT_URL: proxy.endpoint });

/** The proxy's record as `METHOD key → status` lines, the bucket and query left out. */
async function requestsTo(bucket: string): Promise<string[]> {
  await proxy.idle();
  const inBucket = (e: ProxyEvent) => e.path.startsWith(`/${bucket}/`);
  return proxy
    .events()
    .filter(inBucket)
    .map((e) => `${e.method} ${e.path.slice(bucket.length + 2)} → ${e.upstreamStatus}`);
}

describe("the conditional-put probe on the wire", () => {
  it("a table root without the probe object: two create-only PUTs of it (200, 412), no DELETE; the object stays", async () => {
    const bucket = await freshBucket();
    const uri = `s3://${bucket}/t`;
    proxy.clearEvents();
    await DeltaLiteTable.write(uri, rows([1, 2, 3], 0), {
      storageOptions: throughProxy(),
      partitionBy: ["day"],
    });
    const sent = await requestsTo(bucket);
    const probes = sent.filter((line) => line.includes(PROBE_KEY));
    expect(probes).toEqual([`PUT t/${PROBE_KEY} → 200`, `PUT t/${PROBE_KEY} → 412`]);
    expect(sent.filter((line) => line.startsWith("DELETE"))).toEqual([]);
    // The probe came before the first create-only put of the table (its data files, then the commit).
    const firstProbe = sent.indexOf(probes[0]!);
    const firstOther = sent.findIndex((line) => line.startsWith("PUT") && !line.includes(PROBE_KEY));
    expect(firstProbe).toBeLessThan(firstOther);
    expect(sent.filter((line) => line.startsWith(`PUT t/${commitKey(0)}`))).toEqual([
      `PUT t/${commitKey(0)} → 200`,
    ]);
    // The object is kept, hidden: delta-rs reads the table and vacuum leaves the object alone.
    const direct = openStore(uri, { storageOptions: testS3().storageOptions });
    expect((await direct.head(PROBE_KEY)).size).toBeGreaterThan(0);
    const read = await oracle.call<Record<string, unknown>[]>("delta_read_rows", {
      uri,
      sort_by: ["id"],
      storage_options: testS3().storageOptions,
    });
    expect(read.map((r) => r.id)).toEqual([1, 2, 3]);
    const vacuumed = await oracle.call<{ deleted: string[] }>("delta_vacuum", {
      uri,
      retention_hours: 0,
      dry_run: true,
      storage_options: testS3().storageOptions,
    });
    expect(vacuumed.deleted).toEqual([]);
  });

  it("once the probe object exists, a new process proves the endpoint with one PUT answered 412", async () => {
    const bucket = await freshBucket();
    const uri = `s3://${bucket}/t`;
    // What an earlier process left behind (its own table write, straight to moto).
    const direct = openStore(uri, { storageOptions: testS3().storageOptions });
    await direct.put(PROBE_KEY, new TextEncoder().encode("left by an earlier process"));
    proxy.clearEvents();
    await DeltaLiteTable.write(uri, rows([1, 2], 0), { storageOptions: throughProxy() });
    const sent = await requestsTo(bucket);
    expect(sent.filter((line) => line.includes(PROBE_KEY))).toEqual([`PUT t/${PROBE_KEY} → 412`]);
    expect(new TextDecoder().decode(await direct.get(PROBE_KEY))).toBe("left by an earlier process");
  });
});

describe("an endpoint that ignores If-None-Match", () => {
  it("is refused (unsupported) after two accepted PUTs of the probe object, and nothing reaches the log", async () => {
    const seen: string[] = [];
    // Accepts every request like a server that ignores the header (s3rver does), recording what it got.
    const server = createServer((req: IncomingMessage, res) => {
      seen.push(`${req.method} ${req.url?.split("?")[0]}`);
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { ETag: '"e"', "Content-Type": "application/xml" });
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const store = openStore("s3://lenient-probe/t", {
        storageOptions: { ...testS3().storageOptions, AWS_ENDPOINT_URL: `http://127.0.0.1:${port}` },
      });
      const error = await store
        .put(commitKey(0), new TextEncoder().encode("{}"), { mode: "create" })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ kind: "unsupported" });
      expect((error as Error).message).toContain("If-None-Match");
      expect(seen).toEqual([`PUT /lenient-probe/t/${PROBE_KEY}`, `PUT /lenient-probe/t/${PROBE_KEY}`]);
    } finally {
      server.close();
    }
  });
});
