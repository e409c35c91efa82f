/** The §7 JSON encoding of Arrow values (CLI output, `scan --format ndjson`). */
export {
  base64,
  batchToJsonRows,
  batchToNdjson,
  dateText,
  decimal128At,
  decimalText,
  type JsonValue,
  type JsonValueReader,
  jsonFloat,
  jsonInt64,
  jsonValueReader,
  shortestFloat32,
  timestampText,
} from "./encode.js";
