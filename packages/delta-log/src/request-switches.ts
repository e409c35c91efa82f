/**
 * The switches of the log-request economy (the seed's "Log requests" and "Checkpoint prefetch" sections): each
 * is on by default and turned off by `0`, `false`, `off` or `no` (trimmed, any case), which restores the
 * requests made without it exactly. Read once per operation from the environment so a test can flip them.
 */
import { DeltaLiteError } from "@deltalite/errors";

/** Environment variables by name (`process.env` by default). */
export type RequestSwitchEnv = Readonly<Record<string, string | undefined>>;

/** The switches, by the name the code asks for. */
export type RequestSwitchName =
  | "probeRefresh"
  | "optimisticCommitVersion"
  | "commitJsonCache"
  | "smallFileSingleGet"
  | "adoptCommitSnapshot";

const SWITCHES: Readonly<Record<RequestSwitchName, string>> = {
  probeRefresh: "DELTALITE_PROBE_REFRESH",
  optimisticCommitVersion: "DELTALITE_OPTIMISTIC_COMMIT_VERSION",
  commitJsonCache: "DELTALITE_COMMIT_JSON_CACHE",
  smallFileSingleGet: "DELTALITE_SMALL_FILE_SINGLE_GET",
  adoptCommitSnapshot: "DELTALITE_ADOPT_COMMIT_SNAPSHOT",
};

const OFF_WORDS = new Set(["0", "false", "off", "no"]);

/** The checkpoint prefetch cap when `DELTALITE_CHECKPOINT_PREFETCH_MAX_BYTES` is unset: 128 MiB. */
export const DEFAULT_CHECKPOINT_PREFETCH_MAX_BYTES = 128 * 1024 * 1024;

/** Whether the named switch is on in `env` (unset or any value but an off word → on). */
export function requestSwitchOn(name: RequestSwitchName, env: RequestSwitchEnv = process.env): boolean {
  const raw = env[SWITCHES[name]];
  if (raw === undefined) return true;
  return !OFF_WORDS.has(raw.trim().toLowerCase());
}

/** The checkpoint prefetch cap in bytes; 0 disables the prefetch. A malformed value is a typed error. */
export function checkpointPrefetchMaxBytes(env: RequestSwitchEnv = process.env): number {
  const variable = "DELTALITE_CHECKPOINT_PREFETCH_MAX_BYTES";
  const raw = env[variable];
  if (raw === undefined || raw.trim() === "") return DEFAULT_CHECKPOINT_PREFETCH_MAX_BYTES;
  const value = Number(raw.trim());
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new DeltaLiteError(
      "invalid_argument",
      `${variable} must be a non-negative integer of bytes (got ${JSON.stringify(raw)})`,
    );
  }
  return value;
}
