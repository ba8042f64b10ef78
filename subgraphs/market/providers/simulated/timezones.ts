/**
 * UTC offsets of IANA time zones, from the runtime's Intl data. An Intl call costs microseconds, so offsets are
 * kept per (zone, UTC year) as the offset at New Year plus that year's transitions (found by sampling each
 * month and bisecting to the minute); afterwards a lookup is a couple of comparisons.
 */
import { BoundedMap } from '../../bounded-map';
import { civilFromDays, daysFromCivil, formatLocalDateTime, MS_PER_DAY, MS_PER_MINUTE } from './calendar';

// Local aliases: inside vm contexts such as jest's, every read of a global (`Math`) is a slow lookup.
const { floor, round } = Math;

interface YearOffsets {
  start: number;
  /** Instants (UTC ms) from which `offsets[i]` applies, ascending. */
  at: number[];
  offsets: number[];
}

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

function intlOffsetMinutes(timeZone: string, utcMs: number): number {
  let formatter = offsetFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormatters.set(timeZone, formatter);
  }
  const m = /GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(formatter.format(utcMs));
  if (!m) throw new Error(`cannot read the UTC offset of ${timeZone}`);
  if (!m[1]) return 0;
  // Seconds only occur in local mean time before ~1900; rounding keeps offsets whole minutes.
  const minutes = Number(m[2]) * 60 + Number(m[3]) + round(Number(m[4] ?? 0) / 60);
  return m[1] === '-' ? -minutes : minutes;
}

function buildYear(timeZone: string, year: number): YearOffsets {
  const monthStart = (i: number): number => daysFromCivil(year + floor(i / 12), (i % 12) + 1, 1) * MS_PER_DAY;
  const table: YearOffsets = { start: intlOffsetMinutes(timeZone, monthStart(0)), at: [], offsets: [] };
  let before = table.start;
  for (let i = 1; i <= 12; i++) {
    const end = monthStart(i);
    const after = intlOffsetMinutes(timeZone, end);
    if (after !== before) {
      // One transition per month at most (true of every zone in the catalog): bisect to the first minute of it.
      let lo = monthStart(i - 1);
      let hi = end;
      while (hi - lo > MS_PER_MINUTE) {
        const mid = lo + floor((hi - lo) / 2 / MS_PER_MINUTE) * MS_PER_MINUTE;
        if (intlOffsetMinutes(timeZone, mid) === before) lo = mid;
        else hi = mid;
      }
      table.at.push(hi);
      table.offsets.push(after);
      before = after;
    }
  }
  return table;
}

const years = new BoundedMap<string, YearOffsets>(2048);
const UTC_ZONES = new Set(['UTC', 'Etc/UTC', 'GMT']);

/** Minutes to add to UTC to get local wall time in `timeZone` at the instant `utcMs`. */
export function offsetMinutes(timeZone: string, utcMs: number): number {
  if (UTC_ZONES.has(timeZone)) return 0;
  const year = civilFromDays(floor(utcMs / MS_PER_DAY)).year;
  const table = years.getOrCompute(`${timeZone}|${year}`, () => buildYear(timeZone, year));
  let offset = table.start;
  for (let i = 0; i < table.at.length; i++) {
    if (utcMs >= (table.at[i] as number)) offset = table.offsets[i] as number;
  }
  return offset;
}

/** Local calendar day (days since 1970-01-01) of an instant. */
export function localDayOf(timeZone: string, utcMs: number): number {
  return floor((utcMs + offsetMinutes(timeZone, utcMs) * MS_PER_MINUTE) / MS_PER_DAY);
}

/**
 * The UTC instant of a local wall time (`minuteOfDay` may be negative or past 1440: it is counted from the local
 * midnight of `day`). Wall times inside a DST gap resolve to the later offset; sessions never start in one.
 */
export function utcFromLocal(timeZone: string, day: number, minuteOfDay: number): number {
  const wall = day * MS_PER_DAY + minuteOfDay * MS_PER_MINUTE;
  const guess = wall - offsetMinutes(timeZone, wall) * MS_PER_MINUTE;
  return wall - offsetMinutes(timeZone, guess) * MS_PER_MINUTE;
}

/** `YYYY-MM-DDTHH:MM:SS±HH:MM` in the zone. */
export function formatInZone(timeZone: string, utcMs: number): string {
  return formatLocalDateTime(utcMs, offsetMinutes(timeZone, utcMs));
}
