/**
 * Reading a verb's option values: the table URI, strings, counts, byte sizes (units.ts), lists,
 * `KEY=VALUE` entries, choices, a scan filter and an exactly-once batch id (`--txn-app-id` / `--txn-version`)
 * — each mistake an invalid_argument naming the flag.
 */
import type { ScanFilterCondition } from "@deltalite/data-files";
import type { AppTransaction } from "@deltalite/delta-log";
import { didYouMean } from "@deltalite/errors";
import { usageError, type VerbContext } from "./framework.js";
import type { OptionDefs } from "./options.js";
import { parseByteSize, parseCount } from "./units.js";

/** The single table URI a verb takes (a local path resolved from the caller's directory). */
export function requireUri(ctx: VerbContext): string {
  const [uri, ...extra] = ctx.positionals;
  if (uri === undefined || uri === "")
    throw usageError("missing table URI (a local path or s3://bucket/path)");
  if (extra.length > 0) throw usageError(`unexpected arguments: ${extra.join(" ")}`);
  return ctx.resolve(uri);
}

/** A non-negative integer option (digits only); undefined when absent. */
export function countFlag(ctx: VerbContext, name: string): number | undefined {
  const raw = stringFlag(ctx, name);
  return raw === undefined ? undefined : parseCount(raw, `--${name}`);
}

/** A byte-size option (`64MiB`, `1GB`, `1048576`); undefined when absent. */
export function bytesFlag(ctx: VerbContext, name: string): number | undefined {
  const raw = stringFlag(ctx, name);
  return raw === undefined ? undefined : parseByteSize(raw, `--${name}`);
}

/** A string option's value, or undefined when absent. */
export function stringFlag(ctx: VerbContext, name: string): string | undefined {
  const raw = ctx.values[name];
  return typeof raw === "string" ? raw : undefined;
}

/** Parses a comma-separated list option ("a,b"); undefined when absent, an error on empty items. */
export function listFlag(ctx: VerbContext, name: string): string[] | undefined {
  const raw = stringFlag(ctx, name);
  if (raw === undefined) return undefined;
  const items = raw.split(",").map((c) => c.trim());
  if (items.some((c) => c === "")) throw usageError(`--${name} needs a comma-separated list of names`);
  return items;
}

/** `KEY=VALUE` entries of a repeatable option, in the order given (a key may repeat). */
export function keyValueEntries(ctx: VerbContext, name: string): [string, string][] {
  return ((ctx.values[name] as string[] | undefined) ?? []).map((entry) => {
    const eq = entry.indexOf("=");
    if (eq <= 0) throw usageError(`--${name} needs KEY=VALUE (got ${JSON.stringify(entry)})`);
    return [entry.slice(0, eq), entry.slice(eq + 1)];
  });
}

/** `KEY=VALUE` entries of a repeatable option as an object (a repeated key keeps its last value). */
export function keyValueFlag(ctx: VerbContext, name: string): Record<string, string> {
  return Object.fromEntries(keyValueEntries(ctx, name));
}

/** One of `choices` (undefined when absent), or an invalid_argument naming them. */
export function choiceFlag<T extends string>(
  ctx: VerbContext,
  name: string,
  choices: readonly T[],
): T | undefined {
  const raw = stringFlag(ctx, name);
  if (raw === undefined || (choices as readonly string[]).includes(raw)) return raw as T | undefined;
  throw usageError(
    `--${name} must be one of ${choices.join(", ")} (got ${JSON.stringify(raw)})${didYouMean(String(raw), choices)}`,
  );
}

/** A `--filter` JSON list of `{column, op, value}` conditions; undefined when absent. */
export function filterFlag(ctx: VerbContext, name: string): ScanFilterCondition[] | undefined {
  const raw = stringFlag(ctx, name);
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw usageError(
      `--${name} needs a JSON list of conditions, e.g. [{"column":"id","op":"ge","value":10}]`,
    );
  }
  if (!Array.isArray(value) || value.some((c) => typeof c !== "object" || c === null || Array.isArray(c))) {
    throw usageError(`--${name} needs a JSON list of {column, op, value} objects`);
  }
  return value as ScanFilterCondition[];
}

/** The exactly-once options of write, upsert, delete and history-upsert. */
export const TXN_OPTIONS: OptionDefs = {
  "txn-app-id": {
    type: "string",
    value: "ID",
    description: "exactly-once: the application id whose batch this is (with --txn-version)",
  },
  "txn-version": {
    type: "string",
    value: "N",
    description: "exactly-once: the batch number; skipped when ID already committed N or later",
  },
};

/** `--txn-app-id ID --txn-version N` (both or neither) as the call's `txn`. */
export function txnFlag(ctx: VerbContext): { txn?: AppTransaction } {
  const appId = stringFlag(ctx, "txn-app-id");
  const version = countFlag(ctx, "txn-version");
  if (appId === undefined && version === undefined) return {};
  if (appId === undefined || version === undefined) {
    throw usageError("--txn-app-id and --txn-version go together");
  }
  return { txn: { appId, version } };
}
