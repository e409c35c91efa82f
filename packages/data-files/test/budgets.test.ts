import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Budget, createProcessBudgets, limitsSnapshot, type Permit } from "../src/budgets/index.js";

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("Budget", () => {
  it("grants in FIFO order: a large head request is not starved by later small ones", async () => {
    const budget = new Budget("files", 4);
    const first = await budget.acquire(3);
    const order: string[] = [];
    const big = budget.acquire(4).then((p) => {
      order.push("big");
      return p;
    });
    const small = budget.acquire(1).then((p) => {
      order.push("small");
      return p;
    });
    await tick();
    // The big waiter took the 1 free permit and waits for the rest; the small one waits behind it.
    expect(budget.snapshot()).toEqual({ available: 0, total: 4, waiters: 2 });
    first.release();
    const bigPermit = await big;
    expect(order).toEqual(["big"]);
    bigPermit.release();
    (await small).release();
    expect(order).toEqual(["big", "small"]);
    expect(budget.snapshot()).toEqual({ available: 4, total: 4, waiters: 0 });
  });

  it("tryAcquire takes free permits at once and never waits or jumps the queue", async () => {
    const budget = new Budget("t", 10);
    const held = budget.tryAcquire(6);
    expect(held?.amount).toBe(6);
    expect(budget.tryAcquire(5)).toBeUndefined();
    expect(budget.tryAcquire(11)).toBeUndefined();
    const waiting = budget.acquire(8);
    expect(budget.snapshot().waiters).toBe(1);
    // 4 are free, but an earlier request waits: a no-wait reservation does not overtake it.
    expect(budget.tryAcquire(1)).toBeUndefined();
    held?.release();
    (await waiting).release();
    expect(budget.snapshot()).toMatchObject({ available: 10, waiters: 0 });
  });

  it("clamps a request larger than the whole budget: it runs alone", async () => {
    const budget = new Budget("bufferKb", 10);
    const huge = await budget.acquire(1_000_000);
    expect(huge.amount).toBe(10);
    expect(budget.snapshot().available).toBe(0);
    huge.release();
    huge.release();
    expect(budget.snapshot().available).toBe(10);
  });

  it("a timed-out or aborted wait fails with a typed error and gives back what it held", async () => {
    const budget = new Budget("fetchKb", 5);
    const held = await budget.acquire(4);
    await expect(budget.acquire(5, { timeoutMs: 20 })).rejects.toMatchObject({ kind: "timeout" });
    expect(budget.snapshot()).toEqual({ available: 1, total: 5, waiters: 0 });
    const controller = new AbortController();
    const waiting = budget.acquire(5, { signal: controller.signal });
    await tick();
    expect(budget.snapshot()).toEqual({ available: 0, total: 5, waiters: 1 });
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ kind: "aborted" });
    expect(budget.snapshot()).toEqual({ available: 1, total: 5, waiters: 0 });
    held.release();
    expect(budget.snapshot().available).toBe(5);
  });

  it("never over-grants and always drains back to full (property, random concurrent holders)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(
          fc.record({ amount: fc.integer({ min: 0, max: 12 }), holdTicks: fc.integer({ min: 0, max: 3 }) }),
          {
            maxLength: 30,
          },
        ),
        async (total, requests) => {
          const budget = new Budget("b", total);
          let inUse = 0;
          let peak = 0;
          const grants: number[] = [];
          await Promise.all(
            requests.map(async (r, i) => {
              const permit: Permit = await budget.acquire(r.amount);
              grants.push(i);
              inUse += permit.amount;
              peak = Math.max(peak, inUse);
              expect(budget.snapshot().available).toBeGreaterThanOrEqual(0);
              for (let t = 0; t < r.holdTicks; t++) await tick();
              inUse -= permit.amount;
              permit.release();
            }),
          );
          expect(peak).toBeLessThanOrEqual(total);
          expect(budget.snapshot()).toEqual({ available: total, total, waiters: 0 });
          // Every request was granted (no lost wake-up); FIFO order itself is asserted in the first test.
          return grants.length === requests.length;
        },
      ),
      { numRuns: 200 },
    );
  });

  it("tiny budgets acquired in the fixed order never deadlock", { timeout: 20_000 }, async () => {
    const budgets = createProcessBudgets({
      DELTALITE_PROCESS_MAX_PARALLEL_PARTITIONS: "1",
      DELTALITE_PROCESS_MAX_PARALLEL_FILES: "2",
      DELTALITE_PROCESS_MAX_BUFFERED_BYTES: "4096",
      DELTALITE_PROCESS_MAX_FETCH_BYTES: "2048",
    });
    let done = 0;
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const partition = await budgets.partitions.acquire(1);
        const file = await budgets.files.acquire(1 + (i % 3));
        const buffer = await budgets.buffer.acquire(1 + (i % 7));
        const fetch = await budgets.fetch.acquire(1 + (i % 5));
        await tick();
        fetch.release();
        buffer.release();
        file.release();
        partition.release();
        done++;
      }),
    );
    expect(done).toBe(40);
    expect(limitsSnapshot(budgets)).toEqual({
      partitions: { available: 1, total: 1, waiters: 0 },
      files: { available: 2, total: 2, waiters: 0 },
      bufferKb: { available: 4, total: 4, waiters: 0 },
      fetchKb: { available: 2, total: 2, waiters: 0 },
    });
  });

  it("process budgets default to the seed's sizes and refuse malformed variables", () => {
    const defaults = limitsSnapshot(createProcessBudgets({}));
    expect(defaults.partitions.total).toBe(8);
    expect(defaults.files.total).toBe(16);
    expect(defaults.bufferKb.total).toBe(256 * 1024);
    expect(defaults.fetchKb.total).toBe(256 * 1024);
    expect(() => createProcessBudgets({ DELTALITE_PROCESS_MAX_PARALLEL_FILES: "0" })).toThrow(
      /DELTALITE_PROCESS_MAX_PARALLEL_FILES/,
    );
  });
});
