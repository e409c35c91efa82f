/**
 * Delta schema JSON (PROTOCOL.md "Schema Serialization Format") and its mapping to and from apache-arrow
 * schemas: every primitive type, decimal(p,s), timestamp (UTC) / timestamp_ntz, date, binary, struct,
 * array, map, nullability and field metadata. Delta → Arrow → Delta is the identity.
 *
 * Arrow field metadata holds strings only, Delta's holds any JSON value: a string value is stored as-is
 * unless it would itself parse as JSON, every other value (and such a string) is stored as its JSON text,
 * and reading back parses what parses. That keeps the round trip exact and plain strings readable.
 */
import { DeltaLiteError } from "@deltalite/errors";
import {
  Binary,
  Bool,
  type DataType,
  DateDay,
  Decimal,
  Field,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  List,
  Map_,
  Schema,
  Struct,
  TimestampMicrosecond,
  Type,
  Utf8,
} from "apache-arrow";

export const PRIMITIVE_TYPES = [
  "string",
  "long",
  "integer",
  "short",
  "byte",
  "float",
  "double",
  "boolean",
  "binary",
  "date",
  "timestamp",
  "timestamp_ntz",
] as const;

export type DeltaPrimitiveName = (typeof PRIMITIVE_TYPES)[number];

export interface DeltaStructField {
  name: string;
  type: DeltaDataType;
  nullable: boolean;
  metadata: Record<string, unknown>;
}

export interface DeltaStructType {
  type: "struct";
  fields: DeltaStructField[];
}

export interface DeltaArrayType {
  type: "array";
  elementType: DeltaDataType;
  containsNull: boolean;
}

export interface DeltaMapType {
  type: "map";
  keyType: DeltaDataType;
  valueType: DeltaDataType;
  valueContainsNull: boolean;
}

/** A primitive name (`long`, `decimal(10,2)`, ...) or a nested type. */
export type DeltaDataType = string | DeltaStructType | DeltaArrayType | DeltaMapType;

/** The table schema: a struct type at the top level. */
export type DeltaSchema = DeltaStructType;

const DECIMAL = /^decimal\(\s*(\d+)\s*,\s*(-?\d+)\s*\)$/;

/** Parses `metaData.schemaString`; throws `corrupt_log` when it is not a valid Delta struct schema. */
export function parseSchemaString(schemaString: string, where = "schemaString"): DeltaSchema {
  let value: unknown;
  try {
    value = JSON.parse(schemaString);
  } catch (error) {
    throw new DeltaLiteError("corrupt_log", `${where} is not valid JSON`, { cause: error });
  }
  const type = checkType(value, where);
  if (typeof type === "string" || type.type !== "struct") {
    throw new DeltaLiteError("corrupt_log", `${where} must be a struct type`);
  }
  return type;
}

/** The schema as Delta schema JSON text (the form `metaData.schemaString` holds). */
export function schemaToJson(schema: DeltaSchema): string {
  return JSON.stringify(normalizeType(schema));
}

function normalizeType(type: DeltaDataType): DeltaDataType {
  if (typeof type === "string") return type;
  switch (type.type) {
    case "struct":
      return {
        type: "struct",
        fields: type.fields.map((f) => ({
          name: f.name,
          type: normalizeType(f.type),
          nullable: f.nullable,
          metadata: f.metadata,
        })),
      };
    case "array":
      return { type: "array", elementType: normalizeType(type.elementType), containsNull: type.containsNull };
    case "map":
      return {
        type: "map",
        keyType: normalizeType(type.keyType),
        valueType: normalizeType(type.valueType),
        valueContainsNull: type.valueContainsNull,
      };
  }
}

function checkType(value: unknown, where: string): DeltaDataType {
  const bad = (why: string) => new DeltaLiteError("corrupt_log", `${where}: ${why}`);
  if (typeof value === "string") {
    if ((PRIMITIVE_TYPES as readonly string[]).includes(value) || DECIMAL.test(value)) return value;
    // Unknown primitive names (variant, a future type) are kept; converting them to Arrow refuses them.
    return value;
  }
  if (typeof value !== "object" || value === null) throw bad("a type must be a string or an object");
  const v = value as Record<string, unknown>;
  switch (v.type) {
    case "struct": {
      if (!Array.isArray(v.fields)) throw bad("struct.fields must be an array");
      return {
        type: "struct",
        fields: v.fields.map((f: unknown, i) => {
          if (typeof f !== "object" || f === null) throw bad(`field ${i} must be an object`);
          const field = f as Record<string, unknown>;
          if (typeof field.name !== "string") throw bad(`field ${i} has no name`);
          const metadata = field.metadata ?? {};
          if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
            throw bad(`field ${field.name}: metadata must be an object`);
          }
          return {
            name: field.name,
            type: checkType(field.type, `${where}.${field.name}`),
            nullable: field.nullable !== false,
            metadata: metadata as Record<string, unknown>,
          };
        }),
      };
    }
    case "array":
      return {
        type: "array",
        elementType: checkType(v.elementType, `${where}[]`),
        containsNull: v.containsNull !== false,
      };
    case "map":
      return {
        type: "map",
        keyType: checkType(v.keyType, `${where}.key`),
        valueType: checkType(v.valueType, `${where}.value`),
        valueContainsNull: v.valueContainsNull !== false,
      };
    default:
      throw bad(`unknown nested type ${JSON.stringify(v.type)}`);
  }
}

/** Names of every primitive type used anywhere in the schema (for feature checks such as timestamp_ntz). */
export function primitiveTypesIn(type: DeltaDataType, out = new Set<string>()): Set<string> {
  if (typeof type === "string") out.add(type);
  else if (type.type === "struct") for (const f of type.fields) primitiveTypesIn(f.type, out);
  else if (type.type === "array") primitiveTypesIn(type.elementType, out);
  else {
    primitiveTypesIn(type.keyType, out);
    primitiveTypesIn(type.valueType, out);
  }
  return out;
}

/** Decimal precision and scale of a `decimal(p,s)` type name, else undefined. */
export function decimalParts(type: string): { precision: number; scale: number } | undefined {
  const m = DECIMAL.exec(type);
  return m ? { precision: Number(m[1]), scale: Number(m[2]) } : undefined;
}

// ---------------------------------------------------------------------------------------------------
// Delta → Arrow

/** The Arrow schema of a Delta schema (timestamps in microseconds; `timestamp` carries the UTC zone). */
export function deltaSchemaToArrow(schema: DeltaSchema): Schema {
  return new Schema(schema.fields.map((f) => deltaFieldToArrow(f)));
}

/** One Delta field as an Arrow field (metadata converted as described in the module comment). */
export function deltaFieldToArrow(field: DeltaStructField): Field {
  return new Field(
    field.name,
    deltaTypeToArrow(field.type, field.name),
    field.nullable,
    encodeMetadata(field.metadata),
  );
}

/** One Delta type as an Arrow type; throws `unsupported` for a type Arrow conversion does not know. */
export function deltaTypeToArrow(type: DeltaDataType, column = "?"): DataType {
  if (typeof type === "string") {
    switch (type) {
      case "string":
        return new Utf8();
      case "long":
        return new Int64();
      case "integer":
        return new Int32();
      case "short":
        return new Int16();
      case "byte":
        return new Int8();
      case "float":
        return new Float32();
      case "double":
        return new Float64();
      case "boolean":
        return new Bool();
      case "binary":
        return new Binary();
      case "date":
        return new DateDay();
      case "timestamp":
        return new TimestampMicrosecond("UTC");
      case "timestamp_ntz":
        return new TimestampMicrosecond(null);
    }
    const dec = decimalParts(type);
    if (dec) {
      if (dec.precision < 1 || dec.precision > 38 || dec.scale < 0 || dec.scale > dec.precision) {
        throw new DeltaLiteError("unsupported", `column ${column}: decimal type ${type} is out of range`);
      }
      return new Decimal(dec.scale, dec.precision, 128);
    }
    throw new DeltaLiteError(
      "unsupported",
      `column ${column}: Delta type ${JSON.stringify(type)} is not supported`,
    );
  }
  switch (type.type) {
    case "struct":
      return new Struct(type.fields.map((f) => deltaFieldToArrow(f)));
    case "array":
      return new List(new Field("element", deltaTypeToArrow(type.elementType, column), type.containsNull));
    case "map":
      return new Map_(
        new Field(
          "key_value",
          new Struct<{ key: DataType; value: DataType }>([
            new Field("key", deltaTypeToArrow(type.keyType, column), false) as Field<never>,
            new Field(
              "value",
              deltaTypeToArrow(type.valueType, column),
              type.valueContainsNull,
            ) as Field<never>,
          ]),
          false,
        ),
        false,
      );
  }
}

// ---------------------------------------------------------------------------------------------------
// Arrow → Delta

/** The Delta schema of an Arrow schema; throws `unsupported` for Arrow types Delta cannot hold. */
export function arrowSchemaToDelta(schema: Schema): DeltaSchema {
  return { type: "struct", fields: schema.fields.map((f) => arrowFieldToDelta(f)) };
}

export function arrowFieldToDelta(field: Field): DeltaStructField {
  return {
    name: field.name,
    type: arrowTypeToDelta(field.type, field.name),
    nullable: field.nullable,
    metadata: decodeMetadata(field.metadata),
  };
}

/**
 * One Arrow type as a Delta type. Utf8/LargeUtf8 → string, Binary/LargeBinary/FixedSizeBinary → binary,
 * Date32/Date64 → date, timestamps of any unit → `timestamp` with a zone and `timestamp_ntz` without,
 * dictionaries → their value type, List/LargeList/FixedSizeList → array.
 */
export function arrowTypeToDelta(type: DataType, column = "?"): DeltaDataType {
  const unsupported = () =>
    new DeltaLiteError("unsupported", `column ${column}: Arrow type ${String(type)} has no Delta equivalent`);
  switch (type.typeId) {
    case Type.Utf8:
    case Type.LargeUtf8:
      return "string";
    case Type.Binary:
    case Type.LargeBinary:
    case Type.FixedSizeBinary:
      return "binary";
    case Type.Bool:
      return "boolean";
    case Type.Int: {
      const t = type as unknown as { bitWidth: number; isSigned: boolean };
      if (!t.isSigned) throw unsupported();
      return t.bitWidth === 8 ? "byte" : t.bitWidth === 16 ? "short" : t.bitWidth === 32 ? "integer" : "long";
    }
    case Type.Int8:
      return "byte";
    case Type.Int16:
      return "short";
    case Type.Int32:
      return "integer";
    case Type.Int64:
      return "long";
    case Type.Float: {
      const t = type as unknown as { precision: number };
      if (t.precision === 0) throw unsupported(); // half floats
      return t.precision === 1 ? "float" : "double";
    }
    case Type.Float32:
      return "float";
    case Type.Float64:
      return "double";
    case Type.Decimal: {
      const t = type as unknown as { precision: number; scale: number };
      if (t.precision > 38) throw unsupported();
      return `decimal(${t.precision},${t.scale})`;
    }
    case Type.Date:
    case Type.DateDay:
    case Type.DateMillisecond:
      return "date";
    case Type.Timestamp:
    case Type.TimestampSecond:
    case Type.TimestampMillisecond:
    case Type.TimestampMicrosecond:
    case Type.TimestampNanosecond: {
      const tz = (type as unknown as { timezone?: string | null }).timezone;
      return tz ? "timestamp" : "timestamp_ntz";
    }
    case Type.Struct:
      return { type: "struct", fields: (type.children as Field[]).map((f) => arrowFieldToDelta(f)) };
    case Type.List:
    case Type.LargeList:
    case Type.FixedSizeList: {
      const child = type.children[0] as Field;
      return {
        type: "array",
        elementType: arrowTypeToDelta(child.type, column),
        containsNull: child.nullable,
      };
    }
    case Type.Map: {
      const entries = type.children[0] as Field;
      const [key, value] = entries.type.children as Field[];
      if (!key || !value) throw unsupported();
      return {
        type: "map",
        keyType: arrowTypeToDelta(key.type, column),
        valueType: arrowTypeToDelta(value.type, column),
        valueContainsNull: value.nullable,
      };
    }
    case Type.Dictionary:
      return arrowTypeToDelta((type as unknown as { dictionary: DataType }).dictionary, column);
    default:
      throw unsupported();
  }
}

// ---------------------------------------------------------------------------------------------------
// Field metadata

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Delta field metadata (any JSON values) as Arrow metadata (strings). */
export function encodeMetadata(metadata: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(metadata)) {
    out.set(key, typeof value === "string" && !parsesAsJson(value) ? value : JSON.stringify(value));
  }
  return out;
}

/** Arrow metadata back to Delta field metadata (the inverse of `encodeMetadata`). */
export function decodeMetadata(metadata: Map<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, text] of metadata) {
    try {
      out[key] = JSON.parse(text);
    } catch {
      out[key] = text;
    }
  }
  return out;
}
