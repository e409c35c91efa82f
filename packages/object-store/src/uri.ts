/**
 * Table locations and storage options: parses plain paths, `file://`, `memory://` and `s3://` URIs, checks
 * storage options (case-insensitive, delta-rs names accepted, unknown keys rejected; explicit options win
 * over environment variables) and opens the matching store. Values of options never appear in messages.
 * Only `s3://` stores get per-request deadlines by default (local and memory stores do not stall on a
 * network); `OpenStoreOptions.requestTimeout` turns them on for any store, changes them, or turns them off.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { DeltaLiteError, DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";
import { validateKey } from "./keys.js";
import { LocalFileStore } from "./local.js";
import { namedMemoryStore } from "./memory.js";
import { PrefixedStore } from "./prefixed.js";
import {
  parseDurationMs,
  type RequestTimeoutPolicy,
  requestTimeoutPolicyFromEnv,
  TimeoutStore,
  validateRequestTimeoutPolicy,
} from "./request-timeout.js";
import { S3Store, type S3StoreConfig } from "./s3.js";
import type { ObjectStore } from "./types.js";

/**
 * Storage options for `openStore` and the table functions (`DeltaLiteTable.open`, `create`, `write`). Every
 * value is a string, as in delta-rs, so a `Record<string, string>` from a config file or a command line can
 * be passed as it is. Names are matched case-insensitively (`aws_region` means `AWS_REGION`; the upper-case
 * names and delta-rs's lower-case spellings are typed here) and each option's aliases, listed on it, are
 * accepted too. An option given here wins over the environment variable of the same name. Booleans are
 * written `true` / `false` (also `1` / `0`, `yes` / `no`).
 *
 * Keys are checked when a store is opened: a key that is neither a known option nor one of its aliases
 * fails with kind `invalid_argument` naming the key (never its value), instead of being silently ignored.
 *
 * @example
 * ```ts
 * const options: StorageOptions = { AWS_REGION: "eu-west-1", aws_endpoint_url: "http://127.0.0.1:9000" };
 * ```
 */
export interface StorageOptions {
  /**
   * The bucket's region, e.g. `eu-west-1`. Aliases: `AWS_DEFAULT_REGION`, `REGION`. Unset: the
   * environment's `AWS_REGION` or `AWS_DEFAULT_REGION`, then `us-east-1` when `AWS_ENDPOINT_URL` is set,
   * else the AWS SDK's own lookup (e.g. the shared config profile).
   */
  readonly AWS_REGION?: string;
  /**
   * Access key id of static credentials; give it together with `AWS_SECRET_ACCESS_KEY` (one without the
   * other is refused). Alias: `ACCESS_KEY_ID`. Unset: credentials come from the AWS SDK's default provider
   * chain (environment variables, shared profile, SSO, web identity, container or instance metadata).
   */
  readonly AWS_ACCESS_KEY_ID?: string;
  /** Secret access key of static credentials, given with `AWS_ACCESS_KEY_ID`. Alias: `SECRET_ACCESS_KEY`. */
  readonly AWS_SECRET_ACCESS_KEY?: string;
  /**
   * Session token of temporary static credentials, used with `AWS_ACCESS_KEY_ID` and
   * `AWS_SECRET_ACCESS_KEY`. Aliases: `AWS_TOKEN`, `SESSION_TOKEN`, `TOKEN`.
   */
  readonly AWS_SESSION_TOKEN?: string;
  /**
   * Endpoint of an S3-compatible server (MinIO, moto, Ceph, R2, …), e.g. `http://127.0.0.1:9000`.
   * Aliases: `AWS_ENDPOINT`, `ENDPOINT`, `ENDPOINT_URL`. Unset: the environment's `AWS_ENDPOINT_URL` or
   * `AWS_ENDPOINT_URL_S3`, else AWS S3 itself. Must be a valid URL; an `http://` endpoint also needs
   * `AWS_ALLOW_HTTP=true`. With a custom endpoint, path-style addressing is on by default, and before the
   * first atomic create a one-time probe checks that the endpoint refuses a second conditional put (an
   * endpoint that ignores `If-None-Match` is refused with kind `unsupported`).
   */
  readonly AWS_ENDPOINT_URL?: string;
  /** Allow a plain `http://` endpoint (boolean, default `false`). Alias: `ALLOW_HTTP`. */
  readonly AWS_ALLOW_HTTP?: string;
  /**
   * Address buckets as `endpoint/bucket` instead of `bucket.endpoint` (boolean). Default: `true` when
   * `AWS_ENDPOINT_URL` is set, else `false`.
   */
  readonly AWS_S3_FORCE_PATH_STYLE?: string;
  /**
   * Skip the one-time conditional-put probe of a custom endpoint (boolean, default `false`). Only for an
   * endpoint known to honour `If-None-Match`: on one that ignores it, two concurrent writers can both
   * believe they committed the same version.
   */
  readonly DELTALITE_SKIP_CONDITIONAL_PUT_PROBE?: string;
  /**
   * The base of each request's deadline, written as delta-rs writes its client `timeout`: whole numbers
   * with a unit, parts summed (`30s`, `500ms`, `2m 30s`; units ns, us, ms, s, m, h, d, w and their long
   * names). Wins over the `DELTALITE_REQUEST_TIMEOUT_MS` environment variable; default 30 s.
   */
  readonly TIMEOUT?: string;
  /** {@link StorageOptions.AWS_REGION} in delta-rs's lower-case spelling. */
  readonly aws_region?: string;
  /** {@link StorageOptions.AWS_ACCESS_KEY_ID} in delta-rs's lower-case spelling. */
  readonly aws_access_key_id?: string;
  /** {@link StorageOptions.AWS_SECRET_ACCESS_KEY} in delta-rs's lower-case spelling. */
  readonly aws_secret_access_key?: string;
  /** {@link StorageOptions.AWS_SESSION_TOKEN} in delta-rs's lower-case spelling. */
  readonly aws_session_token?: string;
  /** {@link StorageOptions.AWS_ENDPOINT_URL} in delta-rs's lower-case spelling. */
  readonly aws_endpoint_url?: string;
  /** {@link StorageOptions.AWS_ALLOW_HTTP} in delta-rs's lower-case spelling. */
  readonly aws_allow_http?: string;
  /** {@link StorageOptions.AWS_S3_FORCE_PATH_STYLE} in lower case. */
  readonly aws_s3_force_path_style?: string;
  /** {@link StorageOptions.TIMEOUT} in delta-rs's lower-case spelling. */
  readonly timeout?: string;
  /** Any other key (an alias, another spelling): accepted by the type, checked when the store opens. */
  readonly [key: string]: string | undefined;
}

export type Location =
  | { scheme: "file"; path: string }
  | { scheme: "memory"; name: string; prefix: string }
  | { scheme: "s3"; bucket: string; prefix: string };

/** Canonical option keys and the aliases (any case) that map to them. */
const OPTION_ALIASES: Record<string, readonly string[]> = {
  AWS_REGION: ["AWS_DEFAULT_REGION", "REGION"],
  AWS_ACCESS_KEY_ID: ["ACCESS_KEY_ID"],
  AWS_SECRET_ACCESS_KEY: ["SECRET_ACCESS_KEY"],
  AWS_SESSION_TOKEN: ["AWS_TOKEN", "SESSION_TOKEN", "TOKEN"],
  AWS_ENDPOINT_URL: ["AWS_ENDPOINT", "ENDPOINT", "ENDPOINT_URL"],
  AWS_ALLOW_HTTP: ["ALLOW_HTTP"],
  AWS_S3_FORCE_PATH_STYLE: [],
  DELTALITE_SKIP_CONDITIONAL_PUT_PROBE: [],
  /** delta-rs / object_store client `timeout` (a duration like "30s"): the base request deadline. */
  TIMEOUT: [],
};

const CANONICAL = new Map<string, string>();
for (const [key, aliases] of Object.entries(OPTION_ALIASES)) {
  CANONICAL.set(key, key);
  for (const alias of aliases) CANONICAL.set(alias, key);
}

/** Parses a table URI or plain path. Throws `invalid_path` for malformed or unsupported locations. */
export function parseLocation(uri: string): Location {
  if (typeof uri !== "string" || uri.trim() === "") {
    throw new DeltaLiteError("invalid_path", "table location is empty");
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(uri)?.[1]?.toLowerCase();
  if (scheme === undefined) return { scheme: "file", path: path.resolve(uri) };
  if (scheme === "file") {
    try {
      return { scheme: "file", path: fileURLToPath(uri) };
    } catch {
      throw new DeltaLiteError("invalid_path", `not a valid file URI: ${JSON.stringify(uri)}`);
    }
  }
  const rest = uri.slice(scheme.length + 3);
  const slash = rest.indexOf("/");
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const prefix = (slash < 0 ? "" : rest.slice(slash + 1)).replace(/\/+$/, "");
  if (authority.includes("@")) {
    // Never echo the URI: user info could be a credential.
    throw new DeltaLiteError(
      "invalid_path",
      `credentials in a ${scheme}:// URI are not allowed; use storage options`,
    );
  }
  if (prefix !== "") validateKey(prefix);
  if (scheme === "memory") return { scheme: "memory", name: authority, prefix };
  if (scheme === "s3" || scheme === "s3a") {
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(authority)) {
      throw new DeltaLiteError("invalid_path", `invalid S3 bucket name ${JSON.stringify(authority)}`);
    }
    return { scheme: "s3", bucket: authority, prefix };
  }
  throw new DeltaLiteError("unsupported", `unsupported URI scheme ${JSON.stringify(`${scheme}://`)}`);
}

/** Maps option keys to canonical upper-case names; throws on an unknown key (naming the key, not its value). */
export function normalizeStorageOptions(options: StorageOptions = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rawKey, value] of Object.entries(options)) {
    const key = CANONICAL.get(rawKey.toUpperCase());
    if (key === undefined) {
      throw new DeltaLiteInvalidArgumentError(
        `unknown storage option ${JSON.stringify(rawKey)}${didYouMean(rawKey.toUpperCase(), Object.keys(OPTION_ALIASES))}; known options: ${Object.keys(OPTION_ALIASES).join(", ")}`,
      );
    }
    if (typeof value !== "string") {
      throw new DeltaLiteInvalidArgumentError(`storage option ${key} must be a string`);
    }
    out[key] = value;
  }
  return out;
}

export interface OpenStoreOptions {
  storageOptions?: StorageOptions | undefined;
  /** Environment to read AWS_* and DELTALITE_* fallbacks from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /**
   * Per-request deadlines. Unset: on for `s3://`, off for `file://` and `memory://`. `true` or a (partial)
   * policy: on for any store, the given fields winning over the `timeout` storage option (base only), then
   * `DELTALITE_REQUEST_TIMEOUT_MS` / `DELTALITE_MIN_THROUGHPUT_BYTES_PER_SEC`, then 30 s and 1 MiB/s.
   * `false`: off.
   */
  requestTimeout?: Partial<RequestTimeoutPolicy> | boolean | undefined;
}

/** Opens the store for a table location; the S3 SDK is imported only when an `s3://` store is used. */
export function openStore(uri: string, options: OpenStoreOptions = {}): ObjectStore {
  const location = parseLocation(uri);
  const storage = normalizeStorageOptions(options.storageOptions);
  const env = options.env ?? process.env;
  const wanted = options.requestTimeout ?? location.scheme === "s3";
  const policy = wanted === false ? undefined : requestTimeoutPolicy(wanted, storage, env);
  const timed = (store: ObjectStore) => (policy ? new TimeoutStore(store, policy) : store);
  switch (location.scheme) {
    case "file":
      return timed(new LocalFileStore(location.path));
    case "memory": {
      const store = namedMemoryStore(location.name);
      return timed(location.prefix ? new PrefixedStore(store, location.prefix) : store);
    }
    case "s3":
      return new S3Store({ ...s3Config(location, storage, env), requestTimeout: policy });
  }
}

/** The request deadlines for `openStore`: explicit fields, then the `timeout` option, then the environment. */
function requestTimeoutPolicy(
  wanted: Partial<RequestTimeoutPolicy> | true,
  storage: Record<string, string>,
  env: Readonly<Record<string, string | undefined>>,
): RequestTimeoutPolicy {
  const explicit = wanted === true ? {} : wanted;
  const fromEnv = requestTimeoutPolicyFromEnv(env);
  const fromOption =
    storage.TIMEOUT === undefined ? undefined : parseDurationMs("storage option TIMEOUT", storage.TIMEOUT);
  return validateRequestTimeoutPolicy({
    baseMs: explicit.baseMs ?? fromOption ?? fromEnv.baseMs,
    minThroughputBytesPerSec: explicit.minThroughputBytesPerSec ?? fromEnv.minThroughputBytesPerSec,
  });
}

function s3Config(
  location: { bucket: string; prefix: string },
  storage: Record<string, string>,
  env: Readonly<Record<string, string | undefined>>,
): S3StoreConfig {
  const pick = (key: string, ...envKeys: string[]): string | undefined => {
    if (storage[key] !== undefined) return storage[key];
    for (const k of [key, ...envKeys]) if (env[k] !== undefined && env[k] !== "") return env[k];
    return undefined;
  };
  const endpoint = pick("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3");
  const allowHttp = parseBool("AWS_ALLOW_HTTP", pick("AWS_ALLOW_HTTP")) ?? false;
  if (endpoint !== undefined) {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new DeltaLiteInvalidArgumentError("AWS_ENDPOINT_URL is not a valid URL");
    }
    if (url.protocol === "http:" && !allowHttp) {
      throw new DeltaLiteInvalidArgumentError(
        "AWS_ENDPOINT_URL uses http://; set AWS_ALLOW_HTTP=true to allow it",
      );
    }
  }
  const accessKeyId = storage.AWS_ACCESS_KEY_ID;
  const secretAccessKey = storage.AWS_SECRET_ACCESS_KEY;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new DeltaLiteInvalidArgumentError(
      "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be given together",
    );
  }
  return {
    bucket: location.bucket,
    prefix: location.prefix,
    region: pick("AWS_REGION", "AWS_DEFAULT_REGION") ?? (endpoint ? "us-east-1" : undefined),
    endpoint,
    forcePathStyle:
      parseBool("AWS_S3_FORCE_PATH_STYLE", pick("AWS_S3_FORCE_PATH_STYLE")) ?? endpoint !== undefined,
    credentials:
      accessKeyId !== undefined && secretAccessKey !== undefined
        ? { accessKeyId, secretAccessKey, sessionToken: storage.AWS_SESSION_TOKEN }
        : undefined,
    skipConditionalPutProbe:
      parseBool("DELTALITE_SKIP_CONDITIONAL_PUT_PROBE", pick("DELTALITE_SKIP_CONDITIONAL_PUT_PROBE")) ??
      false,
  };
}

function parseBool(key: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === "true" || v === "1" || v === "yes") return true;
  if (v === "false" || v === "0" || v === "no") return false;
  throw new DeltaLiteInvalidArgumentError(`storage option ${key} must be true or false`);
}
