/** The SOA serial the store gives a zone when it is created and after each change. */
import { serialAdd, serialGreater } from '../model';

/** `YYYYMMDD00` of the clock's UTC date. */
export function dateSerial(now: Date): number {
  return (now.getUTCFullYear() * 10_000 + (now.getUTCMonth() + 1) * 100 + now.getUTCDate()) * 100;
}

/** Serial of a new zone: today·100. */
export function initialSerial(now: Date): number {
  return dateSerial(now);
}

/**
 * Serial after a change, as BIND's `serial-update-method date` computes it (lib/dns/update.c
 * `dns_update_soaserial`): today's `YYYYMMDD00` when that is newer than the current serial in RFC 1982 arithmetic,
 * else current + 1. So after `YYYYMMDD99` the serial simply keeps counting by one (no longer reading as a date) until
 * the date overtakes it; it never goes backwards, and at 2^32 it wraps, skipping 0 as BIND does.
 */
export function nextSerial(current: number, now: Date): number {
  const date = dateSerial(now);
  if (serialGreater(date, current)) return date;
  const next = serialAdd(current, 1);
  return next === 0 ? 1 : next;
}
