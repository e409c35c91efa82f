/**
 * How large a data file an engine may pass through to the encoder worker undecoded (fetched whole, held until
 * the worker has decoded it): an environment variable of bytes per engine (0: never), else 64 MiB, and never
 * above the call's fetch budget (the whole file is admitted under it).
 */
import { DeltaLiteInvalidArgumentError } from "@deltalite/errors";

/** The default passthrough limit: a larger file is decoded in JS. */
export const DEFAULT_PASSTHROUGH_MAX_BYTES = 64 * 1024 * 1024;

/** The passthrough limit `variable` sets for a call whose fetch budget is `maxFetchBytes` (module comment). */
export function passthroughMaxBytes(
  variable: string,
  maxFetchBytes: number,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const raw = env[variable]?.trim();
  let limit = DEFAULT_PASSTHROUGH_MAX_BYTES;
  if (raw !== undefined && raw !== "") {
    limit = Number(raw);
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new DeltaLiteInvalidArgumentError(
        `${variable} must be a non-negative integer of bytes (got ${JSON.stringify(raw)})`,
      );
    }
  }
  return Math.min(limit, maxFetchBytes);
}
