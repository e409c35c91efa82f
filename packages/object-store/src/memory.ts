/**
 * In-memory ObjectStore: a Map from key to immutable bytes. `create` and `ifMatch` are checked and applied
 * in one synchronous step, so they are atomic within the process. `memory://name` URIs share one store per
 * name for the life of the process.
 */
import { DeltaLiteError } from "@deltalite/errors";
import { asAsync } from "./collect.js";
import { alreadyExists, notFound, preconditionFailed, throwIfAborted } from "./errors.js";
import { clampRange, compareUtf8, validateKey, validatePrefix } from "./keys.js";
import type {
  GetOptions,
  ListOptions,
  MultipartPutOptions,
  ObjectMeta,
  ObjectStore,
  PutMode,
  PutOptions,
  PutResult,
  SignalOptions,
  StoreCapabilities,
} from "./types.js";

interface Entry {
  data: Uint8Array;
  etag: string;
  lastModified: number;
}

export class InMemoryStore implements ObjectStore {
  readonly root: string;
  readonly capabilities: StoreCapabilities = { ifMatch: true };
  readonly #objects = new Map<string, Entry>();
  #nextTag = 1;

  constructor(root = "memory://") {
    this.root = root;
  }

  async get(key: string, options: GetOptions = {}): Promise<Uint8Array> {
    validateKey(key);
    throwIfAborted(options.signal, this.root, key);
    const entry = this.#objects.get(key);
    if (!entry) throw notFound(this.root, key);
    if (!options.range) return entry.data.slice();
    const { start, end } = clampRange(options.range, entry.data.length, key);
    return entry.data.slice(start, end);
  }

  async head(key: string, options: SignalOptions = {}): Promise<ObjectMeta> {
    validateKey(key);
    throwIfAborted(options.signal, this.root, key);
    const entry = this.#objects.get(key);
    if (!entry) throw notFound(this.root, key);
    return { key, size: entry.data.length, etag: entry.etag, lastModified: entry.lastModified };
  }

  async put(key: string, data: Uint8Array, options: PutOptions = {}): Promise<PutResult> {
    validateKey(key);
    throwIfAborted(options.signal, this.root, key);
    return this.#commit(key, data.slice(), options.mode ?? "overwrite");
  }

  async putMultipart(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options: MultipartPutOptions = {},
  ): Promise<PutResult> {
    validateKey(key);
    const parts: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of asAsync(chunks)) {
      throwIfAborted(options.signal, this.root, key);
      parts.push(chunk.slice());
      size += chunk.length;
    }
    throwIfAborted(options.signal, this.root, key);
    const data = new Uint8Array(size);
    let offset = 0;
    for (const part of parts) {
      data.set(part, offset);
      offset += part.length;
    }
    return this.#commit(key, data, options.mode ?? "overwrite");
  }

  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<ObjectMeta> {
    validatePrefix(prefix);
    const { startAfter } = options;
    const keys = [...this.#objects.keys()]
      .filter((k) => k.startsWith(prefix) && (startAfter === undefined || compareUtf8(k, startAfter) > 0))
      .sort(compareUtf8);
    for (const key of keys) {
      throwIfAborted(options.signal, this.root, prefix);
      const entry = this.#objects.get(key);
      if (entry) yield { key, size: entry.data.length, etag: entry.etag, lastModified: entry.lastModified };
    }
  }

  async delete(key: string, options: SignalOptions = {}): Promise<void> {
    validateKey(key);
    throwIfAborted(options.signal, this.root, key);
    this.#objects.delete(key);
  }

  /** Check and write in one synchronous step: this is what makes `create` and `ifMatch` atomic. */
  #commit(key: string, data: Uint8Array, mode: PutMode): PutResult {
    const current = this.#objects.get(key);
    if (mode === "create") {
      if (current) throw alreadyExists(this.root, key);
    } else if (mode !== "overwrite") {
      if (typeof mode.ifMatch !== "string")
        throw new DeltaLiteError("generic", "ifMatch needs an etag string");
      if (!current || current.etag !== mode.ifMatch) throw preconditionFailed(this.root, key);
    }
    const etag = `"m${this.#nextTag++}"`;
    this.#objects.set(key, { data, etag, lastModified: Date.now() });
    return { etag };
  }
}

const namedStores = new Map<string, InMemoryStore>();

/** The process-wide store behind `memory://<name>`; the same name gives the same store. */
export function namedMemoryStore(name: string): InMemoryStore {
  let store = namedStores.get(name);
  if (!store) {
    store = new InMemoryStore(`memory://${name}`);
    namedStores.set(name, store);
  }
  return store;
}
