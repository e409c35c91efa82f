/**
 * Store-level error constructors: one place that words the common failures the same way for every store,
 * plus the words for S3's own failures (missing bucket, credentials, unreachable endpoint) that s3.ts picks.
 */
import { DeltaLiteError } from "@deltalite/errors";

export function notFound(root: string, key: string, cause?: unknown): DeltaLiteError {
  return new DeltaLiteError("not_found", `object not found: ${joinDisplay(root, key)}`, { cause });
}

export function alreadyExists(root: string, key: string): DeltaLiteError {
  return new DeltaLiteError("already_exists", `object already exists: ${joinDisplay(root, key)}`);
}

export function preconditionFailed(root: string, key: string): DeltaLiteError {
  return new DeltaLiteError(
    "precondition_failed",
    `object changed since it was read (etag mismatch): ${joinDisplay(root, key)}`,
  );
}

export function aborted(root: string, key: string): DeltaLiteError {
  return new DeltaLiteError("aborted", `operation aborted: ${joinDisplay(root, key)}`);
}

export function throwIfAborted(signal: AbortSignal | undefined, root: string, key: string): void {
  if (signal?.aborted) throw aborted(root, key);
}

export function joinDisplay(root: string, key: string): string {
  return root.endsWith("/") ? `${root}${key}` : `${root}/${key}`;
}

/**
 * An S3 endpoint as it may be shown to users: the configured URL without user info or query (a URL can
 * carry credentials), else AWS's own endpoint for the region.
 */
export function displayEndpoint(endpoint: string | undefined, region: string | undefined): string {
  if (endpoint === undefined) return `AWS S3 (region ${region ?? "from the AWS configuration"})`;
  try {
    const url = new URL(endpoint);
    return `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`;
  } catch {
    return "the configured AWS_ENDPOINT_URL";
  }
}

export function bucketNotFound(bucket: string, endpoint: string, cause?: unknown): DeltaLiteError {
  return new DeltaLiteError(
    "not_found",
    `S3 bucket ${JSON.stringify(bucket)} does not exist at ${endpoint}: create it, or check the bucket name in the table URI and AWS_ENDPOINT_URL / AWS_REGION`,
    { cause },
  );
}

/** The storage options and variables that give S3 credentials, for messages that say what to set. */
const CREDENTIAL_HINT =
  "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (plus AWS_SESSION_TOKEN for temporary credentials) in the " +
  "environment or as storage options (aws_access_key_id / aws_secret_access_key, any case), or name a profile " +
  "with AWS_PROFILE";

export function missingCredentials(root: string, cause?: unknown): DeltaLiteError {
  return new DeltaLiteError("permission_denied", `no AWS credentials found for ${root}: ${CREDENTIAL_HINT}`, {
    cause,
  });
}

export function credentialsRefused(what: string, why: string, cause?: unknown): DeltaLiteError {
  return new DeltaLiteError("permission_denied", `${what} was refused: ${why}`, { cause });
}

/** Network failures by Node's error code: what to tell the user, and whether trying again may help. */
const NETWORK_FAILURES: Record<string, { words: string; retryable: boolean }> = {
  ECONNREFUSED: { words: "connection refused (is the server running on that port?)", retryable: true },
  ENOTFOUND: { words: "host name not found (check the endpoint's spelling and DNS)", retryable: false },
  EAI_AGAIN: { words: "host name lookup failed for now (DNS)", retryable: true },
  ECONNRESET: { words: "connection reset by the server", retryable: true },
  EPIPE: { words: "connection closed by the server", retryable: true },
  ETIMEDOUT: { words: "connection timed out", retryable: true },
  EHOSTUNREACH: { words: "host unreachable", retryable: true },
  ENETUNREACH: { words: "network unreachable", retryable: true },
  TimeoutError: { words: "no answer in time", retryable: true },
};

/** The unreachable-endpoint error for a Node network error code, or undefined when `code` is not one. */
export function endpointUnreachable(
  code: string,
  what: string,
  endpoint: string,
  cause?: unknown,
): DeltaLiteError | undefined {
  const failure = NETWORK_FAILURES[code];
  if (failure === undefined) return undefined;
  const kind = code === "ETIMEDOUT" || code === "TimeoutError" ? "timeout" : "generic";
  return new DeltaLiteError(kind, `${what} could not reach the S3 endpoint ${endpoint}: ${failure.words}`, {
    cause,
    retryable: failure.retryable,
  });
}

/** S3: permission_denied in words for missing, unknown or mismatched credentials and refused access. */
export function credentialError(
  code: string,
  status: number | undefined,
  what: string,
  root: string,
  cause: unknown,
): DeltaLiteError | undefined {
  if (code === "CredentialsProviderError") return missingCredentials(root, cause);
  if (code === "InvalidAccessKeyId") {
    return credentialsRefused(
      what,
      "the endpoint does not know the access key id (check AWS_ACCESS_KEY_ID)",
      cause,
    );
  }
  if (code === "SignatureDoesNotMatch") {
    return credentialsRefused(
      what,
      "the secret access key does not match the access key id (check AWS_SECRET_ACCESS_KEY)",
      cause,
    );
  }
  if (code === "ExpiredToken" || code === "TokenRefreshRequired") {
    return credentialsRefused(what, "the session token has expired (renew AWS_SESSION_TOKEN)", cause);
  }
  if (status === 403 || code === "AccessDenied") {
    return credentialsRefused(
      what,
      "access denied: the credentials lack permission for this bucket or key",
      cause,
    );
  }
  return undefined;
}

/** The Node network error code of a failed request (also inside an AggregateError or a wrapped cause). */
export function networkCode(error: unknown): string | undefined {
  for (
    let e = error as { code?: unknown; cause?: unknown; errors?: unknown[] } | undefined, depth = 0;
    e && depth < 4;
    depth++
  ) {
    if (typeof e.code === "string" && /^E[A-Z_]+$/.test(e.code)) return e.code;
    const inner = Array.isArray(e.errors) ? e.errors[0] : e.cause;
    e = inner as typeof e;
  }
  return undefined;
}

/** What the server said, without letting a bare SDK class name stand for the problem. */
export function serverWords(error: unknown, code: string): string {
  const message = (error as { message?: unknown })?.message;
  const text =
    typeof message === "string" && message !== "" && message !== code && message !== "UnknownError"
      ? message
      : "";
  if (code === "UnknownError") return text || "the endpoint gave no reason";
  return text ? `${text} (${code})` : `the endpoint answered with error code ${code}`;
}
