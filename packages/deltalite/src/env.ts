/**
 * Process-level defaults from environment variables (the original deltalite's names): the source guard, the
 * multipart / ranged-GET knobs of upserts and the permit-wait timeout. An explicit per-call option always wins; a malformed value is a
 * typed error naming the variable, never silently ignored.
 */
import { DeltaLiteError } from "@deltalite/errors";

const VARIABLES = {
  maxSourceBytes: "DELTALITE_MAX_SOURCE_BYTES",
  multipartThresholdBytes: "DELTALITE_MULTIPART_THRESHOLD_BYTES",
  multipartPartSizeBytes: "DELTALITE_MULTIPART_PART_SIZE_BYTES",
  multipartConcurrency: "DELTALITE_MULTIPART_CONCURRENCY",
  rangeGetPartSizeBytes: "DELTALITE_RANGE_GET_PART_SIZE_BYTES",
  rangeGetConcurrency: "DELTALITE_RANGE_GET_CONCURRENCY",
  permitWaitTimeoutMs: "DELTALITE_PERMIT_WAIT_TIMEOUT_MS",
} as const;

export type EnvKnobs = { -readonly [K in keyof typeof VARIABLES]?: number };

/** The knobs set in `env` (only those present). */
export function envKnobs(env: Readonly<Record<string, string | undefined>> = process.env): EnvKnobs {
  const out: EnvKnobs = {};
  for (const [option, variable] of Object.entries(VARIABLES) as [keyof EnvKnobs, string][]) {
    const raw = env[variable];
    if (raw === undefined || raw.trim() === "") continue;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new DeltaLiteError(
        "generic",
        `${variable} must be a non-negative integer (got ${JSON.stringify(raw)})`,
      );
    }
    out[option] = value;
  }
  return out;
}

/** `options` with every knob it leaves unset filled from the environment. */
export function withEnvDefaults<T extends object>(
  options: T,
  env?: Readonly<Record<string, string | undefined>>,
): T {
  const defaults = envKnobs(env);
  const merged = { ...options } as Record<string, unknown>;
  for (const [key, value] of Object.entries(defaults)) {
    if (merged[key] === undefined) merged[key] = value;
  }
  return merged as T;
}
