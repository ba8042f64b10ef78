/**
 * Integer hashing for the simulation. Every "random" figure is a pure function of (seed, ticker, what, when),
 * so any value can be recomputed at any instant without keeping state or iterating from an epoch.
 */

// Local aliases: inside vm contexts such as jest's, every read of a global (`Math`) is a slow lookup.
const { floor, imul, sqrt } = Math;

/** Murmur3's finaliser: a cheap, well-mixed 32-bit permutation. */
export function mix32(x: number): number {
  x = imul(x ^ (x >>> 16), 0x85ebca6b);
  x = imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Combines a running hash with one more integer (order matters). */
export function hashPair(h: number, value: number): number {
  // Split the value so integers beyond 32 bits (day ordinals times lattice scales, epoch seconds) still mix in.
  const low = value | 0;
  const high = floor(value / 4294967296) | 0;
  return mix32(imul(h ^ mix32(low), 0x9e3779b1) ^ mix32(high + 0x6a09e667));
}

/** hashPair over two or three values; fixed arity keeps the hot paths free of rest-array allocations. */
export function hashInts(h: number, a: number, b?: number): number {
  const first = hashPair(h, a);
  return b === undefined ? first : hashPair(first, b);
}

/** FNV-1a over UTF-16 code units, then mixed: turns seeds, tickers and labels into 32-bit keys. */
export function hashString(text: string, h = 0x811c9dc5): number {
  for (let i = 0; i < text.length; i++) h = imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix32(h);
}

/** Uniform in [0, 1). */
export function unit(h: number): number {
  return h / 4294967296;
}

/** Uniform in [-1, 1). */
export function signedUnit(h: number): number {
  return h / 2147483648 - 1;
}

/** Approximately standard normal (Irwin–Hall of 4 uniforms, rescaled); bounded, which keeps figures sane. */
export function gaussian(h: number): number {
  const a = mix32(h ^ 0x1b873593);
  const b = mix32(a ^ 0xcc9e2d51);
  const c = mix32(b ^ 0xe6546b64);
  return (unit(h) + unit(a) + unit(b) + unit(c) - 2) * sqrt(3);
}

/** Integer in [0, n). */
export function pick(h: number, n: number): number {
  return floor(unit(h) * n);
}

/** An element of a non-empty list chosen by a hash (the same hash, the same element). */
export function choose<T>(h: number, list: readonly T[]): T {
  const item = list[pick(h, list.length)];
  if (item === undefined) throw new Error('choose: the list is empty');
  return item;
}
