/**
 * The CLI's frame: verb dispatch, `--version` / `--help`, option parsing (options.ts), storage options from
 * `--storage-option KEY=VALUE`, paths from the caller's directory (paths.ts), and the output contract:
 * - without `--json` the human-readable result goes to stdout; progress (TTY only) and diagnostics to stderr;
 * - with `--json` exactly one JSON document on stdout: the result, or `{"error": {"kind", "message",
 *   "retryable"}}` (plus `commitOutcome`, `version` and `txnId` when a commit's outcome is unknown), and a
 *   one-line message on stderr;
 * - exit 0 on success; 2 on a usage error or any `invalid_argument` error (the kind of every usage error);
 *   1 on an operational error.
 */
import { createRequire } from "node:module";
import { DeltaLiteInvalidArgumentError, didYouMean, hasErrorKind, isDeltaLiteError } from "@deltalite/errors";
import { stringifyExact } from "../json/index.js";
import { verbHelp } from "./help.js";
import { COMMON_OPTIONS, type OptionDefs, type OptionValues, parseOptions, wantsJson } from "./options.js";
import { resolveLocation } from "./paths.js";
import { createProgress, type Progress } from "./progress.js";

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** True when stderr is a terminal: the progress line is drawn only then. */
  isTTY: boolean;
  /** The directory relative paths resolve from (default: process.cwd()). */
  cwd?: string;
}

export interface VerbContext {
  /** Positional arguments after the verb (e.g. the table URI). */
  positionals: string[];
  values: OptionValues;
  storageOptions: Record<string, string>;
  json: boolean;
  io: CliIO;
  /** The caller's directory: where relative paths start. */
  cwd: string;
  /** A local path resolved from the caller's directory; a URI with a scheme as given. */
  resolve(location: string): string;
  progress: Progress;
}

export interface Verb {
  name: string;
  summary: string;
  /** The positional part of the usage line, e.g. "<uri>". */
  args: string;
  options: OptionDefs;
  /** Paragraphs `--help` prints after the options. */
  notes?: readonly string[];
  /** Returns the result object (printed as JSON with `--json`, else through `human`). */
  run(ctx: VerbContext): Promise<unknown>;
  human(result: unknown, ctx: VerbContext): string;
}

/** A usage error: invalid_argument (exit 2). */
export function usageError(message: string): DeltaLiteInvalidArgumentError {
  return new DeltaLiteInvalidArgumentError(message);
}

/** This package's version (its package.json, beside src/ and dist/). */
export function packageVersion(): string {
  return (createRequire(import.meta.url)("../../package.json") as { version: string }).version;
}

export function usageText(verbs: readonly Verb[]): string {
  const lines = ["usage: deltalite <verb> <uri> [options]", "", "verbs:"];
  const width = Math.max(...verbs.map((verb) => verb.name.length));
  for (const verb of verbs) lines.push(`  ${verb.name.padEnd(width)}  ${verb.summary}`);
  lines.push(
    "",
    "deltalite <verb> --help   a verb's options, with defaults and units",
    "deltalite --version       the version of deltalite",
    "common options: --json, --storage-option KEY=VALUE (repeatable), --help",
  );
  return `${lines.join("\n")}\n`;
}

/** Runs one CLI invocation; returns the exit code. */
export async function runCli(argv: readonly string[], verbs: readonly Verb[], io: CliIO): Promise<number> {
  const [verbName, ...rest] = argv;
  const json = wantsJson(argv);
  if (verbName === "--version" || verbName === "-V") {
    io.stdout(json ? `${JSON.stringify({ version: packageVersion() })}\n` : `${packageVersion()}\n`);
    return 0;
  }
  if (verbName === "--help" || verbName === "-h" || verbName === "help") {
    io.stdout(usageText(verbs));
    return 0;
  }
  const verb = verbs.find((v) => v.name === verbName);
  if (!verb) {
    const message =
      verbName === undefined || verbName.startsWith("-")
        ? `a verb is needed first${verbName === undefined ? "" : ` (got ${verbName})`}`
        : `unknown verb ${JSON.stringify(verbName)}${didYouMean(
            verbName,
            verbs.map((v) => v.name),
          )}`;
    return fail(io, "deltalite", new DeltaLiteInvalidArgumentError(message), json, usageText(verbs));
  }
  let ctx: VerbContext;
  try {
    const defs = { ...COMMON_OPTIONS, ...verb.options };
    const parsed = parseOptions(rest, defs);
    if (parsed.values.help === true) {
      io.stdout(verbHelp(verb, COMMON_OPTIONS));
      return 0;
    }
    ctx = contextOf(parsed.values, parsed.positionals, io);
  } catch (error) {
    return fail(io, `deltalite ${verb.name}`, error, json, verbHint(verb));
  }
  try {
    const result = await verb.run(ctx);
    ctx.progress.done();
    io.stdout(ctx.json ? `${stringifyExact(result)}\n` : verb.human(result, ctx));
    return 0;
  } catch (error) {
    ctx.progress.done();
    return fail(io, `deltalite ${verb.name}`, error, ctx.json, verbHint(verb));
  }
}

function contextOf(values: OptionValues, positionals: string[], io: CliIO): VerbContext {
  const cwd = io.cwd ?? process.cwd();
  return {
    positionals,
    values,
    storageOptions: parseStorageOptionFlags(values["storage-option"] as string[] | undefined),
    json: values.json === true,
    io,
    cwd,
    resolve: (location) => resolveLocation(location, cwd),
    progress: createProgress(io.stderr, io.isTTY),
  };
}

function verbHint(verb: Verb): string {
  return `usage: deltalite ${verb.name} ${verb.args} [options] (deltalite ${verb.name} --help lists them)\n`;
}

/** Prints an error per the contract; returns its exit code (2 for invalid_argument, else 1). */
function fail(io: CliIO, who: string, error: unknown, json: boolean, usage: string): number {
  const document = errorDocument(error);
  const usageMistake = hasErrorKind(error, "invalid_argument");
  if (json) io.stdout(`${JSON.stringify({ error: document })}\n`);
  const prefix = usageMistake ? "" : `${document.kind}: `;
  io.stderr(`${who}: ${prefix}${document.message.split("\n")[0]}\n`);
  if (usageMistake && !json) io.stderr(usage);
  return usageMistake ? 2 : 1;
}

/** The `error` member of the JSON error document: kind, message, retryable (and what the error adds). */
function errorDocument(error: unknown): { kind: string; message: string; retryable: boolean } {
  if (isDeltaLiteError(error)) return error.toJSON();
  const message = error instanceof Error ? error.message : String(error);
  return { kind: "generic", message, retryable: false };
}

function parseStorageOptionFlags(flags: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags ?? []) {
    const eq = flag.indexOf("=");
    if (eq <= 0) throw usageError(`--storage-option needs KEY=VALUE (got a value without '=')`);
    out[flag.slice(0, eq)] = flag.slice(eq + 1);
  }
  return out;
}
