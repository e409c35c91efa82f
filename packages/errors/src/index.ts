/**
 * The one error hierarchy every deltalite package throws: a base class with a string `kind` from a closed
 * list, a `retryable` flag and an optional `cause`, plus the named subclasses of the public API. Callers
 * branch on `kind` (or `isDeltaLiteError`), never on messages or on `instanceof` across package copies.
 */

/**
 * The closed list of error kinds; every error deltalite throws carries one as `kind`. What each means:
 * - `generic`: anything without a more precise kind (also a commit whose outcome is unknown, see
 *   `DeltaLiteCommitOutcomeUnknownError`);
 * - `invalid_argument`: a bad option or argument (unknown name, value out of range, contradicting options);
 * - `schema_mismatch`: the data does not fit the table's schema;
 * - `not_found`: no table, object, version or bucket at the location;
 * - `unsupported`: a table feature or store behaviour this library does not handle;
 * - `conflict`: a concurrent writer won and the change could not be rebased;
 * - `source_too_large`: an upsert's source is larger than `maxSourceBytes`;
 * - `already_exists`: an atomic create found the object or table already there;
 * - `precondition_failed`: a conditional write (`ifMatch`) found another version;
 * - `permission_denied`: the store refused the credentials;
 * - `invalid_path`: a location or key that is malformed or leaves the table root;
 * - `not_implemented`: the store cannot do this operation (e.g. compare-and-swap on local disk);
 * - `corrupt_log`: the transaction log is missing versions or holds unreadable commits;
 * - `timeout`: a request, a wait for memory permits or a whole call ran out of time;
 * - `aborted`: the caller's `AbortSignal` fired.
 */
export const ERROR_KINDS = [
  "generic",
  "invalid_argument",
  "schema_mismatch",
  "not_found",
  "unsupported",
  "conflict",
  "source_too_large",
  "already_exists",
  "precondition_failed",
  "permission_denied",
  "invalid_path",
  "not_implemented",
  "corrupt_log",
  "timeout",
  "aborted",
] as const;

/** One of {@link ERROR_KINDS}: what went wrong, for callers to branch on. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

const BRAND: unique symbol = Symbol.for("deltalite.error") as never;

export interface DeltaLiteErrorOptions {
  /** True only for transient store errors, single-request timeouts and re-plannable conflicts. */
  retryable?: boolean;
  cause?: unknown;
}

/**
 * Base class of every error deltalite throws. Branch on `kind` (or use {@link hasErrorKind}); `retryable`
 * says whether the same call may succeed when tried again. Messages are for people and may change.
 */
export class DeltaLiteError extends Error {
  /** What went wrong, from the closed list {@link ERROR_KINDS}. */
  readonly kind: ErrorKind;
  /** True when the same call may succeed if tried again (transient store errors, timeouts, conflicts). */
  readonly retryable: boolean;
  readonly [BRAND] = true;

  constructor(kind: ErrorKind, message: string, options: DeltaLiteErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DeltaLiteError";
    this.kind = kind;
    this.retryable = options.retryable ?? false;
  }

  /** The stable JSON shape the CLI prints: `{ kind, message, retryable }`. */
  toJSON(): { kind: ErrorKind; message: string; retryable: boolean } {
    return { kind: this.kind, message: this.message, retryable: this.retryable };
  }
}

/** A commit lost to concurrent writers and could not be rebased; names the winning version. */
export class DeltaLiteCommitConflictError extends DeltaLiteError {
  /** The version the other writer committed, when known. */
  readonly winningVersion: number | undefined;
  constructor(message: string, options: DeltaLiteErrorOptions & { winningVersion?: number } = {}) {
    super("conflict", message, options);
    this.name = "DeltaLiteCommitConflictError";
    this.winningVersion = options.winningVersion;
  }
}

/**
 * A bad option or argument: an unknown name, a value out of range, options that contradict each other.
 * Never retryable (the same call fails the same way); the CLI exits 2 on it, as on a usage error.
 */
export class DeltaLiteInvalidArgumentError extends DeltaLiteError {
  constructor(message: string, options: DeltaLiteErrorOptions = {}) {
    super("invalid_argument", message, { ...options, retryable: false });
    this.name = "DeltaLiteInvalidArgumentError";
  }
}

/** The data does not fit the table's schema (extra columns, uncastable values, type changes). */
export class DeltaLiteSchemaMismatchError extends DeltaLiteError {
  constructor(message: string, options: DeltaLiteErrorOptions = {}) {
    super("schema_mismatch", message, options);
    this.name = "DeltaLiteSchemaMismatchError";
  }
}

/** No Delta table at the given location (no `_delta_log` with a commit). */
export class DeltaLiteTableNotFoundError extends DeltaLiteError {
  constructor(message: string, options: DeltaLiteErrorOptions = {}) {
    super("not_found", message, options);
    this.name = "DeltaLiteTableNotFoundError";
  }
}

/** The table uses a protocol feature this library cannot honour for the requested operation. */
export class DeltaLiteUnsupportedTableError extends DeltaLiteError {
  /** The protocol feature refused (e.g. `deletionVectors`), when one is named. */
  readonly feature: string | undefined;
  constructor(message: string, options: DeltaLiteErrorOptions & { feature?: string } = {}) {
    super("unsupported", message, options);
    this.name = "DeltaLiteUnsupportedTableError";
    this.feature = options.feature;
  }
}

/** The source batch is larger than the configured `maxSourceBytes` guard. */
export class DeltaLiteSourceTooLargeError extends DeltaLiteError {
  constructor(message: string, options: DeltaLiteErrorOptions = {}) {
    super("source_too_large", message, options);
    this.name = "DeltaLiteSourceTooLargeError";
  }
}

/**
 * A commit was sent, but the store never said whether it landed and reading the commit back could not tell
 * either (the store kept failing). Nothing was deleted: the data files the commit names stay, so the table
 * is whole either way (vacuum removes them if the commit did not land). Not retryable as it stands: reload
 * the table and look for `txnId` in the commitInfo of `version` before sending the same change again.
 */
export class DeltaLiteCommitOutcomeUnknownError extends DeltaLiteError {
  readonly commitOutcome = "unknown" as const;
  /** The version the commit was sent as. */
  readonly version: number;
  /** The `commitInfo.txnId` the commit carries (how to recognise it in the log). */
  readonly txnId: string;
  constructor(message: string, options: DeltaLiteErrorOptions & { version: number; txnId: string }) {
    super("generic", message, { ...options, retryable: false });
    this.name = "DeltaLiteCommitOutcomeUnknownError";
    this.version = options.version;
    this.txnId = options.txnId;
  }

  override toJSON(): ReturnType<DeltaLiteError["toJSON"]> & {
    commitOutcome: "unknown";
    version: number;
    txnId: string;
  } {
    return { ...super.toJSON(), commitOutcome: this.commitOutcome, version: this.version, txnId: this.txnId };
  }
}

/**
 * True when `value` says a commit's outcome is unknown (see `DeltaLiteCommitOutcomeUnknownError`): the
 * caller must keep the files that commit names. Judged by the error's fields, so it holds across copies.
 */
export function isCommitOutcomeUnknown(value: unknown): value is DeltaLiteCommitOutcomeUnknownError {
  return isDeltaLiteError(value) && (value as { commitOutcome?: unknown }).commitOutcome === "unknown";
}

/** True for any deltalite error, also across duplicated copies of this package. */
export function isDeltaLiteError(value: unknown): value is DeltaLiteError {
  return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}

/** True when `value` is a deltalite error of the given kind. */
export function hasErrorKind(value: unknown, kind: ErrorKind): value is DeltaLiteError {
  return isDeltaLiteError(value) && value.kind === kind;
}

/**
 * The closest of `candidates` to `name` when it is close enough to be a likely typo (edit distance at most
 * a third of the longer name, and at most 3; a case-only difference always counts), else undefined. For the
 * "did you mean" hint of errors that name an unknown column, option or partition. Kept here rather than as a
 * dependency because this package is the dependency-free leaf every other package imports.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const distance =
      candidate.toLowerCase() === name.toLowerCase() ? 0.5 : editDistance(name, candidate, bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.min(3, Math.max(1, Math.floor(Math.max(name.length, best.length) / 3)));
  return bestDistance <= limit ? best : undefined;
}

/** `" (did you mean \"x\"?)"` when `closestName` finds one, else the empty string: for appending to messages. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const hit = closestName(name, candidates);
  return hit === undefined ? "" : ` (did you mean ${JSON.stringify(hit)}?)`;
}

/**
 * Edit distance counting an insertion, deletion, substitution or swap of two neighbouring characters as one
 * edit (optimal string alignment), giving up (returning `stopAt`) once every cell of a row reaches `stopAt`.
 */
function editDistance(a: string, b: string, stopAt: number): number {
  if (Math.abs(a.length - b.length) >= stopAt) return stopAt;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, beforePrevious[j - 2]! + 1);
      }
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin >= stopAt) return stopAt;
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length]!;
}
