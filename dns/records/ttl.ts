/** TTLs and other durations: plain seconds, or BIND's units (`1w`, `2d`, `1h`, `30m`, `10s`, `1h30m`). */
import { MAX_TTL } from '../model';
import { RecordValueError, show } from './errors';

export const MAX_UINT32 = 4_294_967_295;

const UNIT_SECONDS: Record<string, number> = { w: 604800, d: 86400, h: 3600, m: 60, s: 1 };

/**
 * Seconds from `300`, `1h`, `1h30m`, `2D` (units w d h m s, any case, each a decimal number); null when the text
 * is not a duration. May exceed 32 bits: callers check their own range.
 */
export function parseDuration(text: string): number | null {
  if (/^[0-9]+$/.test(text)) return Number(text);
  if (!/^([0-9]+[wdhmsWDHMS])+$/.test(text)) return null;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/([0-9]+)([wdhmsWDHMS])/g)) {
    const seconds = unit === undefined ? undefined : UNIT_SECONDS[unit.toLowerCase()];
    if (amount === undefined || seconds === undefined) return null;
    total += Number(amount) * seconds;
  }
  return total;
}

/**
 * A TTL as the API and the DNS tool send it: an integer number of seconds from 0 to {@link MAX_TTL}, or a string of
 * decimal digits. Throws {@link RecordValueError} (field `ttl`).
 */
export function validateTtl(ttl: unknown): number {
  const range = `an integer number of seconds from 0 to ${MAX_TTL}`;
  let n: number;
  if (typeof ttl === 'number') n = ttl;
  else if (typeof ttl === 'string' && /^[0-9]{1,12}$/.test(ttl)) n = Number(ttl);
  else throw new RecordValueError(`TTL must be ${range} (got ${show(ttl)})`, 'ttl');
  if (!Number.isInteger(n))
    throw new RecordValueError(`TTL must be ${range}; it is not an integer (got ${show(ttl)})`, 'ttl');
  if (n < 0) throw new RecordValueError(`TTL must be ${range}; it must not be negative (got ${show(ttl)})`, 'ttl');
  if (n > MAX_TTL) throw new RecordValueError(`TTL must be ${range}; it is too big (got ${show(ttl)})`, 'ttl');
  return n;
}

/** A TTL written as in a zone file (`3600`, `1h`, `1h30m`), checked like {@link validateTtl}. */
export function parseTtl(text: string): number {
  const n = parseDuration(text);
  if (n === null) {
    throw new RecordValueError(
      `TTL must be a number of seconds or a duration like 1h30m (units w, d, h, m, s) (got ${JSON.stringify(text)})`,
      'ttl',
    );
  }
  return validateTtl(n);
}
