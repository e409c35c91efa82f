/**
 * Owns reading single cells of the columns the history rules compare — order values, tie-break values,
 * valid-from instants — as JS values with one total order (`compareValues`), and the month partition
 * (`%Y-%m` in UTC) of a valid-to value. Values are read from the Arrow buffers directly (timestamps as
 * bigint microseconds or the column's unit, never through lossy `Date`s). NaN sorts above every number.
 */
import { compareStrings } from "@deltalite/data-files";
import { DeltaLiteInvalidArgumentError } from "@deltalite/errors";
import { decimal128At } from "@deltalite/parquet-stream";
import { type Data, type DataType, Type } from "apache-arrow";

export type Cell = number | bigint | string | boolean;

/** Cell `row` of a column, or null. */
export type CellReader = (row: number) => Cell | null;

/** True for Arrow types whose cells have a fixed width (what a tie-break column needs). */
export function isFixedWidth(type: DataType): boolean {
  switch (type.typeId) {
    case Type.Int:
    case Type.Float:
    case Type.Decimal:
    case Type.Date:
    case Type.Timestamp:
    case Type.Bool:
      return readerKind(type) !== undefined;
    default:
      return false;
  }
}

type ReaderKind = "typed" | "decimal" | "bool" | "utf8";

function readerKind(type: DataType): ReaderKind | undefined {
  switch (type.typeId) {
    case Type.Int:
    case Type.Date:
    case Type.Timestamp:
      return "typed";
    case Type.Float:
      return (type as unknown as { precision: number }).precision === 0 ? undefined : "typed";
    case Type.Decimal:
      return (type as unknown as { bitWidth: number }).bitWidth === 128 ? "decimal" : undefined;
    case Type.Bool:
      return "bool";
    case Type.Utf8:
    case Type.LargeUtf8:
      return "utf8";
    default:
      return undefined;
  }
}

const utf8 = new TextDecoder();

/** A reader of `data`'s cells; `invalid_argument` naming `column` for a type without an order here. */
export function cellReader(data: Data, column: string): CellReader {
  const kind = readerKind(data.type);
  if (kind === undefined) {
    throw new DeltaLiteInvalidArgumentError(
      `column ${column} has type ${String(data.type)}, whose values historyUpsert cannot compare`,
    );
  }
  const valid = (row: number) => data.nullCount === 0 || data.getValid(row);
  // Arrow slices keep `offset` for bit buffers; typed value buffers already start at it.
  switch (kind) {
    case "typed": {
      const values = data.values as ArrayLike<number | bigint>;
      return (row) => (valid(row) ? (values[row] as number | bigint) : null);
    }
    case "decimal": {
      const words = data.values as Uint32Array;
      return (row) => (valid(row) ? decimal128At(words, row) : null);
    }
    case "bool": {
      const bits = data.values as Uint8Array;
      return (row) => {
        if (!valid(row)) return null;
        const at = data.offset + row;
        return (((bits[at >> 3] as number) >> (at & 7)) & 1) === 1;
      };
    }
    case "utf8": {
      const bytes = data.values as Uint8Array;
      const offsets = data.valueOffsets as ArrayLike<number | bigint>;
      return (row) =>
        valid(row) ? utf8.decode(bytes.subarray(Number(offsets[row]), Number(offsets[row + 1]))) : null;
    }
  }
}

/** The one total order of cells of one column (NaN above every number). */
export function compareValues(a: Cell, b: Cell): number {
  if (typeof a === "string") return compareStrings(a, b as string);
  if (typeof a === "number" && (Number.isNaN(a) || Number.isNaN(b as number))) {
    return Number.isNaN(a) ? (Number.isNaN(b as number) ? 0 : 1) : -1;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Tie-break order: NULL below every value. */
export function compareNullsLowest(a: Cell | null, b: Cell | null): number {
  if (a === null || b === null) return a === null ? (b === null ? 0 : -1) : 1;
  return compareValues(a, b);
}

const MICROS_PER_DAY = 86_400_000_000n;

/** The `%Y-%m` (UTC) partition of a valid-to cell: microseconds (timestamps) or days (dates). */
export function monthPartition(value: Cell, deltaType: string): string {
  const days =
    deltaType === "date" ? BigInt(value as number) : floorDiv(BigInt(value as bigint), MICROS_PER_DAY);
  const { year, month } = civilFromDays(days);
  const y = year < 0n ? `-${String(-year).padStart(4, "0")}` : String(year).padStart(4, "0");
  return `${y}-${String(month).padStart(2, "0")}`;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Proleptic Gregorian year and month of a day count since 1970-01-01. */
function civilFromDays(daysSinceEpoch: bigint): { year: bigint; month: number } {
  const z = daysSinceEpoch + 719_468n;
  const era = floorDiv(z, 146_097n);
  const doe = z - era * 146_097n;
  const yoe = (doe - doe / 1_460n + doe / 36_524n - doe / 146_096n) / 365n;
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
  const mp = (5n * doy + 2n) / 153n;
  const month = Number(mp < 10n ? mp + 3n : mp - 9n);
  const year = yoe + era * 400n + (month <= 2 ? 1n : 0n);
  return { year, month };
}
