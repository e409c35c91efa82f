/**
 * Parquet schema → Arrow schema, and the decode plan the assembler walks: one node per Arrow field with
 * its Dremel levels (the definition level at which it is non-null, the repetition depth of its slots and the
 * definition level at which a slot exists). Handles the LIST/MAP backward-compatibility rules of the Parquet
 * spec (2-level lists, Spark's legacy `bag`/`array` names, MAP_KEY_VALUE) and maps every primitive and
 * logical type to an exact Arrow type (int64 → Int64, decimals → Decimal128, timestamps at their stored unit).
 */
import { DeltaLiteError } from "@deltalite/errors";
import {
  Binary,
  Bool,
  type DataType,
  DateDay,
  Decimal,
  Field,
  FixedSizeBinary,
  Float16,
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
  TimeMicrosecond,
  TimeMillisecond,
  TimeNanosecond,
  Timestamp,
  TimeUnit,
  Uint8,
  Uint16,
  Uint32,
  Uint64,
  Utf8,
} from "apache-arrow";
import type { FileMetaData, SchemaElement, SchemaTree } from "hyparquet";
import { parquetSchema } from "hyparquet";

/** How a leaf's physical values become Arrow values. */
export type LeafConversion =
  | "bool"
  | "int8"
  | "int16"
  | "int32"
  | "uint8"
  | "uint16"
  | "uint32"
  | "int64"
  | "uint64"
  | "float16"
  | "float32"
  | "float64"
  | "utf8"
  | "binary"
  | "fixed"
  | "decimal-int32"
  | "decimal-int64"
  | "decimal-bytes"
  | "int96-micros";

interface NodeBase {
  name: string;
  field: Field;
  /** Definition level at which this node is non-null. */
  def: number;
  /** Repetition depth of this node's slots (number of repeated ancestors of the slot). */
  slotRep: number;
  /** Definition level at which a slot of this node exists (the enclosing list has an element there). */
  slotDef: number;
}

export interface LeafNode extends NodeBase {
  kind: "leaf";
  /** Index of the column chunk in each row group. */
  columnIndex: number;
  /** Parquet path of the leaf (for hyparquet's page decoders). */
  schemaPath: SchemaTree[];
  element: SchemaElement;
  conversion: LeafConversion;
  /** Decimal scale/precision or fixed byte width, where relevant. */
  byteWidth: number;
}

export interface StructNode extends NodeBase {
  kind: "struct";
  children: ColumnNode[];
}

export interface ListNode extends NodeBase {
  kind: "list";
  /** Definition level at which the list has at least one element. */
  elementDef: number;
  /** Repetition level of the elements. */
  elementRep: number;
  child: ColumnNode;
  /** A MAP: the child is the key/value struct and the Arrow type is Map_. */
  isMap: boolean;
}

export type ColumnNode = LeafNode | StructNode | ListNode;

export interface FileSchema {
  arrowSchema: Schema;
  /** Top-level columns in file order. */
  columns: ColumnNode[];
  byName: Map<string, ColumnNode>;
}

interface LevelContext {
  def: number;
  rep: number;
  slotDef: number;
  slotRep: number;
}

/** Builds the Arrow schema and decode plan of a file from its footer. */
export function fileSchema(metadata: FileMetaData, fileLabel: string): FileSchema {
  const root = parquetSchema(metadata);
  const leafIndex = { next: 0 };
  const columns = root.children.map((child) =>
    buildNode(child, [root], { def: 0, rep: 0, slotDef: 0, slotRep: 0 }, leafIndex, fileLabel),
  );
  const arrowSchema = new Schema(columns.map((c) => c.field));
  return { arrowSchema, columns, byName: new Map(columns.map((c) => [c.name, c])) };
}

/** Every leaf under a node, in column-chunk order. */
export function leavesOf(node: ColumnNode): LeafNode[] {
  if (node.kind === "leaf") return [node];
  if (node.kind === "list") return leavesOf(node.child);
  return node.children.flatMap(leavesOf);
}

function buildNode(
  tree: SchemaTree,
  parents: SchemaTree[],
  ctx: LevelContext,
  leafIndex: { next: number },
  fileLabel: string,
): ColumnNode {
  const element = tree.element;
  const repetition = element.repetition_type ?? "REQUIRED";
  if (repetition === "REPEATED") {
    // A repeated field outside a LIST/MAP annotation: a list of required elements.
    const elementDef = ctx.def + 1;
    const elementRep = ctx.rep + 1;
    const child = buildElement(
      tree,
      parents,
      { def: elementDef, rep: elementRep, slotDef: elementDef, slotRep: elementRep },
      leafIndex,
      fileLabel,
    );
    return listNode(element.name, false, ctx, ctx.def, elementDef, elementRep, child, false);
  }
  const nullable = repetition === "OPTIONAL";
  const def = ctx.def + (nullable ? 1 : 0);
  const here: LevelContext = { def, rep: ctx.rep, slotDef: ctx.slotDef, slotRep: ctx.slotRep };
  const path = [...parents, tree];
  const annotation = element.logical_type?.type ?? element.converted_type;

  if (tree.children.length === 0) return leafNode(tree, path, nullable, here, leafIndex, fileLabel);

  if ((annotation === "LIST" || element.converted_type === "LIST") && tree.children.length === 1) {
    const repeated = tree.children[0]!;
    if (repeated.element.repetition_type === "REPEATED") {
      const elementDef = def + 1;
      const elementRep = ctx.rep + 1;
      const elementCtx = { def: elementDef, rep: elementRep, slotDef: elementDef, slotRep: elementRep };
      const elementIsRepeated =
        repeated.children.length === 0 ||
        repeated.children.length > 1 ||
        repeated.element.name === "array" ||
        repeated.element.name === `${element.name}_tuple`;
      const child = elementIsRepeated
        ? buildElement(repeated, path, elementCtx, leafIndex, fileLabel)
        : buildNode(repeated.children[0]!, [...path, repeated], elementCtx, leafIndex, fileLabel);
      return listNode(element.name, nullable, ctx, def, elementDef, elementRep, child, false);
    }
  }

  const isMap =
    annotation === "MAP" || element.converted_type === "MAP" || element.converted_type === "MAP_KEY_VALUE";
  if (isMap && tree.children.length === 1) {
    const repeated = tree.children[0]!;
    if (repeated.element.repetition_type === "REPEATED" && repeated.children.length === 2) {
      const elementDef = def + 1;
      const elementRep = ctx.rep + 1;
      const entryCtx = { def: elementDef, rep: elementRep, slotDef: elementDef, slotRep: elementRep };
      const entryPath = [...path, repeated];
      const [keyTree, valueTree] = repeated.children as [SchemaTree, SchemaTree];
      const key = buildNode(keyTree, entryPath, entryCtx, leafIndex, fileLabel);
      const value = buildNode(valueTree, entryPath, entryCtx, leafIndex, fileLabel);
      const keyField = new Field("key", key.field.type, false);
      const valueField = new Field("value", value.field.type, value.field.nullable);
      const entries: StructNode = {
        kind: "struct",
        name: "entries",
        field: new Field("entries", new Struct([keyField, valueField]), false),
        def: elementDef,
        slotDef: elementDef,
        slotRep: elementRep,
        children: [renamed(key, keyField), renamed(value, valueField)],
      };
      return listNode(element.name, nullable, ctx, def, elementDef, elementRep, entries, true);
    }
  }

  const children = tree.children.map((child) => buildNode(child, path, here, leafIndex, fileLabel));
  return {
    kind: "struct",
    name: element.name,
    field: new Field(element.name, new Struct(children.map((c) => c.field)), nullable),
    def,
    slotDef: ctx.slotDef,
    slotRep: ctx.slotRep,
    children,
  };
}

/** The element of a list whose repeated node is itself the element (legacy 2-level lists). */
function buildElement(
  repeated: SchemaTree,
  parents: SchemaTree[],
  ctx: LevelContext,
  leafIndex: { next: number },
  fileLabel: string,
): ColumnNode {
  const path = [...parents, repeated];
  if (repeated.children.length === 0) return leafNode(repeated, path, false, ctx, leafIndex, fileLabel);
  const children = repeated.children.map((child) => buildNode(child, path, ctx, leafIndex, fileLabel));
  return {
    kind: "struct",
    name: repeated.element.name,
    field: new Field(repeated.element.name, new Struct(children.map((c) => c.field)), false),
    def: ctx.def,
    slotDef: ctx.slotDef,
    slotRep: ctx.slotRep,
    children,
  };
}

function listNode(
  name: string,
  nullable: boolean,
  ctx: LevelContext,
  def: number,
  elementDef: number,
  elementRep: number,
  child: ColumnNode,
  isMap: boolean,
): ListNode {
  const type: DataType = isMap
    ? new Map_(child.field as Field<Struct>, false)
    : new List(new Field("element", child.field.type, child.field.nullable));
  const elementChild = isMap
    ? child
    : renamed(child, new Field("element", child.field.type, child.field.nullable));
  return {
    kind: "list",
    name,
    field: new Field(name, type, nullable),
    def,
    slotDef: ctx.slotDef,
    slotRep: ctx.slotRep,
    elementDef,
    elementRep,
    child: elementChild,
    isMap,
  };
}

function renamed(node: ColumnNode, field: Field): ColumnNode {
  return { ...node, name: field.name, field };
}

function leafNode(
  tree: SchemaTree,
  path: SchemaTree[],
  nullable: boolean,
  ctx: LevelContext,
  leafIndex: { next: number },
  fileLabel: string,
): LeafNode {
  const element = tree.element;
  const { type, conversion, byteWidth } = leafType(element, fileLabel);
  return {
    kind: "leaf",
    name: element.name,
    field: new Field(element.name, type, nullable),
    def: ctx.def,
    slotDef: ctx.slotDef,
    slotRep: ctx.slotRep,
    columnIndex: leafIndex.next++,
    schemaPath: path,
    element,
    conversion,
    byteWidth,
  };
}

const TIME_UNITS = { MILLIS: TimeUnit.MILLISECOND, MICROS: TimeUnit.MICROSECOND, NANOS: TimeUnit.NANOSECOND };

function leafType(
  element: SchemaElement,
  fileLabel: string,
): { type: DataType; conversion: LeafConversion; byteWidth: number } {
  const logical = element.logical_type;
  const converted = element.converted_type;
  const physical = element.type;
  const unsupported = (what: string) =>
    new DeltaLiteError(
      "unsupported",
      `Parquet column "${element.name}" of ${fileLabel} has an unsupported type (${what})`,
    );

  if (logical?.type === "DECIMAL" || converted === "DECIMAL") {
    const precision = logical?.type === "DECIMAL" ? logical.precision : (element.precision ?? 0);
    const scale = logical?.type === "DECIMAL" ? logical.scale : (element.scale ?? 0);
    if (precision > 38) throw unsupported(`decimal(${precision},${scale}) beyond Decimal128`);
    const type = new Decimal(scale, precision, 128);
    if (physical === "INT32") return { type, conversion: "decimal-int32", byteWidth: 4 };
    if (physical === "INT64") return { type, conversion: "decimal-int64", byteWidth: 8 };
    if (physical === "FIXED_LEN_BYTE_ARRAY" || physical === "BYTE_ARRAY") {
      return { type, conversion: "decimal-bytes", byteWidth: element.type_length ?? 0 };
    }
    throw unsupported(`decimal on ${physical}`);
  }

  switch (physical) {
    case "BOOLEAN":
      return { type: new Bool(), conversion: "bool", byteWidth: 0 };
    case "INT32": {
      if (logical?.type === "DATE" || converted === "DATE") return int32As(new DateDay(), "int32");
      if (logical?.type === "TIME" || converted === "TIME_MILLIS")
        return int32As(new TimeMillisecond(), "int32");
      if (logical?.type === "INTEGER") {
        const { bitWidth, isSigned } = logical;
        if (bitWidth === 8) return int32As(isSigned ? new Int8() : new Uint8(), isSigned ? "int8" : "uint8");
        if (bitWidth === 16)
          return int32As(isSigned ? new Int16() : new Uint16(), isSigned ? "int16" : "uint16");
        return int32As(isSigned ? new Int32() : new Uint32(), isSigned ? "int32" : "uint32");
      }
      if (converted === "INT_8") return int32As(new Int8(), "int8");
      if (converted === "INT_16") return int32As(new Int16(), "int16");
      if (converted === "UINT_8") return int32As(new Uint8(), "uint8");
      if (converted === "UINT_16") return int32As(new Uint16(), "uint16");
      if (converted === "UINT_32") return int32As(new Uint32(), "uint32");
      return int32As(new Int32(), "int32");
    }
    case "INT64": {
      if (logical?.type === "TIMESTAMP") {
        const unit = TIME_UNITS[logical.unit];
        return {
          type: new Timestamp(unit, logical.isAdjustedToUTC ? "UTC" : null),
          conversion: "int64",
          byteWidth: 8,
        };
      }
      if (converted === "TIMESTAMP_MILLIS") {
        return { type: new Timestamp(TimeUnit.MILLISECOND, "UTC"), conversion: "int64", byteWidth: 8 };
      }
      if (converted === "TIMESTAMP_MICROS") {
        return { type: new Timestamp(TimeUnit.MICROSECOND, "UTC"), conversion: "int64", byteWidth: 8 };
      }
      if (logical?.type === "TIME") {
        const type = logical.unit === "NANOS" ? new TimeNanosecond() : new TimeMicrosecond();
        return { type, conversion: "int64", byteWidth: 8 };
      }
      if (converted === "TIME_MICROS")
        return { type: new TimeMicrosecond(), conversion: "int64", byteWidth: 8 };
      if ((logical?.type === "INTEGER" && !logical.isSigned) || converted === "UINT_64") {
        return { type: new Uint64(), conversion: "uint64", byteWidth: 8 };
      }
      return { type: new Int64(), conversion: "int64", byteWidth: 8 };
    }
    case "INT96":
      // Spark's legacy timestamps: an instant, read at microsecond precision like Spark does.
      return { type: new Timestamp(TimeUnit.MICROSECOND, "UTC"), conversion: "int96-micros", byteWidth: 12 };
    case "FLOAT":
      return { type: new Float32(), conversion: "float32", byteWidth: 4 };
    case "DOUBLE":
      return { type: new Float64(), conversion: "float64", byteWidth: 8 };
    case "BYTE_ARRAY": {
      const text =
        logical?.type === "STRING" ||
        logical?.type === "ENUM" ||
        logical?.type === "JSON" ||
        converted === "UTF8" ||
        converted === "ENUM" ||
        converted === "JSON";
      return text
        ? { type: new Utf8(), conversion: "utf8", byteWidth: 0 }
        : { type: new Binary(), conversion: "binary", byteWidth: 0 };
    }
    case "FIXED_LEN_BYTE_ARRAY": {
      const width = element.type_length ?? 0;
      if (logical?.type === "FLOAT16" && width === 2)
        return { type: new Float16(), conversion: "float16", byteWidth: 2 };
      return { type: new FixedSizeBinary(width), conversion: "fixed", byteWidth: width };
    }
    default:
      throw unsupported(String(physical));
  }
}

function int32As(type: DataType, conversion: LeafConversion) {
  return { type, conversion, byteWidth: 4 };
}
