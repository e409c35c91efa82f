/**
 * Test wrappers that model weaker stores than ours, for the log-request probes' fallbacks: `EtaglessStore`
 * (a backend that reports no ETag on HEAD, LIST or PUT) and `StaleNotFoundStore` (a cache in front of a store
 * that answers `not_found` for an object that exists — for GET and HEAD of the keys it is told to hide).
 */
import { DeltaLiteError } from "@deltalite/errors";
import type {
  GetOptions,
  ListOptions,
  MultipartPutOptions,
  ObjectMeta,
  ObjectStore,
  PutOptions,
  PutResult,
  SignalOptions,
  TempSweepOptions,
} from "./types.js";

/** Passes every call to `inner`; subclasses override what they degrade. */
abstract class ForwardingStore implements ObjectStore {
  readonly root: string;
  protected readonly inner: ObjectStore;

  constructor(inner: ObjectStore) {
    this.inner = inner;
    this.root = inner.root;
  }
  get capabilities() {
    return this.inner.capabilities;
  }
  get(key: string, options?: GetOptions): Promise<Uint8Array> {
    return this.inner.get(key, options);
  }
  head(key: string, options?: SignalOptions): Promise<ObjectMeta> {
    return this.inner.head(key, options);
  }
  put(key: string, data: Uint8Array, options?: PutOptions): Promise<PutResult> {
    return this.inner.put(key, data, options);
  }
  putMultipart(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options?: MultipartPutOptions,
  ): Promise<PutResult> {
    return this.inner.putMultipart(key, chunks, options);
  }
  list(prefix: string, options?: ListOptions): AsyncIterable<ObjectMeta> {
    return this.inner.list(prefix, options);
  }
  delete(key: string, options?: SignalOptions): Promise<void> {
    return this.inner.delete(key, options);
  }
  async removeStaleTempFiles(
    prefix: string,
    olderThanMs: number,
    options?: TempSweepOptions,
  ): Promise<string[]> {
    return (await this.inner.removeStaleTempFiles?.(prefix, olderThanMs, options)) ?? [];
  }
}

/** A store whose backend has no ETags: HEAD, LIST and PUT report `etag: undefined`; no `ifMatch`. */
export class EtaglessStore extends ForwardingStore {
  override get capabilities() {
    return { ...this.inner.capabilities, ifMatch: false };
  }
  override async head(key: string, options?: SignalOptions): Promise<ObjectMeta> {
    return { ...(await this.inner.head(key, options)), etag: undefined };
  }
  override async put(key: string, data: Uint8Array, options?: PutOptions): Promise<PutResult> {
    await this.inner.put(key, data, options);
    return { etag: undefined };
  }
  override async putMultipart(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options?: MultipartPutOptions,
  ): Promise<PutResult> {
    await this.inner.putMultipart(key, chunks, options);
    return { etag: undefined };
  }
  override async *list(prefix: string, options?: ListOptions): AsyncIterable<ObjectMeta> {
    for await (const meta of this.inner.list(prefix, options)) yield { ...meta, etag: undefined };
  }
}

/**
 * A store behind a stale cache: GET and HEAD of a key `hidden` returns true for answer `not_found` although
 * the object may exist (LIST, PUT and DELETE see the truth). `hide` changes the rule at run time.
 */
export class StaleNotFoundStore extends ForwardingStore {
  #hidden: (key: string) => boolean;
  /** GETs and HEADs answered with a stale `not_found`. */
  staleAnswers = 0;

  constructor(inner: ObjectStore, hidden: (key: string) => boolean = () => false) {
    super(inner);
    this.#hidden = hidden;
  }
  hide(hidden: (key: string) => boolean): void {
    this.#hidden = hidden;
  }
  #stale(key: string): DeltaLiteError {
    this.staleAnswers += 1;
    return new DeltaLiteError("not_found", `${this.root}/${key}: not found (stale cache answer)`);
  }
  override async get(key: string, options?: GetOptions): Promise<Uint8Array> {
    if (this.#hidden(key)) throw this.#stale(key);
    return this.inner.get(key, options);
  }
  override async head(key: string, options?: SignalOptions): Promise<ObjectMeta> {
    if (this.#hidden(key)) throw this.#stale(key);
    return this.inner.head(key, options);
  }
}
