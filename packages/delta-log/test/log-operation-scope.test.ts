/**
 * The log operation scope is found by the operation's store: inside a running operation its hooks see it
 * (and only for its own store, also from work the operation did not start itself), after it they see
 * nothing, and while two operations run on one store object at once neither is seen (the economy is off for
 * both: more requests, never a wrong answer).
 */
import { InMemoryStore } from "@deltalite/object-store";
import { describe, expect, it } from "vitest";
import { LogOperation, logOperationFor, runLogOperation } from "../src/log-requests/operation.js";

describe("the log operation scope", () => {
  it("is the one operation running on a store, and nothing for another store or after it", async () => {
    const store = new InMemoryStore();
    const other = new InMemoryStore();
    const operation = new LogOperation(store, undefined);
    expect(logOperationFor(store)).toBeUndefined();
    const seen = await runLogOperation(operation, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return { own: logOperationFor(store), other: logOperationFor(other) };
    });
    expect(seen.own).toBe(operation);
    expect(seen.other).toBeUndefined();
    expect(logOperationFor(store)).toBeUndefined();
  });

  it("is nothing while two operations run on one store, and the remaining one once the other ends", async () => {
    const store = new InMemoryStore();
    const first = new LogOperation(store, undefined);
    const second = new LogOperation(store, undefined);
    let endFirst: () => void = () => undefined;
    const firstDone = runLogOperation(first, () => new Promise<void>((resolve) => (endFirst = resolve)));
    expect(logOperationFor(store)).toBe(first);
    let during: LogOperation | undefined;
    let after: LogOperation | undefined;
    let endSecond: () => void = () => undefined;
    const secondDone = runLogOperation(second, async () => {
      during = logOperationFor(store);
      await new Promise<void>((resolve) => (endSecond = resolve));
      after = logOperationFor(store);
    });
    endFirst();
    await firstDone;
    endSecond();
    await secondDone;
    expect(during).toBeUndefined();
    expect(after).toBe(second);
    expect(logOperationFor(store)).toBeUndefined();
  });

  it("ends with its body's failure, and clears its commit-JSON cache", async () => {
    const store = new InMemoryStore();
    let cleared = 0;
    const cache = { clear: () => cleared++ } as unknown as ConstructorParameters<typeof LogOperation>[1];
    const operation = new LogOperation(store, cache);
    await expect(
      runLogOperation(operation, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(logOperationFor(store)).toBeUndefined();
    expect(cleared).toBe(1);
  });
});
