// The request accounting of `pnpm bench log-requests` (tools/bench/log-requests/classify.mjs): a LIST is a
// GET with list-type=2 and is under `_delta_log/` by its prefix; PUT and POST count as PUT, DELETE as OTHER;
// requests are attributed to the phase their markers enclose, and a request outside every phase is reported.
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs module of the bench, without type declarations
import { classify, countByPhase } from "../bench/log-requests/classify.mjs";

const request = (method: string, path: string, query = "") => ({ method, path, query });
const mark = (label: string) => request("GET", `/__bench_mark__/${label}`);

describe("log-requests classify", () => {
  it("tells LIST from GET and log requests from data requests", () => {
    expect(classify(request("GET", "/b/t/_delta_log/", "list-type=2&prefix=t%2F_delta_log%2F"))).toEqual({
      kind: "LIST",
      log: true,
    });
    expect(classify(request("GET", "/b", "list-type=2&prefix=t%2Fday%3D1%2F"))).toEqual({
      kind: "LIST",
      log: false,
    });
    expect(classify(request("GET", "/b/t/_delta_log/00000000000000000003.json"))).toEqual({
      kind: "GET",
      log: true,
    });
    expect(classify(request("head", "/b/t/_delta_log/00000000000000000000.json")).kind).toBe("HEAD");
    expect(classify(request("POST", "/b/t/part-1.parquet", "uploads"))).toEqual({ kind: "PUT", log: false });
    expect(classify(request("DELETE", "/b/t/probe")).kind).toBe("OTHER");
    expect(classify(request("GET", "/b/t/not_delta_log_x/f")).log).toBe(false);
  });

  it("counts per phase between markers and keeps stray requests apart", () => {
    const { phases, unattributed } = countByPhase([
      request("GET", "/b/t/_delta_log/", "list-type=2&prefix=t%2F_delta_log%2F"),
      mark("start-open"),
      request("GET", "/b/t/_delta_log/00000000000000000000.json"),
      mark("end-open"),
      mark("start-upsert-1"),
      request("GET", "/b/t/part-0.parquet"),
      request("PUT", "/b/t/part-1.parquet"),
      request("PUT", "/b/t/_delta_log/00000000000000000001.json"),
      mark("end-upsert-1"),
    ]);
    expect(phases.map((p: { phase: string }) => p.phase)).toEqual(["open", "upsert-1"]);
    expect(phases[1].counts).toMatchObject({ GET: 1, PUT: 2, LIST: 0, total: 3, log: 1, outside: 2 });
    expect(phases[0].counts).toMatchObject({ GET: 1, total: 1, log: 1 });
    expect(unattributed.counts).toMatchObject({ LIST: 1, total: 1 });
  });
});
