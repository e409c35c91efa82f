/**
 * Owns the null-safe key index of a history upsert's source: every distinct source key (over the merge
 * engine's canonical key encoding, where a NULL key part equals a NULL key part) gets a dense id, and any
 * batch encoded the same way (a table file read in the table's types) is looked up by 64-bit hash with the
 * canonical bytes verified, so a hash collision never makes a wrong match. The merge engine's
 * `SourceKeySet` is its MERGE-equality sibling (a NULL never matches there).
 */
import { DeltaLiteError } from "@deltalite/errors";
import type { EncodedKeys } from "@deltalite/merge-engine";

export class NullSafeKeyIndex {
  /** Per key id: the encoded batch and row that first held it. */
  readonly #parts: EncodedKeys[] = [];
  readonly #entryPart: number[] = [];
  readonly #entryRow: number[] = [];
  readonly #entryHi: number[] = [];
  /** Hash low word → key ids (usually one). */
  readonly #buckets = new Map<number, number[]>();
  #signature: string | undefined;

  /** Distinct keys. */
  get size(): number {
    return this.#entryRow.length;
  }

  /** Ids of the rows of `keys` (a new id for each key not seen before). */
  addAll(keys: EncodedKeys): Int32Array {
    this.#check(keys);
    const part = this.#parts.push(keys) - 1;
    const ids = new Int32Array(keys.length);
    for (let row = 0; row < keys.length; row++) {
      let id = this.find(keys, row);
      if (id < 0) {
        id = this.#entryRow.length;
        this.#entryPart.push(part);
        this.#entryRow.push(row);
        this.#entryHi.push(keys.hashWords[2 * row + 1] as number);
        const lo = keys.hashWords[2 * row] as number;
        const bucket = this.#buckets.get(lo);
        if (bucket) bucket.push(id);
        else this.#buckets.set(lo, [id]);
      }
      ids[row] = id;
    }
    return ids;
  }

  /** The id of `keys[row]`'s key, or -1. */
  find(keys: EncodedKeys, row: number): number {
    const bucket = this.#buckets.get(keys.hashWords[2 * row] as number);
    if (bucket === undefined) return -1;
    const hi = keys.hashWords[2 * row + 1] as number;
    for (const id of bucket) {
      if (this.#entryHi[id] !== hi) continue;
      const part = this.#parts[this.#entryPart[id] as number] as EncodedKeys;
      if (part.sameKeyNullSafe(this.#entryRow[id] as number, keys, row)) return id;
    }
    return -1;
  }

  /** The key of `id` for messages. */
  describe(id: number): string {
    return (this.#parts[this.#entryPart[id] as number] as EncodedKeys).describe(this.#entryRow[id] as number);
  }

  /** Encodings compare only between equal key types and hashers. */
  #check(keys: EncodedKeys): void {
    const signature = `${keys.signature}|${keys.hasherId}`;
    this.#signature ??= signature;
    if (signature !== this.#signature) {
      throw new DeltaLiteError(
        "generic",
        `key columns ${keys.columns.join(", ")} of types [${keys.signature}] cannot be compared with keys of another type; cast both to the table schema first`,
      );
    }
  }

  /** Checks that `keys` (from a table file) can be looked up here. */
  checkComparable(keys: EncodedKeys): void {
    if (this.#signature !== undefined) this.#check(keys);
  }
}
