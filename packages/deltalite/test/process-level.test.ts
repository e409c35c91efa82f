import { describe, expect, it } from "vitest";
import { clearProbeCache, probeCacheStats, setProbeCacheMaxBytes } from "../src/index.js";

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
