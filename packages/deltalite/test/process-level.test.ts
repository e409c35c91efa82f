import { describe, expect, it } from "vitest";
import { clearProbeCache, limitsSnapshot, probeCacheStats, setProbeCacheMaxBytes } from "../src/index.js";

describe("process-level probe-cache functions", () => {
  it("are exported from deltalite and act on the one process-wide cache", () => {
    const before = probeCacheStats();
    setProbeCacheMaxBytes(1024 * 1024);
    expect(probeCacheStats().maxBytes).toBe(1024 * 1024);
    clearProbeCache();
    expect(probeCacheStats().entries).toBe(0);
    expect(probeCacheStats().size).toBe(0);
    setProbeCacheMaxBytes(before.maxBytes);
    expect(probeCacheStats().maxBytes).toBe(before.maxBytes);
  });
});

describe("limitsSnapshot", () => {
  it("reports every process-wide budget in the seed's units, with no I/O", () => {
    const limits = limitsSnapshot();
    expect(Object.keys(limits)).toEqual(["partitions", "files", "bufferKb", "fetchKb"]);
    for (const budget of Object.values(limits)) {
      expect(budget.available).toBeLessThanOrEqual(budget.total);
      expect(budget.waiters).toBe(0);
    }
  });
});
