/**
 * Arrow objects of another apache-arrow copy (an app's own install, another version of the peer range)
 * adopted as ours without copying a value: schema and types are rebuilt (`arrow-adopt-types.ts`), and
 * each Data is rebuilt around the same buffers. Objects of our own copy pass through untouched. What
 * cannot be read — an unknown type id, a layout older releases had — is a `DeltaLiteInvalidArgumentError`
 * that names both apache-arrow versions.
 */
import { DeltaLiteInvalidArgumentError } from "@deltalite/errors";
import { Data, DataType, RecordBatch, Schema, Struct, Vector } from "apache-arrow";
import { adoptField, childTypes, UnreadableArrow } from "./arrow-adopt-types.js";
import { isOwnArrow, type RecordBatchShape, type SchemaShape } from "./arrow-shape.js";
import { ARROW_PEER_RANGE, arrowVersionOf, ownArrowVersion } from "./arrow-version.js";

/** Adopts the schemas and batches of one input, rebuilding each distinct foreign schema once. */
export class ArrowAdopter {
  readonly #schemas = new WeakMap<object, Schema>();

  /** `schema` as ours; `what` names it in errors ("the schema", "the data"). */
  schema(schema: SchemaShape, what = "the schema"): Schema {
    if (isOwnArrow(schema, Schema)) return schema as unknown as Schema;
    const known = this.#schemas.get(schema);
    if (known) return known;
    const adopted = guarded(schema, what, () => {
      const fields = schema.fields.map((f) => adoptField(f, f.name));
      return new Schema(fields, new Map(schema.metadata));
    });
    this.#schemas.set(schema, adopted);
    return adopted;
  }

  /** `batch` as our RecordBatch (its buffers shared, not copied). */
  batch(batch: RecordBatchShape, what = "a RecordBatch of the data"): RecordBatch {
    if (isOwnArrow(batch, RecordBatch)) return batch as unknown as RecordBatch;
    const schema = this.schema(batch.schema, what);
    const data = guarded(batch.schema, what, () => adoptData(batch.data, new Struct(schema.fields), ""));
    return new RecordBatch(schema, data as Data<Struct>);
  }
}

/** Runs `adopt`, turning an `UnreadableArrow` into the typed error naming both versions. */
function guarded<T>(schema: SchemaShape, what: string, adopt: () => T): T {
  try {
    return adopt();
  } catch (error) {
    if (!(error instanceof UnreadableArrow)) throw error;
    throw foreignArrowError(schema, what, error.message);
  }
}

/** The error for an Arrow object of another copy that ours cannot read. */
export function foreignArrowError(
  schema: object,
  what: string,
  reason: string,
): DeltaLiteInvalidArgumentError {
  return new DeltaLiteInvalidArgumentError(
    `${what} is an Arrow object of apache-arrow ${arrowVersionOf(schema)}, which deltalite cannot read with ` +
      `the apache-arrow it runs with (${ownArrowVersion()}): ${reason}. Build the data with an apache-arrow ` +
      `of the range deltalite supports (${ARROW_PEER_RANGE}), best the one copy the app and deltalite share`,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: the buffers of a foreign Data are read by name
type ForeignData = Record<string, any>;

/** `data` rebuilt as our Data of `type` around the same buffers (children and dictionary likewise). */
function adoptData(given: ForeignData, type: DataType, column: string): Data {
  // apache-arrow's Table of empty columns holds a one-chunk Vector where a batch's child Data belongs.
  const data = Array.isArray(given?.data) && given.data.length === 1 ? given.data[0] : given;
  if (!data || typeof data.length !== "number" || !Array.isArray(data.children)) {
    throw new UnreadableArrow(`${where(column)} has data in a layout unknown here (no length or children)`);
  }
  const types = childTypes(type);
  if (data.children.length !== types.length) {
    throw new UnreadableArrow(
      `${where(column)} has ${data.children.length} child arrays where ${type} has ${types.length}`,
    );
  }
  // A struct's children are named columns (a batch is a struct with column ""); other children are parts.
  const label = (i: number) =>
    DataType.isStruct(type) ? [column, type.children[i]?.name].filter(Boolean).join(".") : column;
  const children = (data.children as ForeignData[]).map((c, i) =>
    adoptData(c, types[i] as DataType, label(i)),
  );
  const buffers = [data.valueOffsets, data.values, data.nullBitmap, data.typeIds];
  return new Data(
    type,
    data.offset,
    data.length,
    data.nullCount,
    buffers as never,
    children,
    adoptDictionary(data, type, column),
    data.variadicBuffers ?? [],
  );
}

const where = (column: string) => (column ? `column ${column}` : "the batch");

function adoptDictionary(data: ForeignData, type: DataType, column: string): Vector | undefined {
  if (!DataType.isDictionary(type)) return undefined;
  const chunks = data.dictionary?.data;
  if (!Array.isArray(chunks))
    throw new UnreadableArrow(`${where(column)} is a dictionary without its values`);
  return new Vector(chunks.map((chunk: ForeignData) => adoptData(chunk, type.dictionary, column)));
}
