/**
 * The simulated price of an instrument as a pure function of (seed, ticker, trading time).
 *
 * Log price = anchor level + drift × time + multi-octave value noise. Each octave is hashed lattice values
 * joined by a quintic fade (so the path is continuous and smooth between lattice points); octave k has lattice
 * spacing 2^k trading days and amplitude ∝ √(2^k), which gives random-walk-like statistics at every scale
 * from minutes to years. Evaluating one instant costs a fixed ~20 octaves, whatever the date.
 *
 * Trading time `u`: one unit per trading day; a session covers [ordinal, ordinal + sessionShare] (see sessions.ts).
 */
import { hashPair, hashString, mix32, signedUnit } from './hash';
import type { Instrument } from './catalog';
import { tradingOrdinal } from './sessions';
import { parseDay } from './calendar';

// Local aliases: inside vm contexts such as jest's, every read of a global (`Math`) is a slow lookup.
const { exp, floor, imul, log, min, round, sqrt } = Math;

const MIN_OCTAVE = -8; // 1/256 trading day: a few minutes, below the 5-minute chart spacing
const MAX_OCTAVE = 10; // 1024 trading days: multi-year swings
/** Scales octave amplitudes so a day's log return has a standard deviation close to the daily volatility. */
const AMPLITUDE = 0.72;
/** Prices sit near the catalog level on this date. */
export const ANCHOR_DAY = parseDay('2025-07-01');

export interface PricePath {
  /** Lattice points per trading day of each octave. */
  readonly octaveFrequencies: Float64Array;
  readonly octaveKeys: Int32Array;
  readonly octaveAmplitudes: Float64Array;
  readonly anchorU: number;
  readonly logLevel: number;
  readonly driftPerUnit: number;
  readonly scale: number;
}

function latticeValue(octaveKey: number, i: number): number {
  return signedUnit(mix32(octaveKey ^ imul(i, 0x27d4eb2f) ^ (i >>> 16)));
}

function noise(path: PricePath, u: number): number {
  let sum = 0;
  for (let k = 0; k < path.octaveKeys.length; k++) {
    const x = u * (path.octaveFrequencies[k] as number);
    const i = floor(x);
    const f = x - i;
    const fade = f * f * f * (f * (f * 6 - 15) + 10);
    const key = path.octaveKeys[k] as number;
    const a = latticeValue(key, i);
    sum += (path.octaveAmplitudes[k] as number) * (a + (latticeValue(key, i + 1) - a) * fade);
  }
  return sum;
}

export function createPricePath(seedKey: number, instrument: Instrument): PricePath {
  const key = hashString(instrument.ticker, seedKey);
  const market = instrument.market;
  const unitsPerYear = (365.25 * market.weekdays.length) / 7;
  const sigma = instrument.volatility / sqrt(unitsPerYear);
  const octaves = MAX_OCTAVE - MIN_OCTAVE + 1;
  const octaveFrequencies = new Float64Array(octaves);
  const octaveKeys = new Int32Array(octaves);
  const octaveAmplitudes = new Float64Array(octaves);
  for (let k = 0; k < octaves; k++) {
    octaveFrequencies[k] = 2 ** -(k + MIN_OCTAVE);
    octaveKeys[k] = hashPair(key, k);
    octaveAmplitudes[k] = AMPLITUDE * sigma * sqrt(2 ** (k + MIN_OCTAVE));
  }
  const anchorU = tradingOrdinal(market, ANCHOR_DAY);
  // Cap the drift so that the price at the start of the history stays well above the rounding step.
  const years = (anchorU - tradingOrdinal(market, instrument.since)) / unitsPerYear;
  const lowest = 100 * 10 ** -instrument.decimals;
  const maxDrift = years > 0 ? log(instrument.anchorPrice / lowest) / years : instrument.drift;
  const drift = min(instrument.drift, maxDrift);
  const partial: PricePath = {
    octaveFrequencies,
    octaveKeys,
    octaveAmplitudes,
    anchorU,
    logLevel: 0,
    driftPerUnit: drift / unitsPerYear,
    scale: 10 ** instrument.decimals,
  };
  // Subtracting the noise at the anchor pins the anchor-date price to the catalog level.
  return { ...partial, logLevel: log(instrument.anchorPrice) - noise(partial, anchorU) };
}

/** Unrounded price at trading time u. */
function rawPriceAt(path: PricePath, u: number): number {
  return exp(path.logLevel + path.driftPerUnit * (u - path.anchorU) + noise(path, u));
}

/** Price at trading time u, rounded to the instrument's decimals: every published price goes through here. */
export function priceAt(path: PricePath, u: number): number {
  return round(rawPriceAt(path, u) * path.scale) / path.scale;
}
