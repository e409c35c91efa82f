/**
 * The one set of text forms of typed values, shared by Add stats (stats/stat-values.ts), the partition-value
 * codec (partition/values.ts), the scan filter (@deltalite/data-files) and the JSON encoder (deltalite):
 * days since the epoch ⇄ proleptic Gregorian `YYYY-MM-DD` (years as chrono's `%Y`: at least four digits, a
 * sign outside 0..9999 — `-0001`, `+10000`), a count of time units since the epoch → its UTC date, time of day
 * and sub-second rest (each format renders its own fraction and separator), unscaled decimals ⇄ exact decimal
 * text, and the shortest decimal that reads back as the same float32. Pure functions, no I/O, no errors.
 */

const pad = (value: number | bigint, width: number): string => String(value).padStart(width, "0");

/** chrono's `%Y`: at least four digits, a sign outside 0..9999. */
function formatYear(year: number): string {
  if (year >= 0 && year <= 9999) return pad(year, 4);
  return `${year < 0 ? "-" : "+"}${pad(Math.abs(year), 4)}`;
}

/** Days since the epoch → proleptic Gregorian civil date (Howard Hinnant's algorithm). */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

/** Days since 1970-01-01 of a proleptic Gregorian date (the inverse of `formatDate`'s calendar). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** `YYYY-MM-DD` of a day count since 1970-01-01 (`-0001-12-31`, `+10000-01-01` outside 0..9999). */
export function formatDate(days: number): string {
  const { year, month, day } = civilFromDays(days);
  return `${formatYear(year)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** A point in time split for rendering: UTC calendar date, `HH:MM:SS`, and the units below the second. */
export interface TimestampParts {
  /** `formatDate` of the day. */
  date: string;
  /** `HH:MM:SS`. */
  time: string;
  /** The rest below the second, in the count's units: `0 ≤ subsecond < perSecond`. */
  subsecond: bigint;
}

/** Splits `count` units (`perSecond` of them a second) since the epoch, rounding toward the past. */
export function timestampParts(count: bigint, perSecond: bigint): TimestampParts {
  const perDay = perSecond * 86_400n;
  let days = count / perDay;
  let rest = count % perDay;
  if (rest < 0n) {
    rest += perDay;
    days -= 1n;
  }
  const second = Number(rest / perSecond);
  const time = `${pad(Math.floor(second / 3600), 2)}:${pad(Math.floor((second % 3600) / 60), 2)}:${pad(second % 60, 2)}`;
  return { date: formatDate(Number(days)), time, subsecond: rest % perSecond };
}

/** The exact text of an unscaled decimal at `scale` (`-0.01`, `7`; a negative scale appends zeros). */
export function formatDecimal(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString();
  let body: string;
  if (scale <= 0) body = digits + "0".repeat(-scale);
  else {
    const padded = digits.padStart(scale + 1, "0");
    body = `${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
  }
  return negative ? `-${body}` : body;
}

/**
 * Decimal text (`12.30`, `-.5`, `1.0E20`, `+7`) as an unscaled integer and a scale ≥ 0 — the scale its
 * fraction and exponent give (`12.30` → 1230 at 2, `1e3` → 1000 at 0); undefined when it is not decimal text.
 */
export function parseDecimalText(text: string): { unscaled: bigint; scale: number } | undefined {
  const m = /^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(text.trim());
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return undefined;
  const [, sign, int = "", frac = "", exp = "0"] = m;
  // value = int.frac × 10^exp = digits × 10^(exp − |frac|)
  let digits = BigInt(`${int}${frac}` || "0");
  let scale = frac.length - Number(exp);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { unscaled: sign === "-" ? -digits : digits, scale };
}

/** The shortest decimal that reads back as the same float32 (`0.1` for `Math.fround(0.1)`). */
export function shortestFloat32(value: number): number {
  if (!Number.isFinite(value) || value === 0) return value;
  for (let digits = 1; digits <= 9; digits++) {
    const candidate = Number(value.toPrecision(digits));
    if (Math.fround(candidate) === value) return candidate;
  }
  return value;
}
