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

/** What a store knows about one object (from `head`, `list`). */
export interface ObjectMeta {
  /** Key relative to the store root. */
  key: string;
  /** Size in bytes. */
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

/** Options of every call: a signal that cancels it (the call then fails with kind `aborted`). */
export interface SignalOptions {
  /** Cancels the call; the request in flight is aborted. */
  signal?: AbortSignal | undefined;
}

/** Options of `ObjectStore.removeStaleTempFiles`. */
export interface TempSweepOptions extends SignalOptions {
  /** Only list what would be deleted. */
  dryRun?: boolean | undefined;
}

/** Options of `ObjectStore.get`. */
export interface GetOptions extends SignalOptions {
  /** Read only these bytes (one ranged request) instead of the whole object. */
  range?: ByteRange | undefined;
}

/** Options of `ObjectStore.put`. */
export interface PutOptions extends SignalOptions {
  /** How to treat an existing object (see {@link PutMode}); default `overwrite`. */
  mode?: PutMode | undefined;
  /**
   * The caller hands the data (`put`) or each chunk (`putMultipart`) over and never reads or writes it again:
   * a store may release its memory (detach its buffer) as soon as it has stored those bytes, instead of
   * leaving it to the garbage collector. Default false.
   */
  handOver?: boolean | undefined;
}

/** Options of `ObjectStore.putMultipart`. */
export interface MultipartPutOptions extends PutOptions {
  /** Size of each uploaded part (S3 needs ≥ 5 MiB). Default 16 MiB. */
  partSizeBytes?: number | undefined;
  /** Parts in flight at once. Default 4. */
  concurrency?: number | undefined;
}

/** Options of `ObjectStore.list`. */
export interface ListOptions extends SignalOptions {
  /** Only keys strictly greater than this one (UTF-8 byte order). */
  startAfter?: string | undefined;
}

/** What a successful put stored. */
export interface PutResult {
  /** The new object's version tag, where the backend has one (pass it back as `{ ifMatch }`). */
  etag: string | undefined;
}

/** What a store can do beyond the core contract; the contract suite runs gated cases only where declared. */
export interface StoreCapabilities {
  /** Conditional overwrite by etag (`{ ifMatch }`). The local file system cannot do it atomically. */
  ifMatch: boolean;
}

/** The names of the `ObjectStore` methods that make requests (for counting and fault injection). */
export type StoreMethod = "get" | "head" | "put" | "putMultipart" | "list" | "delete";

/**
 * The storage contract: the only way deltalite touches storage. Keys are `/`-separated and relative to
 * `root`; `list` is sorted in UTF-8 byte order; `put` with mode `create` is atomic (one of several racing
 * creators wins, the others fail with `already_exists`). Errors are `DeltaLiteError`s (`not_found`,
 * `already_exists`, `precondition_failed`, `permission_denied`, `invalid_path`, `timeout`, `aborted`, …).
 */
export interface ObjectStore {
  /** Display URL of the root (never contains credentials). */
  readonly root: string;
  /** What this store can do beyond the core contract. */
  readonly capabilities: StoreCapabilities;
  /** Whole object, or a byte range of it. `not_found` when missing. */
  get(key: string, options?: GetOptions): Promise<Uint8Array>;
  /** The object's size, etag and modification time; `not_found` when missing. */
  head(key: string, options?: SignalOptions): Promise<ObjectMeta>;
  /** Stores `data` at `key` as `options.mode` says (default `overwrite`). */
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
  /**
   * Stores over a local directory give the file-system path of `key`'s object (the key validated as `get`
   * validates it), so a reader in this process may read a large object in place, a page at a time, instead of
   * fetching it whole; it reads exactly what `get` would. Other stores, and wrappers that observe or alter
   * requests, do not have this method.
   */
  localPath?(key: string): string;
  /**
   * Stores over a local directory give a place to write `key`'s object in place: a new empty file this
   * process writes (a native encoder writing a whole file, say), then puts in place with `commit`, as `put`
   * would with the same options, or removes with `discard`. Other stores, and wrappers that observe or alter
   * requests, do not have this method.
   */
  localTarget?(key: string, options?: SignalOptions): Promise<LocalFileTarget>;
}

/** Where `ObjectStore.localTarget` lets a writer put one object's bytes itself. */
export interface LocalFileTarget {
  /**
   * The file to write: it exists, empty, created for this target alone. A writer opens it without creating
   * it, so a writer that opens it after `discard` fails instead of leaving a file behind.
   */
  readonly path: string;
  /** Puts the complete file in place at the key, as `put` would with `options`; the path is gone after. */
  commit(options?: PutOptions): Promise<PutResult>;
  /** Removes whatever was written at the path; nothing is stored. Never fails. */
  discard(): Promise<void>;
}
