import { describe, expect, it } from "vitest";
import {
  closestName,
  DeltaLiteCommitConflictError,
  DeltaLiteError,
  DeltaLiteInvalidArgumentError,
  DeltaLiteSchemaMismatchError,
  DeltaLiteSourceTooLargeError,
  DeltaLiteTableNotFoundError,
  DeltaLiteUnsupportedTableError,
  didYouMean,
  ERROR_KINDS,
  hasErrorKind,
  isDeltaLiteError,
} from "../src/index.js";

describe("DeltaLiteError", () => {
  it.each([
    [new DeltaLiteCommitConflictError("c", { winningVersion: 3 }), "conflict"],
    [new DeltaLiteSchemaMismatchError("s"), "schema_mismatch"],
    [new DeltaLiteTableNotFoundError("n"), "not_found"],
    [new DeltaLiteUnsupportedTableError("u", { feature: "deletionVectors" }), "unsupported"],
    [new DeltaLiteSourceTooLargeError("t"), "source_too_large"],
    [new DeltaLiteInvalidArgumentError("a"), "invalid_argument"],
  ] as const)("subclass %o carries kind %s and is recognised by the guard", (error, kind) => {
    expect(error.kind).toBe(kind);
    expect(ERROR_KINDS).toContain(kind);
    expect(isDeltaLiteError(error)).toBe(true);
    expect(hasErrorKind(error, kind)).toBe(true);
    expect(error).toBeInstanceOf(DeltaLiteError);
  });

  it("is recognised by brand even when the object is not an instance of this copy of the class", () => {
    const foreign = Object.assign(new Error("x"), { [Symbol.for("deltalite.error")]: true, kind: "generic" });
    expect(isDeltaLiteError(foreign)).toBe(true);
    expect(isDeltaLiteError(new Error("plain"))).toBe(false);
    expect(isDeltaLiteError(null)).toBe(false);
  });

  it("defaults retryable to false and keeps cause and winning version", () => {
    const cause = new Error("inner");
    const e = new DeltaLiteCommitConflictError("lost", { winningVersion: 7, retryable: true, cause });
    expect(e.retryable).toBe(true);
    expect(e.cause).toBe(cause);
    expect(e.winningVersion).toBe(7);
    expect(new DeltaLiteError("generic", "x").retryable).toBe(false);
    expect(JSON.parse(JSON.stringify(e))).toEqual({ kind: "conflict", message: "lost", retryable: true });
  });
});

describe("closestName / didYouMean", () => {
  const columns = ["customer_id", "event_date", "amount", "id"];
  it.each([
    ["customer_idd", "customer_id"],
    ["costumer_id", "customer_id"],
    ["Event_Date", "event_date"],
    ["amout", "amount"],
    ["ID", "id"],
    ["amuont", "amount"],
  ])("suggests the near name for %s", (typo, expected) => {
    expect(closestName(typo, columns)).toBe(expected);
    expect(didYouMean(typo, columns)).toBe(` (did you mean ${JSON.stringify(expected)}?)`);
  });

  it.each([["zzz"], ["price"], ["x"], ["customer_id"]])("suggests nothing for %s", (name) => {
    expect(closestName(name, columns)).toBeUndefined();
    expect(didYouMean(name, columns)).toBe("");
  });

  it("counts a swap of neighbouring letters as one edit", () => {
    expect(closestName("nmae", ["name", "id"])).toBe("name");
  });

  it("an invalid-argument error is never retryable, whatever it is given", () => {
    const e = new DeltaLiteInvalidArgumentError("bad", { retryable: true });
    expect(e.retryable).toBe(false);
    expect(e.toJSON()).toEqual({ kind: "invalid_argument", message: "bad", retryable: false });
  });
});
