/** The JSON encoding of Arrow values (CLI output, `scan --format ndjson`), exact JSON text, CSV cells. */
export { batchToCsv, csvHeader } from "./csv.js";
export {
  base64,
  batchToJsonRows,
  batchToNdjson,
  dateText,
  decimal128At,
  decimalText,
  type ExactJsonValueReader,
  exactJsonValueReader,
  type JsonValue,
  type JsonValueReader,
  jsonFloat,
  jsonInt64,
  jsonValueReader,
  shortestFloat32,
  timestampText,
} from "./encode.js";
export { compactJsonText, type ExactJsonValue, RawJson, stringifyExact } from "./exact.js";
