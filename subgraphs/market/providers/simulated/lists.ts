/**
 * Market-wide lists. Every row carries the same price/change/changePercent as the instrument's quote at the
 * same instant, because both are built from the same snapshot.
 */
import type { EarningsEvent, MarketListItem, MoverCategory } from '../../model';
import { CATALOG, type Instrument } from './catalog';
import { formatDay, quarterLabel } from './calendar';
import { latestReportedQuarter, reportDay } from './financials';
import { hashInts, unit } from './hash';
import { priceChange } from './quotes';
import type { Simulation } from './simulation';

// Local aliases: inside vm contexts such as jest's, every read of a global (`Math`) is a slow lookup.
const { abs, floor, max, min, trunc } = Math;

const RELATED_COUNT = 8;
const TRENDING_COUNT = 10;

const STOCKS = CATALOG.filter((i) => i.type === 'stock');

export function listItem(
  sim: Simulation,
  instrument: Instrument,
  utcMs: number,
  snap = sim.snapshot(instrument, utcMs),
): MarketListItem {
  return {
    ticker: instrument.ticker,
    name: instrument.name,
    ...priceChange(snap.price, snap.previousClose, instrument.decimals),
  };
}

/**
 * Up to 8 other instruments of the same type; for stocks those of the same sector first, then the same market,
 * then the rest, each group in catalog order.
 */
export function relatedOf(sim: Simulation, instrument: Instrument, utcMs: number): MarketListItem[] {
  const rank = (other: Instrument): number =>
    (other.sector !== null && other.sector === instrument.sector ? 0 : 2) +
    (other.market === instrument.market ? 0 : 1);
  return CATALOG.filter((other) => other.type === instrument.type && other !== instrument)
    .map((other, order) => ({ other, order, rank: rank(other) }))
    .sort((a, b) => a.rank - b.rank || a.order - b.order)
    .slice(0, RELATED_COUNT)
    .map(({ other }) => listItem(sim, other, utcMs));
}

export function indicesOf(sim: Simulation, utcMs: number): MarketListItem[] {
  return CATALOG.filter((i) => i.type === 'index').map((i) => listItem(sim, i, utcMs));
}

function compareTickers(a: { ticker: string }, b: { ticker: string }): number {
  return a.ticker < b.ticker ? -1 : a.ticker > b.ticker ? 1 : 0;
}

export interface MoverRow {
  item: MarketListItem;
  /** Today's volume so far. */
  volume: number;
}

/**
 * The full order of a movers category: most-active by volume (descending), gainers by changePercent (descending,
 * only those up), losers by changePercent (ascending, only those down); ties by ticker, so every page is a slice
 * of one fixed order.
 */
export function rankMovers(rows: readonly MoverRow[], category: MoverCategory): MoverRow[] {
  const pct = (r: MoverRow): number => r.item.changePercent ?? 0;
  const byTicker = (a: MoverRow, b: MoverRow): number => compareTickers(a.item, b.item);
  switch (category) {
    case 'most-active':
      return [...rows].sort((a, b) => b.volume - a.volume || byTicker(a, b));
    case 'gainers':
      return rows.filter((r) => pct(r) > 0).sort((a, b) => pct(b) - pct(a) || byTicker(a, b));
    case 'losers':
      return rows.filter((r) => pct(r) < 0).sort((a, b) => pct(a) - pct(b) || byTicker(a, b));
    default:
      // Only reachable if a caller bypasses the types; name the bad value rather than fail obscurely.
      throw new Error(`unknown movers category ${JSON.stringify(category)}; expected most-active, gainers or losers`);
  }
}

/** Movers among the catalog's stocks: page = rankMovers(…).slice(offset, offset + count). */
export function moversOf(
  sim: Simulation,
  category: MoverCategory,
  count: number,
  offset: number,
  utcMs: number,
): MarketListItem[] {
  const rows = STOCKS.map((instrument): MoverRow => {
    const snap = sim.snapshot(instrument, utcMs);
    return {
      item: listItem(sim, instrument, utcMs, snap),
      volume: sim.volumeUntil(instrument, snap.session, utcMs) ?? 0,
    };
  });
  const start = max(0, trunc(offset));
  return rankMovers(rows, category)
    .slice(start, start + max(0, trunc(count)))
    .map((r) => r.item);
}

/**
 * Ten stocks, ETFs or coins by an "attention" score: a hashed daily (UTC) interest plus how far the price moved
 * today; ties by ticker.
 */
export function trendingOf(sim: Simulation, utcMs: number): MarketListItem[] {
  const day = floor(utcMs / 86_400_000);
  return CATALOG.filter((i) => i.type === 'stock' || i.type === 'etf' || i.type === 'crypto')
    .map((instrument) => {
      const item = listItem(sim, instrument, utcMs);
      const interest = unit(hashInts(sim.model(instrument).key, 40, day));
      return { item, ticker: instrument.ticker, score: interest + min(abs(item.changePercent ?? 0), 10) / 20 };
    })
    .sort((a, b) => b.score - a.score || compareTickers(a, b))
    .slice(0, TRENDING_COUNT)
    .map((r) => r.item);
}

/**
 * Each stock's next report (the quarter after its latest reported one), soonest first; ties by ticker: `date` is the
 * quarter (`YYYY-Qn`, as the original service said it), `reportDate` the day it comes out.
 */
export function earningsOf(sim: Simulation, utcMs: number): EarningsEvent[] {
  return STOCKS.map((instrument) => {
    const quarter = latestReportedQuarter(sim, instrument, utcMs) + 1;
    return { instrument, ticker: instrument.ticker, quarter, day: reportDay(sim, instrument, quarter) };
  })
    .sort((a, b) => a.day - b.day || compareTickers(a, b))
    .map(({ instrument, quarter, day }) => ({
      ticker: instrument.ticker,
      name: instrument.name,
      date: quarterLabel(quarter),
      exchange: instrument.exchange,
      reportDate: formatDay(day),
    }));
}
