/**
 * Arrow types and fields of another apache-arrow copy rebuilt as ours, by type id and the parameters every
 * release since 9 keeps (bit widths, units, zones, children). A type id, unit or mode this copy does not
 * know (a newer release's type, or a view type on an older runtime) is an `UnreadableArrow` naming it.
 */
import * as arrow from "apache-arrow";
import {
  Binary,
  Bool,
  DataType,
  Date_,
  DateUnit,
  Decimal,
  Dictionary,
  Duration,
  Field,
  FixedSizeBinary,
  FixedSizeList,
  Float,
  Int,
  Interval,
  IntervalUnit,
  LargeBinary,
  LargeUtf8,
  List,
  Map_,
  Null,
  Precision,
  Struct,
  Time,
  Timestamp,
  TimeUnit,
  Type,
  Union,
  UnionMode,
  Utf8,
} from "apache-arrow";
import type { DataTypeShape, FieldShape } from "./arrow-shape.js";

/** Why an Arrow object of another copy cannot be read by ours (wrapped with both versions by the caller). */
export class UnreadableArrow extends Error {}

/** Types only newer releases have: looked up at run time, so this module also loads on apache-arrow 19. */
const newer = arrow as Partial<Pick<typeof arrow, "LargeList" | "BinaryView" | "Utf8View">>;

// biome-ignore lint/suspicious/noExplicitAny: the parameters of a foreign type are read by name
type Foreign = DataTypeShape & Record<string, any>;

export function adoptField(field: FieldShape, column: string): Field {
  const metadata = field.metadata instanceof Map ? new Map(field.metadata) : new Map<string, string>();
  return new Field(field.name, adoptType(field.type, column), field.nullable === true, metadata);
}

/** Our DataType equal to `type` (same id and parameters). */
export function adoptType(type: DataTypeShape, column: string): DataType {
  const t = type as Foreign;
  const child = () => adoptField(childFields(t, column)[0] as FieldShape, column);
  const known = (values: object, value: unknown, what: string) => {
    if (!(typeof value === "number" && value in values)) {
      throw new UnreadableArrow(`column ${column} has a ${String(t)} whose ${what} ${value} is unknown`);
    }
    return value;
  };
  switch (t.typeId) {
    case Type.Null:
      return new Null();
    case Type.Int:
      return new Int(t.isSigned === true, t.bitWidth);
    case Type.Float:
      return new Float(known(Precision, t.precision, "precision"));
    case Type.Binary:
      return new Binary();
    case Type.LargeBinary:
      return new LargeBinary();
    case Type.Utf8:
      return new Utf8();
    case Type.LargeUtf8:
      return new LargeUtf8();
    case Type.Bool:
      return new Bool();
    case Type.Decimal:
      return new Decimal(t.scale, t.precision, t.bitWidth);
    case Type.Date:
      return new Date_(known(DateUnit, t.unit, "unit"));
    case Type.Time:
      return new Time(known(TimeUnit, t.unit, "unit"), t.bitWidth);
    case Type.Timestamp:
      return new Timestamp(known(TimeUnit, t.unit, "unit"), t.timezone ?? null);
    case Type.Interval:
      return new Interval(known(IntervalUnit, t.unit, "unit"));
    case Type.Duration:
      return new Duration(known(TimeUnit, t.unit, "unit"));
    case Type.FixedSizeBinary:
      return new FixedSizeBinary(t.byteWidth);
    case Type.List:
      return new List(child());
    case Type.FixedSizeList:
      return new FixedSizeList(t.listSize, child());
    case Type.Map:
      return new Map_(child() as never, t.keysSorted === true);
    case Type.Struct:
      return new Struct(childFields(t, column).map((f) => adoptField(f, column)));
    case Type.Union: {
      const fields = childFields(t, column).map((f) => adoptField(f, column));
      return new Union(known(UnionMode, t.mode, "mode"), Array.from(t.typeIds as ArrayLike<number>), fields);
    }
    case Type.Dictionary:
      return new Dictionary(
        adoptType(t.dictionary, column),
        adoptType(t.indices, column) as never,
        t.id,
        t.isOrdered === true,
      );
    default:
      return adoptNewerType(t, column, child);
  }
}

function adoptNewerType(t: Foreign, column: string, child: () => Field): DataType {
  if (newer.LargeList && t.typeId === Type.LargeList) return new newer.LargeList(child());
  if (newer.BinaryView && t.typeId === Type.BinaryView) return new newer.BinaryView();
  if (newer.Utf8View && t.typeId === Type.Utf8View) return new newer.Utf8View();
  throw new UnreadableArrow(
    `column ${column} has Arrow type id ${t.typeId} (${String(t)}), unknown to deltalite's apache-arrow`,
  );
}

function childFields(t: Foreign, column: string): FieldShape[] {
  const children = t.children;
  if (!Array.isArray(children) || children.length === 0) {
    throw new UnreadableArrow(`column ${column} has a ${String(t)} without child fields`);
  }
  return children as FieldShape[];
}

/** The field types a value of `type` has as child data (a dictionary's values are not children). */
export function childTypes(type: DataType): DataType[] {
  if (DataType.isDictionary(type)) return [];
  return (type.children ?? []).map((f: Field) => f.type);
}
