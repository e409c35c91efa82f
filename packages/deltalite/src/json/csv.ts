/**
 * CSV text of Arrow batches (`scan --format csv`), RFC 4180: a header row of column names, CRLF after every
 * record, a field quoted (with `"` doubled) when it holds a comma, a quote, CR or LF. Cell rules:
 * - null → an empty, unquoted field; an empty string → `""` (so the two stay apart);
 * - every other value → its JSON text form (json/encode.ts) without JSON quoting: numbers as JSON prints them (int64 with
 *   every digit), booleans `true` / `false`, NaN / Infinity as those words, decimals, dates and timestamps
 *   as their text, binary as base64;
 * - struct, list and map values → their JSON text (as in NDJSON), quoted as CSV needs.
 */
import type { RecordBatch, Schema } from "apache-arrow";
import { exactJsonValueReader } from "./encode.js";
import { type ExactJsonValue, stringifyExact } from "./exact.js";

const NEEDS_QUOTES = /[",\r\n]/;

function quoted(text: string): string {
  return NEEDS_QUOTES.test(text) || text === "" ? `"${text.replaceAll('"', '""')}"` : text;
}

function cell(value: ExactJsonValue): string {
  if (value === null) return "";
  if (typeof value === "string") return quoted(value);
  if (typeof value === "object") return quoted(stringifyExact(value));
  return String(value);
}

/** The header record: the column names. */
export function csvHeader(schema: Schema): string {
  return `${schema.fields.map((f) => quoted(f.name)).join(",")}\r\n`;
}

/** The rows of `batch` as CSV records (no header). */
export function batchToCsv(batch: RecordBatch): string {
  const readers = batch.schema.fields.map((f) => exactJsonValueReader(f.type));
  const columns = batch.data.children;
  let out = "";
  for (let i = 0; i < batch.numRows; i++) {
    let line = "";
    for (let c = 0; c < readers.length; c++) {
      if (c > 0) line += ",";
      line += cell(readers[c]!(columns[c]!, i));
    }
    out += `${line}\r\n`;
  }
  return out;
}
