/**
 * The process-wide budgets (seed names and defaults): partitions 8, files 16, buffered 256 MiB, fetch 256 MiB,
 * from DELTALITE_PROCESS_MAX_PARALLEL_PARTITIONS / _FILES / _BUFFERED_BYTES / _FETCH_BYTES, and
 * `limitsSnapshot()` in the original deltalite's units. Callers acquire in one fixed order — partitions, files, buffer,
 * fetch — so two calls can never hold each other's next budget.
 */
import { DeltaLiteInvalidArgumentError } from "@deltalite/errors";
import { Budget, type BudgetSnapshot } from "./budget.js";

const MIB = 1024 * 1024;

export const PROCESS_BUDGET_DEFAULTS = {
  partitions: 8,
  files: 16,
  bufferedBytes: 256 * MIB,
  fetchBytes: 256 * MIB,
} as const;

function fromEnv(
  variable: string,
  fallback: number,
  env: Readonly<Record<string, string | undefined>>,
): number {
  const raw = env[variable];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new DeltaLiteInvalidArgumentError(
      `${variable} must be a positive integer (got ${JSON.stringify(raw)})`,
    );
  }
  return value;
}

export interface ProcessBudgets {
  partitions: Budget;
  files: Budget;
  /** Decoded bytes in flight, counted in KiB. */
  buffer: Budget;
  /** Compressed bytes fetched before decode, counted in KiB. */
  fetch: Budget;
}

/** Budgets sized from `env` (process.env by default). */
export function createProcessBudgets(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ProcessBudgets {
  const kib = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
  return {
    partitions: new Budget(
      "partitions",
      fromEnv("DELTALITE_PROCESS_MAX_PARALLEL_PARTITIONS", PROCESS_BUDGET_DEFAULTS.partitions, env),
    ),
    files: new Budget(
      "files",
      fromEnv("DELTALITE_PROCESS_MAX_PARALLEL_FILES", PROCESS_BUDGET_DEFAULTS.files, env),
    ),
    buffer: new Budget(
      "bufferKb",
      kib(fromEnv("DELTALITE_PROCESS_MAX_BUFFERED_BYTES", PROCESS_BUDGET_DEFAULTS.bufferedBytes, env)),
    ),
    fetch: new Budget(
      "fetchKb",
      kib(fromEnv("DELTALITE_PROCESS_MAX_FETCH_BYTES", PROCESS_BUDGET_DEFAULTS.fetchBytes, env)),
    ),
  };
}

let processBudgets: ProcessBudgets | undefined;

/** The one set of process-wide budgets (created from the environment on first use). */
export function globalBudgets(): ProcessBudgets {
  processBudgets ??= createProcessBudgets();
  return processBudgets;
}

export interface LimitsSnapshot {
  partitions: BudgetSnapshot;
  files: BudgetSnapshot;
  bufferKb: BudgetSnapshot;
  fetchKb: BudgetSnapshot;
}

/** Free and total permits and waiters of each process-wide budget: no I/O, no lock. */
export function limitsSnapshot(budgets: ProcessBudgets = globalBudgets()): LimitsSnapshot {
  return {
    partitions: budgets.partitions.snapshot(),
    files: budgets.files.snapshot(),
    bufferKb: budgets.buffer.snapshot(),
    fetchKb: budgets.fetch.snapshot(),
  };
}
