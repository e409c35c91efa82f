/**
 * The CLI's frame: verb dispatch, option parsing (node:util parseArgs), storage options from
 * `--storage-option KEY=VALUE`, and the output contract of SPEC §3a — with `--json` exactly one JSON
 * document on stdout; human output and progress on stderr; exit 0 on success, 2 on a usage error, 1 on an
 * operational error (printed as `{"error": {"kind", "message", "retryable"}}` with `--json` — plus
 * `commitOutcome`, `version` and `txnId` when a commit's outcome is unknown — and one line on stderr).
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { isDeltaLiteError } from "@deltalite/errors";

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** True when stderr is a terminal: progress lines are shown only then. */
  isTTY: boolean;
}

type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

export interface VerbContext {
  /** Positional arguments after the verb (e.g. the table URI). */
  positionals: string[];
  values: Record<string, string | boolean | string[] | undefined>;
  storageOptions: Record<string, string>;
  json: boolean;
  io: CliIO;
  /** A progress line on stderr, only on a TTY. */
  progress(text: string): void;
}

export interface Verb {
  name: string;
  summary: string;
  usage: string;
  options: OptionSpec;
  /** Returns the result object (printed as JSON with `--json`, else through `human`). */
  run(ctx: VerbContext): Promise<unknown>;
  human?(result: unknown, ctx: VerbContext): string;
}

export class UsageError extends Error {}

const COMMON_OPTIONS: OptionSpec = {
  json: { type: "boolean", default: false },
  "storage-option": { type: "string", multiple: true },
  help: { type: "boolean", short: "h", default: false },
};

export function usageText(verbs: readonly Verb[]): string {
  const lines = ["usage: deltalite <verb> <uri> [options]", "", "verbs:"];
  for (const verb of verbs) lines.push(`  ${verb.name.padEnd(16)} ${verb.summary}`);
  lines.push("", "common options: --json, --storage-option KEY=VALUE (repeatable), --help");
  return `${lines.join("\n")}\n`;
}

/** Runs one CLI invocation; returns the exit code. */
export async function runCli(argv: readonly string[], verbs: readonly Verb[], io: CliIO): Promise<number> {
  const [verbName, ...rest] = argv;
  if (verbName === undefined || verbName === "--help" || verbName === "-h" || verbName === "help") {
    io.stderr(usageText(verbs));
    return verbName === undefined ? 2 : 0;
  }
  const verb = verbs.find((v) => v.name === verbName);
  if (!verb) {
    io.stderr(`deltalite: unknown verb ${JSON.stringify(verbName)}\n${usageText(verbs)}`);
    return 2;
  }
  let ctx: VerbContext;
  try {
    const parsed = parseArgs({
      args: [...rest],
      options: { ...COMMON_OPTIONS, ...verb.options },
      allowPositionals: true,
      strict: true,
    });
    if (parsed.values.help) {
      io.stderr(`usage: ${verb.usage}\n`);
      return 0;
    }
    ctx = {
      positionals: parsed.positionals,
      values: parsed.values as VerbContext["values"],
      storageOptions: parseStorageOptionFlags(parsed.values["storage-option"] as string[] | undefined),
      json: parsed.values.json === true,
      io,
      progress: (text) => {
        if (io.isTTY) io.stderr(`\r${text}`);
      },
    };
  } catch (error) {
    io.stderr(`deltalite ${verb.name}: ${(error as Error).message}\nusage: ${verb.usage}\n`);
    return 2;
  }
  try {
    const result = await verb.run(ctx);
    if (ctx.json) io.stdout(`${JSON.stringify(result)}\n`);
    else io.stderr(verb.human ? verb.human(result, ctx) : `${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`deltalite ${verb.name}: ${error.message}\nusage: ${verb.usage}\n`);
      return 2;
    }
    const document = errorDocument(error);
    if (ctx.json) io.stdout(`${JSON.stringify({ error: document })}\n`);
    io.stderr(`deltalite ${verb.name}: ${document.kind}: ${document.message.split("\n")[0]}\n`);
    return 1;
  }
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
    if (eq <= 0) throw new UsageError(`--storage-option needs KEY=VALUE (got a value without '=')`);
    out[flag.slice(0, eq)] = flag.slice(eq + 1);
  }
  return out;
}

/** The single table URI a verb takes; a usage error otherwise. */
export function requireUri(ctx: VerbContext): string {
  const [uri, ...extra] = ctx.positionals;
  if (uri === undefined) throw new UsageError("missing table URI");
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  return uri;
}

/** Parses a non-negative integer flag; a usage error otherwise. */
export function integerFlag(ctx: VerbContext, name: string): number | undefined {
  const raw = ctx.values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== "string" || !Number.isSafeInteger(n) || n < 0) {
    throw new UsageError(`--${name} needs a non-negative integer`);
  }
  return n;
}
