/**
 * Quotes. Rounding rule (the identities hold exactly on the published numbers):
 * - every price (price, previousClose, after-hours price, chart points, open/high/low) is rounded to the
 *   instrument's decimals (2; 4 for FX pairs and coins priced under 10);
 * - change = round(price − previousClose, decimals), computed from the rounded prices;
 * - changePercent = round(change / previousClose × 100, 4), computed from the rounded change.
 */
import type { AfterHours, PriceChange, Quote } from '../../model';
import type { Instrument } from './catalog';
import { priceAt } from './price-path';
import { nextSession } from './sessions';
import type { Simulation, Snapshot } from './simulation';
import { utcFromLocal } from './timezones';

// Local aliases: inside vm contexts such as jest's, every read of a global (`Math`) is a slow lookup.
const { min, round } = Math;

const PERCENT_DECIMALS = 4;

export function roundTo(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return round(value * scale) / scale;
}

/** change and changePercent of `price` against a reference price, by the rounding rule above. */
export function priceChange(price: number, reference: number, decimals: number): PriceChange {
  const change = roundTo(price - reference, decimals);
  return {
    price,
    change,
    changePercent: reference === 0 ? null : roundTo((change / reference) * 100, PERCENT_DECIMALS),
  };
}

/*
 * Extended hours (US-listed stocks and ETFs only). Outside the regular session `afterHours` is always present:
 * - post-market 16:00–20:00 New York time: the price keeps moving;
 * - 20:00 until the next 04:00 (nights, weekends): it stays at the 20:00 price;
 * - pre-market 04:00–09:30: it moves again, towards the next open;
 * and its change is always against the last regular close (= the quote's price while the market is closed).
 * During regular hours it is null. On the price path, post-market and pre-market walk through the overnight gap
 * between one session's close (ordinal + 0.75) and the next open (ordinal + 1).
 */
const POST_MARKET_SPAN = 0.08;
const PRE_MARKET_SPAN = 0.12;

export function afterHours(sim: Simulation, instrument: Instrument, snap: Snapshot, utcMs: number): AfterHours | null {
  const market = instrument.market;
  const ext = market.extended;
  if (ext === null || snap.live) return null;
  const s = snap.session;
  const next = nextSession(market, s);
  const preOpen = utcFromLocal(market.timeZone, next.day, ext.preOpen);
  let u: number;
  if (utcMs >= preOpen) {
    u = next.ordinal - (PRE_MARKET_SPAN * (next.open - utcMs)) / (next.open - preOpen);
  } else {
    const postClose = utcFromLocal(market.timeZone, s.day, ext.postClose);
    u = s.ordinal + market.sessionShare + POST_MARKET_SPAN * min(1, (utcMs - s.close) / (postClose - s.close));
  }
  const price = priceAt(sim.model(instrument).path, u);
  return priceChange(price, snap.price, instrument.decimals);
}

export function quoteOf(
  sim: Simulation,
  instrument: Instrument,
  utcMs: number,
  snap = sim.snapshot(instrument, utcMs),
): Quote {
  return {
    ticker: instrument.ticker,
    exchange: instrument.exchange,
    name: instrument.name,
    type: instrument.type,
    currency: instrument.currency,
    timezone: instrument.market.timeZone,
    ...priceChange(snap.price, snap.previousClose, instrument.decimals),
    previousClose: snap.previousClose,
    afterHours: afterHours(sim, instrument, snap, utcMs),
  };
}
