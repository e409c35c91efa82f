/** Store-level error constructors: one place that words the common failures the same way for every store. */
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
