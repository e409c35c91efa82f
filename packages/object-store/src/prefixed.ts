/** A view of another store below a key prefix: keys are relative to the prefix, listings strip it. */
import { validateKey, validatePrefix } from "./keys.js";
import type {
  GetOptions,
  ListOptions,
  LocalFileTarget,
  MultipartPutOptions,
  ObjectMeta,
  ObjectStore,
  PutOptions,
  PutResult,
  SignalOptions,
  TempSweepOptions,
} from "./types.js";

export class PrefixedStore implements ObjectStore {
  readonly root: string;
  readonly #inner: ObjectStore;
  readonly #prefix: string;

  /** `prefix` is a relative key path without leading or trailing `/`. */
  constructor(inner: ObjectStore, prefix: string) {
    validateKey(prefix);
    this.#inner = inner;
    this.#prefix = `${prefix}/`;
    this.root = `${inner.root.replace(/\/$/, "")}/${prefix}`;
    const localPath = inner.localPath?.bind(inner);
    if (localPath) this.localPath = (key) => localPath(this.#key(key));
    const localTarget = inner.localTarget?.bind(inner);
    if (localTarget) this.localTarget = async (key, options) => localTarget(this.#key(key), options);
  }

  /** The inner store's local target of the prefixed key, when the inner store has local targets. */
  readonly localTarget?: (key: string, options?: SignalOptions) => Promise<LocalFileTarget>;

  /** The inner store's local path of the prefixed key, when the inner store has local paths. */
  readonly localPath?: (key: string) => string;

  get capabilities() {
    return this.#inner.capabilities;
  }

  #key(key: string): string {
    return this.#prefix + validateKey(key);
  }

  async get(key: string, options?: GetOptions): Promise<Uint8Array> {
    return this.#inner.get(this.#key(key), options);
  }
  async head(key: string, options?: SignalOptions): Promise<ObjectMeta> {
    const meta = await this.#inner.head(this.#key(key), options);
    return { ...meta, key };
  }
  async put(key: string, data: Uint8Array, options?: PutOptions): Promise<PutResult> {
    return this.#inner.put(this.#key(key), data, options);
  }
  async putMultipart(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options?: MultipartPutOptions,
  ): Promise<PutResult> {
    return this.#inner.putMultipart(this.#key(key), chunks, options);
  }
  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<ObjectMeta> {
    validatePrefix(prefix);
    const inner = {
      ...options,
      ...(options.startAfter !== undefined ? { startAfter: this.#prefix + options.startAfter } : {}),
    };
    for await (const meta of this.#inner.list(this.#prefix + prefix, inner)) {
      yield { ...meta, key: meta.key.slice(this.#prefix.length) };
    }
  }
  async delete(key: string, options?: SignalOptions): Promise<void> {
    return this.#inner.delete(this.#key(key), options);
  }
  async removeStaleTempFiles(
    prefix: string,
    olderThanMs: number,
    options?: TempSweepOptions,
  ): Promise<string[]> {
    const keys = await this.#inner.removeStaleTempFiles?.(this.#prefix + prefix, olderThanMs, options);
    return (keys ?? []).map((key) => key.slice(this.#prefix.length));
  }
}
