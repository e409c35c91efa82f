/**
 * Arrow inputs recognised by shape, not `instanceof`: an app may hold its own copy of apache-arrow (another
 * version, or a second install of the same one), whose classes are not ours. A Schema is an object with a
 * `fields` array of {name, type: {typeId}} and a `metadata` Map; a RecordBatch has such a schema, `numRows`
 * and a struct `data`; a Table has a schema and a `batches` array. `isOwnArrow` tells whether an object is
 * made by the copy this package runs with (its prototype chain, which 21.2's cross-copy `instanceof` hides).
 */
import { Type } from "apache-arrow";

/** The parts of an Arrow DataType every release since 9 has. */
export interface DataTypeShape {
  typeId: number;
  children?: FieldShape[] | null;
}
export interface FieldShape {
  name: string;
  type: DataTypeShape;
  nullable: boolean;
  metadata: Map<string, string>;
}
export interface SchemaShape {
  fields: FieldShape[];
  metadata: Map<string, string>;
}
export interface RecordBatchShape {
  schema: SchemaShape;
  numRows: number;
  data: { type: DataTypeShape; children: unknown };
}
export interface TableShape {
  schema: SchemaShape;
  batches: unknown[];
}

const isObject = (value: unknown): value is Record<PropertyKey, unknown> =>
  typeof value === "object" && value !== null;

function isFieldShape(value: unknown): value is FieldShape {
  return (
    isObject(value) &&
    typeof value.name === "string" &&
    isObject(value.type) &&
    typeof value.type.typeId === "number"
  );
}

/** An Arrow Schema of any apache-arrow copy. */
export function isArrowSchema(value: unknown): value is SchemaShape {
  return (
    isObject(value) &&
    Array.isArray(value.fields) &&
    value.metadata instanceof Map &&
    value.fields.every(isFieldShape)
  );
}

/** An Arrow RecordBatch of any apache-arrow copy. */
export function isArrowRecordBatch(value: unknown): value is RecordBatchShape {
  return (
    isObject(value) &&
    isArrowSchema(value.schema) &&
    typeof value.numRows === "number" &&
    isObject(value.data) &&
    isObject(value.data.type) &&
    value.data.type.typeId === Type.Struct
  );
}

/** An Arrow Table of any apache-arrow copy. */
export function isArrowTable(value: unknown): value is TableShape {
  return isObject(value) && isArrowSchema(value.schema) && Array.isArray(value.batches);
}

/** Something that carries an Arrow schema but is none of the shapes above (an old or unknown release). */
export function carriesArrowSchema(value: unknown): value is { schema: SchemaShape } {
  return isObject(value) && isArrowSchema(value.schema);
}

/** True when `value` was made by the apache-arrow this package runs with (not merely one like it). */
export function isOwnArrow(value: object, ownClass: abstract new (...args: never[]) => unknown): boolean {
  return Function.prototype[Symbol.hasInstance].call(ownClass, value);
}

/** A short description of a value that is not Arrow data, for messages ("a plain object", "a string"). */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? "" : "s"}`;
  if (typeof value !== "object") return `a ${typeof value}`;
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)?.constructor
    ?.name;
  return !name || name === "Object" ? "a plain object" : `a ${name}`;
}
