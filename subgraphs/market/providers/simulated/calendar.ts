/**
 * Civil-date arithmetic on day numbers (days since 1970-01-01), without Date objects in the hot paths.
 * The conversions are Howard Hinnant's proleptic Gregorian algorithms.
 */

// Local aliases: inside vm contexts such as jest's, every read of a global (`Math`) is a slow lookup.
const { abs, floor, min } = Math;

export const MS_PER_MINUTE = 60_000;
export const MS_PER_DAY = 86_400_000;

export interface CivilDate {
  year: number;
  /** 1..12 */
  month: number;
  /** 1..31 */
  day: number;
}

export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(days: number): CivilDate {
  const z = days + 719468;
  const era = floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100));
  const mp = floor((5 * doy + 2) / 153);
  const day = doy - floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** 0 = Sunday … 6 = Saturday. Day 0 (1970-01-01) was a Thursday. */
export function weekdayOf(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

function daysInMonth(year: number, month: number): number {
  return daysFromCivil(month === 12 ? year + 1 : year, month === 12 ? 1 : month + 1, 1) - daysFromCivil(year, month, 1);
}

/** The same day of month `months` later (negative: earlier), clamped to the month's length (Mar 31 − 1M = Feb 28). */
export function addMonths(days: number, months: number): number {
  const c = civilFromDays(days);
  const index = c.year * 12 + (c.month - 1) + months;
  const year = floor(index / 12);
  const month = index - year * 12 + 1;
  return daysFromCivil(year, month, min(c.day, daysInMonth(year, month)));
}

/** Monday of the ISO week that contains `days`. */
export function mondayOf(days: number): number {
  return days - ((weekdayOf(days) + 6) % 7);
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

function pad4(n: number): string {
  return n >= 1000 ? `${n}` : `${n}`.padStart(4, '0');
}

/** `YYYY-MM-DD` */
export function formatDay(days: number): string {
  const c = civilFromDays(days);
  return `${pad4(c.year)}-${pad2(c.month)}-${pad2(c.day)}`;
}

/** Day number of a `YYYY-MM-DD` literal (catalog dates); throws on a malformed literal, which is a catalog bug. */
export function parseDay(text: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) throw new Error(`bad date literal ${text}`);
  return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
}

/** `YYYY-MM-DDTHH:MM:SS±HH:MM` for a UTC instant shown at a UTC offset in minutes. */
export function formatLocalDateTime(utcMs: number, offsetMinutes: number): string {
  const localSeconds = floor((utcMs + offsetMinutes * MS_PER_MINUTE) / 1000);
  const days = floor(localSeconds / 86400);
  const secondOfDay = localSeconds - days * 86400;
  const h = floor(secondOfDay / 3600);
  const minute = floor((secondOfDay % 3600) / 60);
  const s = secondOfDay % 60;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const size = abs(offsetMinutes);
  return `${formatDay(days)}T${pad2(h)}:${pad2(minute)}:${pad2(s)}${sign}${pad2(floor(size / 60))}:${pad2(size % 60)}`;
}

/** Calendar quarter (1..4) of a day number, and its `YYYY-Qn` label. */
export function quarterLabel(quarterIndex: number): string {
  const year = floor(quarterIndex / 4);
  return `${year}-Q${quarterIndex - year * 4 + 1}`;
}

/** Quarters are numbered year × 4 + (q − 1), so consecutive quarters are consecutive integers. */
export function quarterIndexOf(days: number): number {
  const c = civilFromDays(days);
  return c.year * 4 + floor((c.month - 1) / 3);
}

/** Last calendar day of a quarter. */
export function quarterEndDay(quarterIndex: number): number {
  const year = floor(quarterIndex / 4);
  const q = quarterIndex - year * 4;
  return daysFromCivil(q === 3 ? year + 1 : year, q === 3 ? 1 : q * 3 + 4, 1) - 1;
}
