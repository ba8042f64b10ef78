/**
 * SOA serial arithmetic (RFC 1982 with SERIAL_BITS = 32): serials are unsigned 32-bit numbers on a circle, so
 * 4294967295 + 1 is 0 and "newer" means "less than half the circle ahead". Every comparison of serials goes through
 * here: plain `>` or `Math.max` get the order wrong once a serial has wrapped.
 */

const HALF = 0x80000000;
/** The largest step one addition may take (RFC 1982 §3.1: 2^31 − 1). */
export const MAX_SERIAL_STEP = 0x7fffffff;

/** `a + n` modulo 2^32 (n from 0 to MAX_SERIAL_STEP). */
export function serialAdd(a: number, n: number): number {
  return (a + n) >>> 0;
}

/** RFC 1982 §3.2: `a` is newer than `b` (0 < a − b < 2^31 on the circle; exactly half way is undefined: false). */
export function serialGreater(a: number, b: number): boolean {
  const diff = (a - b) >>> 0;
  return diff !== 0 && diff < HALF;
}

/** `a` is the same version as `b` or a newer one. */
export function serialAtLeast(a: number, b: number): boolean {
  return a >>> 0 === b >>> 0 || serialGreater(a, b);
}

/** The newer of two serials (the first when they are equal or incomparable). */
export function serialMax(a: number, b: number): number {
  return serialGreater(b, a) ? b : a;
}
