/**
 * The ObjectStore contract: the only way deltalite touches storage. Keys are opaque `/`-separated strings
 * relative to the store's root; listing is sorted in UTF-8 byte order; `put` with mode `create` is atomic
 * on every implementation (exactly one of several racing creators wins).
 */

/** A half-open byte range `[start, end)`. `end` beyond the object's size is clamped to the size. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface ObjectMeta {
  /** Key relative to the store root. */
  key: string;
  size: number;
  /** Opaque version tag; pass it back as `{ ifMatch }`. Undefined only where a backend has none. */
  etag: string | undefined;
  /** Milliseconds since the Unix epoch. */
  lastModified: number;
}

/**
 * `create` fails with `already_exists` when the key exists (atomically); `overwrite` replaces;
 * `{ ifMatch }` replaces only when the current etag equals the given one, else `precondition_failed`.
 */
export type PutMode = "create" | "overwrite" | { ifMatch: string };

export interface SignalOptions {
  signal?: AbortSignal | undefined;
}

export interface TempSweepOptions extends SignalOptions {
  dryRun?: boolean | undefined;
}

export interface GetOptions extends SignalOptions {
  range?: ByteRange | undefined;
}

export interface PutOptions extends SignalOptions {
  mode?: PutMode | undefined;
}

export interface MultipartPutOptions extends PutOptions {
  /** Size of each uploaded part (S3 needs ≥ 5 MiB). Default 16 MiB. */
  partSizeBytes?: number | undefined;
  /** Parts in flight at once. Default 4. */
  concurrency?: number | undefined;
}

export interface ListOptions extends SignalOptions {
  /** Only keys strictly greater than this one (UTF-8 byte order). */
  startAfter?: string | undefined;
}

export interface PutResult {
  etag: string | undefined;
}

/** What a store can do beyond the core contract; the contract suite runs gated cases only where declared. */
export interface StoreCapabilities {
  /** Conditional overwrite by etag (`{ ifMatch }`). The local file system cannot do it atomically. */
  ifMatch: boolean;
}

export type StoreMethod = "get" | "head" | "put" | "putMultipart" | "list" | "delete";

export interface ObjectStore {
  /** Display URL of the root (never contains credentials). */
  readonly root: string;
  readonly capabilities: StoreCapabilities;
  /** Whole object, or a byte range of it. `not_found` when missing. */
  get(key: string, options?: GetOptions): Promise<Uint8Array>;
  head(key: string, options?: SignalOptions): Promise<ObjectMeta>;
  put(key: string, data: Uint8Array, options?: PutOptions): Promise<PutResult>;
  /**
   * Streams chunks into one object without holding it whole in memory. Honours `mode` like `put`; the
   * object becomes visible only when complete, and a failure leaves no object behind.
   */
  putMultipart(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options?: MultipartPutOptions,
  ): Promise<PutResult>;
  /** Objects whose key starts with `prefix`, sorted by key in UTF-8 byte order. */
  list(prefix: string, options?: ListOptions): AsyncIterable<ObjectMeta>;
  /** Removes the object; deleting a missing key succeeds. */
  delete(key: string, options?: SignalOptions): Promise<void>;
  /**
   * Stores that stage writes in temp files beside the key (the local file system) delete those under
   * `prefix` last modified before `olderThanMs` (epoch ms) — what a crash between staging and publishing
   * leaves — and return their keys (`dryRun`: only return them). Stores without temp files do not have
   * this method.
   */
  removeStaleTempFiles?(prefix: string, olderThanMs: number, options?: TempSweepOptions): Promise<string[]>;
}
