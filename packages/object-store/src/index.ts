/**
 * @deltalite/object-store: the storage boundary of deltalite. One small `ObjectStore` interface with an
 * atomic `create`, three implementations (local file system, in-memory, S3), URI and storage-option
 * parsing, and per-request deadlines (`TimeoutStore`, on by default for S3). The wrappers for tests (request
 * counting and fault injection) and the contract suite are in `@deltalite/object-store/testing`.
 */

export { asAsync, listAll } from "./collect.js";
export { compareUtf8, validateKey } from "./keys.js";
export { LOCAL_TEMP_PREFIX, LocalFileStore } from "./local.js";
export { InMemoryStore, namedMemoryStore } from "./memory.js";
export { PrefixedStore } from "./prefixed.js";
export {
  DEFAULT_REQUEST_TIMEOUT_POLICY,
  MIN_THROUGHPUT_ENV,
  parseDurationMs,
  REQUEST_TIMEOUT_ENV,
  REQUEST_TIMEOUT_FREE_BYTES,
  type RequestTimeoutPolicy,
  requestDeadlineMs,
  requestTimeoutPolicyFromEnv,
  type TimedRequest,
  TimeoutStore,
  validateRequestTimeoutPolicy,
  withRequestDeadline,
  withRequestTimeouts,
} from "./request-timeout.js";
export { S3Store, type S3StoreConfig } from "./s3.js";
export type {
  ByteRange,
  GetOptions,
  ListOptions,
  LocalFileTarget,
  MultipartPutOptions,
  ObjectMeta,
  ObjectStore,
  PutMode,
  PutOptions,
  PutResult,
  SignalOptions,
  StoreCapabilities,
  StoreMethod,
  TempSweepOptions,
} from "./types.js";
export {
  type Location,
  normalizeStorageOptions,
  type OpenStoreOptions,
  openStore,
  parseLocation,
  type StorageOptions,
} from "./uri.js";
