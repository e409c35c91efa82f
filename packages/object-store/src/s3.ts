/**
 * S3 ObjectStore over `@aws-sdk/client-s3` (loaded lazily: only opening an `s3://` URI pulls in the SDK).
 * `create` is `If-None-Match: *` and `{ ifMatch }` is `If-Match` on PutObject and on
 * CompleteMultipartUpload; before the first `create` against a custom endpoint a one-time probe checks
 * that the endpoint really refuses a conditional put of an existing object, because a server that ignores
 * the header would let two writers both win a commit (one request once the hidden probe object exists);
 * `proveConditionalPut` starts that probe early (a write operation calls it as it begins, so the probe's
 * round trips overlap its reads) and every create-only put still waits for it.
 * Given a `requestTimeout` policy, every call has a request deadline (the rules of `TimeoutStore`, applied
 * inside the store so it stays an `S3Store`). Failures are told in our words
 * — a missing bucket (`not_found`), missing or refused credentials (`permission_denied`, naming what to set),
 * an unreachable endpoint (naming it) — with the SDK error kept as `cause`; messages name bucket, key and
 * endpoint, never credentials.
 */
import { Readable } from "node:stream";
import {
  DeltaLiteError,
  DeltaLiteInvalidArgumentError,
  hasErrorKind,
  isDeltaLiteError,
} from "@deltalite/errors";
import { asAsync } from "./collect.js";
import {
  alreadyExists,
  bucketNotFound,
  credentialError,
  displayEndpoint,
  endpointUnreachable,
  joinDisplay,
  networkCode,
  notFound,
  preconditionFailed,
  serverWords,
  throwIfAborted,
} from "./errors.js";
import { clampRange, validateKey, validatePrefix } from "./keys.js";
import {
  type RequestTimeoutPolicy,
  requestDeadlineMs,
  TimeoutStore,
  withRequestDeadline,
} from "./request-timeout.js";
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

type S3Sdk = typeof import("@aws-sdk/client-s3");
type S3Client = import("@aws-sdk/client-s3").S3Client;

export interface S3StoreConfig {
  bucket: string;
  /** Key prefix of the root inside the bucket, without leading or trailing `/` ("" for the bucket root). */
  prefix: string;
  region: string | undefined;
  endpoint: string | undefined;
  forcePathStyle: boolean;
  credentials:
    | { accessKeyId: string; secretAccessKey: string; sessionToken?: string | undefined }
    | undefined;
  /** Skip the one-time check that a custom endpoint honours `If-None-Match` (unsafe for concurrent writers). */
  skipConditionalPutProbe: boolean;
  /** Per-request deadlines (see `TimeoutStore`); none when undefined. `openStore` sets them by default. */
  requestTimeout?: Readonly<RequestTimeoutPolicy> | undefined;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;
const DEFAULT_PART_SIZE = 16 * 1024 * 1024;
/** Endpoints (endpoint + bucket) already proven to refuse a second `If-None-Match: *` put. */
const provenEndpoints = new Map<string, Promise<void>>();
/**
 * The conditional-put probe's object, under the table root: hidden (a leading `.`), so Delta readers and
 * vacuum ignore it; kept after the probe so that later processes prove the endpoint in one request.
 */
const CONDITIONAL_PUT_PROBE_KEY = ".deltalite-conditional-put-probe";
const PROBE_BODY = new TextEncoder().encode(
  "deltalite: this object shows that the S3 endpoint refuses a second If-None-Match: * put (safe to delete)\n",
);

export class S3Store implements ObjectStore {
  readonly root: string;
  readonly capabilities: StoreCapabilities = { ifMatch: true };
  /** The request deadlines this store applies, or undefined when it applies none. */
  readonly requestTimeout: Readonly<RequestTimeoutPolicy> | undefined;
  readonly #config: S3StoreConfig;
  #sdk: Promise<{ sdk: S3Sdk; client: S3Client }> | undefined;
  /** Set once HeadBucket found the bucket (see `#bucketExists`). */
  #bucketSeen = false;

  constructor(config: S3StoreConfig) {
    this.#config = config;
    this.root = `s3://${config.bucket}${config.prefix ? `/${config.prefix}` : ""}`;
    const timed = config.requestTimeout ? this.#withRequestDeadlines(config.requestTimeout) : undefined;
    this.requestTimeout = timed?.policy;
  }

  /**
   * Routes the public methods through a `TimeoutStore` over this store's own (untimed) methods; calls the
   * store makes to itself (the HEAD behind an empty range, the conditional-put probe) get deadlines too.
   */
  #withRequestDeadlines(policy: Readonly<RequestTimeoutPolicy>): TimeoutStore {
    const untimed = S3Store.prototype;
    const timed = new TimeoutStore(
      {
        root: this.root,
        capabilities: this.capabilities,
        get: (key, options) => untimed.get.call(this, key, options),
        head: (key, options) => untimed.head.call(this, key, options),
        put: (key, data, options) => untimed.put.call(this, key, data, options),
        putMultipart: (key, chunks, options) => untimed.putMultipart.call(this, key, chunks, options),
        list: (prefix, options) => untimed.list.call(this, prefix, options),
        delete: (key, options) => untimed.delete.call(this, key, options),
      },
      policy,
    );
    const named = <T>(call: Promise<T>) =>
      call.catch((error: unknown) => Promise.reject(this.#namingEndpoint(error)));
    this.get = (key, options) => named(timed.get(key, options));
    this.head = (key, options) => named(timed.head(key, options));
    this.put = (key, data, options) => named(timed.put(key, data, options));
    this.putMultipart = (key, chunks, options) => named(timed.putMultipart(key, chunks, options));
    const namingEndpoint = (error: unknown) => this.#namingEndpoint(error);
    this.list = (prefix, options) =>
      (async function* () {
        try {
          yield* timed.list(prefix, options);
        } catch (error) {
          throw namingEndpoint(error);
        }
      })();
    this.delete = (key, options) => named(timed.delete(key, options));
    return timed;
  }

  /** A request-deadline error with the endpoint added (the deadline wrapper knows only the table root). */
  #namingEndpoint(error: unknown): unknown {
    if (!isDeltaLiteError(error) || error.kind !== "timeout" || error.message.includes(this.#endpoint))
      return error;
    return new DeltaLiteError("timeout", `${error.message} from the S3 endpoint ${this.#endpoint}`, {
      cause: error,
      retryable: error.retryable,
    });
  }

  #fullKey(key: string): string {
    validateKey(key);
    return this.#config.prefix ? `${this.#config.prefix}/${key}` : key;
  }

  #client(): Promise<{ sdk: S3Sdk; client: S3Client }> {
    this.#sdk ??= import("@aws-sdk/client-s3").then((sdk) => {
      const c = this.#config;
      const client = new sdk.S3Client({
        ...(c.region ? { region: c.region } : {}),
        ...(c.endpoint ? { endpoint: c.endpoint } : {}),
        forcePathStyle: c.forcePathStyle,
        ...(c.credentials
          ? {
              credentials: {
                accessKeyId: c.credentials.accessKeyId,
                secretAccessKey: c.credentials.secretAccessKey,
                ...(c.credentials.sessionToken ? { sessionToken: c.credentials.sessionToken } : {}),
              },
            }
          : {}),
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED",
        maxAttempts: 3,
      });
      return { sdk, client };
    });
    return this.#sdk;
  }

  async get(key: string, options: GetOptions = {}): Promise<Uint8Array> {
    const full = this.#fullKey(key);
    throwIfAborted(options.signal, this.root, key);
    const { sdk, client } = await this.#client();
    let rangeHeader: string | undefined;
    if (options.range) {
      const { start, end } = options.range;
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
        clampRange(options.range, Number.MAX_SAFE_INTEGER, key);
      }
      if (end === start) {
        // HTTP cannot express an empty range: check existence and bounds with HEAD instead.
        const meta = await this.head(key, options);
        clampRange(options.range, meta.size, key);
        return new Uint8Array(0);
      }
      rangeHeader = `bytes=${start}-${end - 1}`;
    }
    try {
      const out = await client.send(
        new sdk.GetObjectCommand({ Bucket: this.#config.bucket, Key: full, Range: rangeHeader }),
        sig(options.signal),
      );
      if (!out.Body) return new Uint8Array(0);
      return await out.Body.transformToByteArray();
    } catch (error) {
      if (statusOf(error) === 416 && options.range) {
        const meta = await this.head(key, options);
        clampRange(options.range, meta.size, key);
        return new Uint8Array(0);
      }
      throw this.#mapError(error, key, "GET");
    }
  }

  async head(key: string, options: SignalOptions = {}): Promise<ObjectMeta> {
    const full = this.#fullKey(key);
    throwIfAborted(options.signal, this.root, key);
    const { sdk, client } = await this.#client();
    try {
      const out = await client.send(
        new sdk.HeadObjectCommand({ Bucket: this.#config.bucket, Key: full }),
        sig(options.signal),
      );
      return {
        key,
        size: Number(out.ContentLength ?? 0),
        etag: out.ETag,
        lastModified: out.LastModified ? out.LastModified.getTime() : 0,
      };
    } catch (error) {
      if (statusOf(error) === 404 && !(await this.#bucketExists(options.signal))) {
        throw bucketNotFound(this.#config.bucket, this.#endpoint, error);
      }
      throw this.#mapError(error, key, "HEAD");
    }
  }

  async put(key: string, data: Uint8Array, options: PutOptions = {}): Promise<PutResult> {
    const full = this.#fullKey(key);
    throwIfAborted(options.signal, this.root, key);
    const mode: PutMode = options.mode ?? "overwrite";
    if (mode === "create") await this.#ensureConditionalPut(options.signal);
    const { sdk, client } = await this.#client();
    for (let attempt = 0; ; attempt++) {
      try {
        const out = await client.send(
          new sdk.PutObjectCommand({
            Bucket: this.#config.bucket,
            Key: full,
            Body: data,
            ...conditionOf(mode),
          }),
          sig(options.signal),
        );
        return { etag: out.ETag };
      } catch (error) {
        const mapped = this.#mapError(error, key, "PUT", mode);
        // 409 ConditionalRequestConflict: another conditional write to this key is in flight; its outcome
        // decides ours, so ask again shortly (S3's documented advice).
        if (mapped.kind !== "precondition_failed" || !mapped.retryable || attempt >= 5) throw mapped;
        await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt * (0.5 + Math.random())));
      }
    }
  }

  async putMultipart(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options: MultipartPutOptions = {},
  ): Promise<PutResult> {
    const full = this.#fullKey(key);
    throwIfAborted(options.signal, this.root, key);
    const mode: PutMode = options.mode ?? "overwrite";
    const partSize = options.partSizeBytes ?? DEFAULT_PART_SIZE;
    if (partSize < MIN_PART_SIZE) {
      throw new DeltaLiteInvalidArgumentError(`multipart part size must be at least 5 MiB (got ${partSize})`);
    }
    if (mode === "create") await this.#ensureConditionalPut(options.signal);
    const { client } = await this.#client();
    const { Upload } = await import("@aws-sdk/lib-storage");
    const abortController = new AbortController();
    const onAbort = () => abortController.abort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const upload = new Upload({
      client,
      params: {
        Bucket: this.#config.bucket,
        Key: full,
        Body: Readable.from(asAsync(chunks), { objectMode: false, highWaterMark: 1 }),
        ...conditionOf(mode),
      },
      partSize,
      queueSize: options.concurrency ?? 4,
      leavePartsOnError: false,
      abortController,
    });
    try {
      const out = await upload.done();
      return { etag: out.ETag };
    } catch (error) {
      if (options.signal?.aborted)
        throw new DeltaLiteError("aborted", `upload aborted: ${joinDisplay(this.root, key)}`);
      throw this.#mapError(error, key, "PUT (multipart)", mode);
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<ObjectMeta> {
    validatePrefix(prefix);
    const { sdk, client } = await this.#client();
    const base = this.#config.prefix ? `${this.#config.prefix}/` : "";
    let token: string | undefined;
    do {
      throwIfAborted(options.signal, this.root, prefix);
      let out: import("@aws-sdk/client-s3").ListObjectsV2CommandOutput;
      try {
        out = await client.send(
          new sdk.ListObjectsV2Command({
            Bucket: this.#config.bucket,
            Prefix: base + prefix,
            ContinuationToken: token,
            ...(token === undefined && options.startAfter !== undefined
              ? { StartAfter: base + options.startAfter }
              : {}),
          }),
          sig(options.signal),
        );
      } catch (error) {
        throw this.#mapError(error, prefix, "LIST");
      }
      for (const item of out.Contents ?? []) {
        if (!item.Key) continue;
        yield {
          key: item.Key.slice(base.length),
          size: Number(item.Size ?? 0),
          etag: item.ETag,
          lastModified: item.LastModified ? item.LastModified.getTime() : 0,
        };
      }
      token = out.IsTruncated ? out.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * Starts (or joins) the one-time conditional-put probe of this endpoint and bucket now, instead of at the
   * first create-only put; resolves once the endpoint is proven (at once without a custom endpoint or with
   * the probe skipped). A caller about to write calls it early and need not wait: every create-only put
   * waits for the same proof, and a failed proof (not kept) is retried and reported by that put.
   */
  async proveConditionalPut(options: SignalOptions = {}): Promise<void> {
    throwIfAborted(options.signal, this.root, CONDITIONAL_PUT_PROBE_KEY);
    await this.#ensureConditionalPut(options.signal);
  }

  async delete(key: string, options: SignalOptions = {}): Promise<void> {
    const full = this.#fullKey(key);
    throwIfAborted(options.signal, this.root, key);
    const { sdk, client } = await this.#client();
    try {
      await client.send(
        new sdk.DeleteObjectCommand({ Bucket: this.#config.bucket, Key: full }),
        sig(options.signal),
      );
    } catch (error) {
      if (statusOf(error) === 404 && codeOf(error) !== "NoSuchBucket") return;
      throw this.#mapError(error, key, "DELETE");
    }
  }

  /** Refuses endpoints that silently ignore `If-None-Match: *` (once per endpoint and bucket per process). */
  #ensureConditionalPut(signal: AbortSignal | undefined): Promise<void> {
    const c = this.#config;
    if (!c.endpoint || c.skipConditionalPutProbe) return Promise.resolve();
    const id = `${c.endpoint}|${c.bucket}`;
    let proof = provenEndpoints.get(id);
    if (!proof) {
      proof = this.#probeConditionalPut(signal);
      provenEndpoints.set(id, proof);
      proof.catch(() => provenEndpoints.delete(id));
    }
    return proof;
  }

  /**
   * Proves that the endpoint refuses a create-only put of an existing object. The probe object
   * (`CONDITIONAL_PUT_PROBE_KEY`, hidden, never referenced by the log) is kept: once it exists, one
   * create-only PUT answered 412 is the proof; when it does not exist yet, the first PUT creates it and a
   * second one must be refused. A server that ignores `If-None-Match` answers 200 to both and is refused.
   */
  async #probeConditionalPut(signal: AbortSignal | undefined): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.#putProbeObject(signal);
      } catch (error) {
        if (refusesSecondCreate(error)) return;
        throw error;
      }
    }
    throw new DeltaLiteError(
      "unsupported",
      `the S3 endpoint behind ${this.root} ignores If-None-Match: two writers could both win one commit; ` +
        "use a server that honours conditional puts, or set DELTALITE_SKIP_CONDITIONAL_PUT_PROBE=true to accept the risk",
    );
  }

  /** One create-only PUT of the probe object, under the store's request deadline when it has one. */
  #putProbeObject(signal: AbortSignal | undefined): Promise<void> {
    const key = CONDITIONAL_PUT_PROBE_KEY;
    const policy = this.#config.requestTimeout;
    if (!policy) return this.#putUnprobed(key, PROBE_BODY, signal);
    const request = { method: "put", root: this.root, key, deadlineMs: requestDeadlineMs(policy), signal };
    return withRequestDeadline(request, (linked) => this.#putUnprobed(key, PROBE_BODY, linked));
  }

  async #putUnprobed(key: string, data: Uint8Array, signal: AbortSignal | undefined): Promise<void> {
    const { sdk, client } = await this.#client();
    try {
      await client.send(
        new sdk.PutObjectCommand({
          Bucket: this.#config.bucket,
          Key: this.#fullKey(key),
          Body: data,
          IfNoneMatch: "*",
        }),
        sig(signal),
      );
    } catch (error) {
      throw this.#mapError(error, key, "PUT", "create");
    }
  }

  /** The endpoint as messages show it (never with user info). */
  get #endpoint(): string {
    return displayEndpoint(this.#config.endpoint, this.#config.region);
  }

  /**
   * True unless the bucket is proven missing: a HEAD that finds nothing says only "404" (no body, so no
   * NoSuchBucket code), so the first such answer asks HeadBucket once; a bucket seen once is not asked again.
   */
  async #bucketExists(signal: AbortSignal | undefined): Promise<boolean> {
    if (this.#bucketSeen) return true;
    const { sdk, client } = await this.#client();
    try {
      await client.send(new sdk.HeadBucketCommand({ Bucket: this.#config.bucket }), sig(signal));
    } catch (error) {
      if (statusOf(error) === 404 || codeOf(error) === "NoSuchBucket") return false;
      return true; // no permission to ask, or the endpoint failed: not proof of a missing bucket
    }
    this.#bucketSeen = true;
    return true;
  }

  /** Our error for an SDK failure of `op` on `key`: the problem in our words, the SDK error as `cause`. */
  #mapError(error: unknown, key: string, op: string, mode?: PutMode): DeltaLiteError {
    if (isDeltaLiteError(error)) return error;
    const status = statusOf(error);
    const code = codeOf(error);
    const where = joinDisplay(this.root, key);
    const what = `S3 ${op} ${where}`;
    if (code === "AbortError" || (error as Error)?.name === "AbortError") {
      return new DeltaLiteError("aborted", `${what} aborted`, { cause: error });
    }
    if (code === "NoSuchBucket") return bucketNotFound(this.#config.bucket, this.#endpoint, error);
    if (status === 404 || code === "NoSuchKey" || code === "NotFound") return notFound(this.root, key, error);
    if (status === 412 || code === "PreconditionFailed") {
      return mode === "create" ? alreadyExists(this.root, key) : preconditionFailed(this.root, key);
    }
    if (status === 409 && code === "ConditionalRequestConflict") {
      return new DeltaLiteError("precondition_failed", `${what}: another conditional write is in flight`, {
        cause: error,
        retryable: true,
      });
    }
    const credentials = credentialError(code, status, what, this.root, error);
    if (credentials) return credentials;
    const unreachable = endpointUnreachable(networkCode(error) ?? code, what, this.#endpoint, error);
    if (unreachable) return unreachable;
    const transient = status === undefined || status === 408 || status === 429 || status >= 500;
    const answer = status === undefined ? "failed" : `got HTTP ${status} from ${this.#endpoint}`;
    return new DeltaLiteError("generic", `${what} ${answer}: ${serverWords(error, code)}`, {
      cause: error,
      retryable: transient,
    });
  }
}

function conditionOf(mode: PutMode): { IfNoneMatch?: string; IfMatch?: string } {
  if (mode === "create") return { IfNoneMatch: "*" };
  if (mode === "overwrite") return {};
  return { IfMatch: mode.ifMatch };
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function codeOf(error: unknown): string {
  const e = error as { Code?: unknown; name?: unknown; code?: unknown };
  for (const v of [e?.Code, e?.name, e?.code]) if (typeof v === "string" && v !== "Error") return v;
  return "UnknownError";
}

function sig(signal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return signal ? { abortSignal: signal } : {};
}

/**
 * Whether a create-only put failed because the object exists: 412 (`already_exists`), or 409
 * ConditionalRequestConflict (another create of it in flight) — answers only a server that evaluates
 * `If-None-Match` gives.
 */
function refusesSecondCreate(error: unknown): boolean {
  return hasErrorKind(error, "already_exists") || hasErrorKind(error, "precondition_failed");
}
