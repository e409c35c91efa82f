import { checkpointPrefetchMaxBytes, requestSwitchOn } from "@deltalite/delta-log";
import { describe, expect, it } from "vitest";

describe("request switches", () => {
  it("are on unless set to an off word (trimmed, any case)", () => {
    expect(requestSwitchOn("probeRefresh", {})).toBe(true);
    for (const off of ["0", "false", " OFF ", "No"]) {
      expect(requestSwitchOn("probeRefresh", { DELTALITE_PROBE_REFRESH: off })).toBe(false);
    }
    for (const on of ["1", "true", "yes", ""]) {
      expect(requestSwitchOn("commitJsonCache", { DELTALITE_COMMIT_JSON_CACHE: on })).toBe(true);
    }
  });

  it("read the checkpoint prefetch cap, 0 disabling it, and refuse a malformed one", () => {
    expect(checkpointPrefetchMaxBytes({})).toBe(128 * 1024 * 1024);
    expect(checkpointPrefetchMaxBytes({ DELTALITE_CHECKPOINT_PREFETCH_MAX_BYTES: " 0 " })).toBe(0);
    expect(() => checkpointPrefetchMaxBytes({ DELTALITE_CHECKPOINT_PREFETCH_MAX_BYTES: "-1" })).toThrow(
      expect.objectContaining({ kind: "invalid_argument" }),
    );
  });
});
