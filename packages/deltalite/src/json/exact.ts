/**
 * Exact JSON text: values that JSON.parse / JSON.stringify would round through a double. `RawJson` carries
 * JSON text that is written as it is — an int64 with all its digits, Add stats as the log holds them — and
 * `stringifyExact` writes a value holding such pieces (and bigints, as numbers with every digit) as compact
 * JSON. `compactJsonText` checks that text from elsewhere (a log's stats string) is one JSON document and
 * drops the whitespace between its tokens, keeping every digit and every string byte as they are.
 */

/** JSON text written verbatim by `stringifyExact` (must be one valid JSON value). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A JSON value that may hold exact pieces (`RawJson`, bigint). */
export type ExactJsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | RawJson
  | ExactJsonValue[]
  | { [key: string]: ExactJsonValue };

/** Compact JSON of `value`, like JSON.stringify, except `RawJson` as its text and bigints as exact numbers. */
export function stringifyExact(value: unknown): string {
  return write(value) ?? "null";
}

function write(value: unknown): string | undefined {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "bigint":
      return value.toString();
    case "object":
      return writeObject(value as object);
    default:
      return undefined; // undefined, functions, symbols: left out, as JSON.stringify does
  }
}

function writeObject(value: object): string {
  if (value instanceof RawJson) return value.text;
  const withToJSON = value as { toJSON?: () => unknown };
  if (typeof withToJSON.toJSON === "function") return write(withToJSON.toJSON()) ?? "null";
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? "null").join(",")}]`;
  const parts: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    const text = write(item);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(",")}}`;
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);

/**
 * `text` without whitespace between tokens, or undefined when it is not one JSON document. Numbers and
 * strings are kept byte for byte (JSON.parse only checks validity here; its lossy result is not used).
 */
export function compactJsonText(text: string): string | undefined {
  try {
    JSON.parse(text);
  } catch {
    return undefined;
  }
  let out = "";
  let inString = false;
  let escaped = false;
  for (const char of text) {
    if (inString) {
      out += char;
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
    } else if (!WHITESPACE.has(char)) {
      out += char;
      if (char === '"') inString = true;
    }
  }
  return out;
}
