import { InMemoryStore } from "@deltalite/object-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { coalesceSpans, fetchRanges, splitSpan } from "../src/index.js";

const spanArb = fc
  .tuple(fc.nat({ max: 5000 }), fc.nat({ max: 3000 }))
  .map(([start, length]) => ({ start, end: start + length }));

describe("ranged-GET planning", () => {
  it("coalesced spans cover every input span, are disjoint, and keep gaps wider than the distance", () => {
    fc.assert(
      fc.property(fc.array(spanArb, { maxLength: 30 }), fc.nat({ max: 2000 }), (spans, gap) => {
        const merged = coalesceSpans(spans, gap);
        expect(merged.flatMap((m) => m.members).sort((a, b) => a - b)).toEqual(spans.map((_, i) => i));
        for (const m of merged) {
          for (const i of m.members) {
            expect(spans[i]!.start).toBeGreaterThanOrEqual(m.start);
            expect(spans[i]!.end).toBeLessThanOrEqual(m.end);
          }
        }
        for (let k = 1; k < merged.length; k++)
          expect(merged[k]!.start - merged[k - 1]!.end).toBeGreaterThan(gap);
      }),
    );
  });

  it("parts tile a span exactly, none larger than the part size", () => {
    fc.assert(
      fc.property(spanArb, fc.integer({ min: 1, max: 700 }), (span, partSize) => {
        const parts = splitSpan(span, partSize);
        expect(parts.length).toBe(Math.ceil((span.end - span.start) / partSize));
        let at = span.start;
        for (const part of parts) {
          expect(part.start).toBe(at);
          expect(part.end - part.start).toBeLessThanOrEqual(partSize);
          at = part.end;
        }
        if (parts.length > 0) expect(at).toBe(span.end);
      }),
    );
  });

  it("fetched bytes equal the object's bytes of each requested span, whatever the coalescing and splitting", async () => {
    const object = new Uint8Array(9000).map((_, i) => (i * 31 + 7) & 0xff);
    const store = new InMemoryStore();
    await store.put("obj", object);
    await fc.assert(
      fc.asyncProperty(
        fc.array(spanArb, { minLength: 1, maxLength: 12 }),
        fc.nat({ max: 1500 }),
        fc.integer({ min: 1, max: 4000 }),
        fc.integer({ min: 1, max: 5 }),
        async (spans, gap, partSizeBytes, concurrency) => {
          const got = await fetchRanges(store, "obj", spans, {
            coalesceGapBytes: gap,
            partSizeBytes,
            concurrency,
          });
          spans.forEach((span, i) => {
            expect(Buffer.from(got[i]!).equals(Buffer.from(object.subarray(span.start, span.end)))).toBe(
              true,
            );
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});
