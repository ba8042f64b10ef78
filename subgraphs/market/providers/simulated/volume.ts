/**
 * Traded volume, built top-down so that every sum a chart needs is cheap and exact:
 * - each calendar month (in the market's time zone) gets a total in O(1): average daily volume × its sessions ×
 *   a slow busy/quiet regime × noise;
 * - the month's total is split over its sessions by hashed weights (integer cumulative allocation, so the
 *   sessions add up exactly to the month);
 * - a session's volume is spread over the session by a fixed intraday profile (see volumeShare), so the
 *   volumes of the 1D chart's points add up exactly to the session's volume so far.
 * A MAX chart therefore costs O(months), not O(sessions), and weekly/daily points agree with monthly ones.
 */
import { hashPair, mix32, signedUnit } from './hash';
import type { Market } from './sessions';

// Local aliases: inside vm contexts such as jest's, every read of a global (`Math`) is a slow lookup.
const { exp, floor, round, sqrt } = Math;

/** Share of the day traded in the opening auction (stocks) or first moment (24h markets), so the open has volume. */
const OPENING_SHARE = 0.02;
const OPENING_SHARE_24H = 0.002;
/** Months between lattice points of the slow regime. */
const REGIME_MONTHS = 3;

export interface MonthVolume {
  /** Ordinal of the month's first session, and how many sessions the month has. */
  readonly firstOrdinal: number;
  readonly sessions: number;
  readonly total: number;
  /** cumulative[k] = volume of the month's first k sessions; built on first partial use. */
  cumulative: Float64Array | null;
}

/** Roughly standard normal: Irwin–Hall of four 16-bit uniforms taken from two hashes. */
function normal(h1: number): number {
  const h2 = mix32(h1 ^ 0x9e3779b9);
  const sum = (h1 & 0xffff) + (h1 >>> 16) + (h2 & 0xffff) + (h2 >>> 16);
  return (sum / 65536 - 2) * sqrt(3);
}

function regime(volumeKey: number, month: number): number {
  const x = month / REGIME_MONTHS;
  const i = floor(x);
  const f = x - i;
  const a = signedUnit(hashPair(volumeKey, 3 * i));
  return a + (signedUnit(hashPair(volumeKey, 3 * i + 3)) - a) * f * f * (3 - 2 * f);
}

export function monthVolume(
  volumeKey: number,
  average: number,
  month: number,
  firstOrdinal: number,
  sessions: number,
): MonthVolume {
  const level = exp(0.3 * regime(volumeKey, month) + 0.1 * normal(hashPair(volumeKey, 3 * month + 1)) - 0.05);
  return { firstOrdinal, sessions, total: round(average * sessions * level), cumulative: null };
}

function cumulativeOf(volumeKey: number, m: MonthVolume): Float64Array {
  if (m.cumulative === null) {
    const weights = new Float64Array(m.sessions + 1);
    for (let k = 0; k < m.sessions; k++) {
      weights[k + 1] = (weights[k] as number) + exp(0.3 * normal(hashPair(volumeKey, 3 * (m.firstOrdinal + k) + 2)));
    }
    const all = weights[m.sessions] as number;
    const cumulative = new Float64Array(m.sessions + 1);
    for (let k = 1; k < m.sessions; k++) cumulative[k] = floor((m.total * (weights[k] as number)) / all);
    cumulative[m.sessions] = m.total;
    m.cumulative = cumulative;
  }
  return m.cumulative;
}

/** Volume of the month's sessions with index k in [from, to). */
export function monthSlice(volumeKey: number, m: MonthVolume, from: number, to: number): number {
  if (from >= to) return 0;
  if (from === 0 && to === m.sessions) return m.total;
  const c = cumulativeOf(volumeKey, m);
  return (c[to] as number) - (c[from] as number);
}

/**
 * Cumulative share of the day's volume traded by fraction `f` of the session: U-shaped intensity for exchanges
 * (busy open and close), flat for markets that trade around the clock.
 */
export function volumeShare(market: Market, f: number): number {
  if (f >= 1) return 1;
  if (f <= 0) return market.sessionShare === 1 ? OPENING_SHARE_24H : OPENING_SHARE;
  if (market.sessionShare === 1) return OPENING_SHARE_24H + (1 - OPENING_SHARE_24H) * f;
  // ∫ (0.6 + 7.2 (x − ½)²) dx from 0 to f, normalised by its value at f = 1 (1.2).
  const g = (0.6 * f + 2.4 * ((f - 0.5) ** 3 + 0.125)) / 1.2;
  return OPENING_SHARE + (1 - OPENING_SHARE) * g;
}
