/**
 * CLI option definitions and their parsing. A verb declares each option once — type, value placeholder,
 * default, description — and the same record drives parsing (node:util parseArgs' tokens, with our own
 * messages: an unknown option gets "did you mean", a missing value names the option) and `--help`.
 * Every mistake is a `DeltaLiteInvalidArgumentError` (exit 2).
 */
import { parseArgs } from "node:util";
import { DeltaLiteInvalidArgumentError, didYouMean } from "@deltalite/errors";

export interface OptionDef {
  type: "string" | "boolean";
  /** Repeatable: the values collect into a list. */
  multiple?: boolean;
  /** One-letter alias (`-o`). */
  short?: string;
  /** The value's placeholder in help: N, BYTES, FILE, ISO... */
  value?: string;
  /** Applied when the option is absent, and shown by `--help`. */
  default?: string;
  description: string;
}

export type OptionDefs = Record<string, OptionDef>;

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

/** Options every verb takes. */
export const COMMON_OPTIONS: OptionDefs = {
  json: {
    type: "boolean",
    description: "print exactly one JSON document on stdout (the result or the error)",
  },
  "storage-option": {
    type: "string",
    multiple: true,
    value: "KEY=VALUE",
    description: "a storage option, e.g. AWS_REGION=eu-west-1; AWS_* variables also apply",
  },
  help: { type: "boolean", short: "h", description: "show this help" },
};

export interface ParsedArgs {
  values: OptionValues;
  positionals: string[];
}

function invalid(message: string): DeltaLiteInvalidArgumentError {
  return new DeltaLiteInvalidArgumentError(message);
}

/** Parses `args` against `defs`; throws invalid_argument with our wording on any mistake. */
export function parseOptions(args: readonly string[], defs: OptionDefs): ParsedArgs {
  const config = Object.fromEntries(
    Object.entries(defs).map(([name, def]) => [
      name,
      {
        type: def.type,
        ...(def.short ? { short: def.short } : {}),
        ...(def.multiple ? { multiple: true } : {}),
      },
    ]),
  );
  const { tokens } = parseArgs({
    args: [...args],
    options: config,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const values: OptionValues = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === "positional") positionals.push(token.value);
    if (token.kind !== "option") continue;
    const def = defs[token.name];
    if (!def) {
      const names = Object.keys(defs).map((n) => `--${n}`);
      throw invalid(`unknown option ${token.rawName}${didYouMean(`--${token.name}`, names)}`);
    }
    const value = optionValue(token.rawName, def, token.value, token.inlineValue);
    if (def.multiple)
      values[token.name] = [...((values[token.name] as string[] | undefined) ?? []), value as string];
    else values[token.name] = value;
  }
  for (const [name, def] of Object.entries(defs)) {
    if (values[name] !== undefined) continue;
    if (def.default !== undefined) values[name] = def.default;
    else if (def.type === "boolean") values[name] = false;
  }
  return { values, positionals };
}

function optionValue(
  rawName: string,
  def: OptionDef,
  value: string | undefined,
  inline: boolean | undefined,
): string | boolean {
  if (def.type === "boolean") {
    if (value !== undefined) throw invalid(`${rawName} takes no value (got ${JSON.stringify(value)})`);
    return true;
  }
  const placeholder = def.value ?? "VALUE";
  if (value === undefined) throw invalid(`${rawName} needs a value (${rawName} ${placeholder})`);
  // `--input --json`: the next word is an option, so the value is missing (a value may start with one '-').
  if (!inline && value.startsWith("--")) {
    throw invalid(`${rawName} needs a value (${rawName} ${placeholder}), got the option ${value}`);
  }
  return value;
}

/** True when `args` ask for JSON output (before a `--` terminator), even when they do not parse. */
export function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).includes("--json");
}
