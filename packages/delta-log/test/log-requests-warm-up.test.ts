// The warm-up of a write (`warmUpForWrites`): it starts the store's conditional-put proof when the store has
// one (the S3 store), passing the write's signal, and never fails the caller — a failed proof is left for the
// write's create-only put to report; a store without a proof is left alone. On moto through the fault proxy:
// the upsert that calls it still sends the probe once per process, before any create-only put.
import { randomBytes } from "node:crypto";
import { InMemoryStore, type SignalOptions } from "@deltalite/object-store";
import { type FaultProxy, startFaultProxy } from "@deltalite/tools/fault-proxy";
import { testS3 } from "@deltalite/tools/s3-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { warmUpForWrites } from "../src/index.js";
import { DeltaLiteTable, rows } from "./helpers/handle-rig.js";

const PROBE_KEY = ".deltalite-conditional-put-probe";

/** An in-memory store with a conditional-put proof that records its calls and answers `outcome`. */
function storeWithProof(outcome: () => Promise<void>) {
  const calls: (SignalOptions | undefined)[] = [];
  const store = Object.assign(new InMemoryStore("memory://warm"), {
    proveConditionalPut(options?: SignalOptions) {
      calls.push(options);
      return outcome();
    },
  });
  return { store, calls };
}

describe("warmUpForWrites", () => {
  it("starts the store's proof with the write's signal, and returns without waiting for it", async () => {
    let settle: () => void = () => undefined;
    const { store, calls } = storeWithProof(() => new Promise<void>((resolve) => (settle = resolve)));
    const signal = new AbortController().signal;
    expect(warmUpForWrites(store, signal)).toBeUndefined();
    expect(calls).toEqual([{ signal }]);
    settle();
  });

  it("a failing proof does not fail the caller (nor surface as an unhandled rejection)", async () => {
    const { store, calls } = storeWithProof(() => Promise.reject(new Error("refused")));
    warmUpForWrites(store);
    expect(calls).toEqual([{}]);
    await new Promise((resolve) => setTimeout(resolve, 10));
  });

  it("leaves a store without a proof alone", () => {
    expect(() => warmUpForWrites(new InMemoryStore("memory://plain"))).not.toThrow();
  });
});

describe("an upsert's first call on S3 (moto through the proxy)", () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await startFaultProxy({ target: testS3().endpoint });
  });
  afterAll(async () => {
    await proxy.stop();
  });

  it("probes once per process, and every create-only put comes after the probe's refusal", async () => {
    const bucket = await testS3().createBucket(`warm-up-${randomBytes(4).toString("hex")}`);
    const uri = `s3://${bucket}/t`;
    const storageOptions = { ...testS3().storageOptions, AWS_ENDPOINT_URL: proxy.endpoint };
    // Written straight to moto (another endpoint, proven on its own): the proxy's endpoint is still unproven,
    // and the write left the probe object, so the upsert's proof is one PUT answered 412.
    await DeltaLiteTable.write(uri, rows([1, 2, 3], 0), { storageOptions: testS3().storageOptions });
    const handle = await DeltaLiteTable.open(uri, { storageOptions });
    proxy.clearEvents();
    await handle.upsert(rows([2, 4], 1), { primaryKeys: ["id"] });
    await handle.upsert(rows([5], 2), { primaryKeys: ["id"] });
    await proxy.idle();
    const sent = proxy.events().filter((e) => e.path.startsWith(`/${bucket}/`));
    const probes = sent.filter((e) => e.path.endsWith(PROBE_KEY));
    expect(probes.map((e) => e.upstreamStatus)).toEqual([412]); // the object the write left: one PUT
    const creates = sent.filter((e) => e.method === "PUT" && !e.path.endsWith(PROBE_KEY));
    expect(creates.length).toBe(4); // a data file and a commit per upsert
    for (const put of creates) expect(put.startedAt).toBeGreaterThanOrEqual(probes[0]!.endedAt!);
  });
});
