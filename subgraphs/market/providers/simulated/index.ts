/**
 * The offline market data provider: a seeded, deterministic simulation over a shipped catalog of real
 * instruments. The same seed and the same clock give identical answers, and every figure agrees with every
 * other (see quotes.ts for the rounding rule, charts.ts and company.ts for how charts and ranges agree).
 */
import {
  UpstreamError,
  type MarketProvider,
  type MarketRequest,
  type MarketResult,
  type MarketValue,
} from '../provider';
import { findInstrument, SIMULATED_TICKERS, type Instrument } from './catalog';
import { chartOf } from './charts';
import { companyOf } from './company';
import { financialsOf } from './financials';
import { earningsOf, indicesOf, moversOf, relatedOf, trendingOf } from './lists';
import { headlineOf, newsOf } from './news';
import { quoteOf } from './quotes';
import { DEFAULT_SEED, Simulation } from './simulation';

export { SIMULATED_TICKERS };

export interface SimulatedMarketOptions {
  /** Different seeds give different (equally consistent) markets; default 'onegraph'. */
  seed?: string | number;
  /** The clock, epoch ms; default Date.now. */
  now?: () => number;
}

type TickerRequest = Extract<MarketRequest, { ticker: string }>;

function tickerAnswer(sim: Simulation, instrument: Instrument, request: TickerRequest, utcMs: number): MarketValue {
  switch (request.kind) {
    case 'quote':
      return quoteOf(sim, instrument, utcMs);
    case 'company':
      return companyOf(sim, instrument, utcMs);
    case 'chart':
      return chartOf(sim, instrument, request.range, utcMs);
    case 'news':
      return newsOf(sim, instrument, utcMs);
    case 'financials':
      return financialsOf(sim, instrument, utcMs);
    case 'related':
      return relatedOf(sim, instrument, utcMs);
  }
}

function answer(sim: Simulation, request: MarketRequest, utcMs: number): MarketValue {
  if ('ticker' in request) {
    // A ticker of a valid form that the catalog does not hold has no data: null (NOT_FOUND upstream of us).
    const instrument = findInstrument(request.ticker);
    return instrument === null ? null : tickerAnswer(sim, instrument, request, utcMs);
  }
  switch (request.kind) {
    case 'indices':
      return indicesOf(sim, utcMs);
    case 'movers':
      return moversOf(sim, request.category, request.count, request.offset, utcMs);
    case 'trending':
      return trendingOf(sim, utcMs);
    case 'earnings':
      return earningsOf(sim, utcMs);
    case 'headline':
      return headlineOf(sim, utcMs);
  }
}

function failure(what: string, cause: unknown): MarketResult {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return { ok: false, error: new UpstreamError(`simulated market failed on ${what}: ${detail}`, cause) };
}

export function createSimulatedProvider(options: SimulatedMarketOptions = {}): MarketProvider {
  const sim = new Simulation(options.seed ?? DEFAULT_SEED);
  const clock = options.now ?? Date.now;
  return {
    name: 'simulated',
    async fetch(requests: readonly MarketRequest[]): Promise<MarketResult[]> {
      // One reading of the clock per batch: everything answered together describes the same instant.
      let utcMs: number;
      try {
        utcMs = Math.floor(clock());
        if (!Number.isFinite(utcMs)) throw new Error(`the clock returned ${utcMs}`);
      } catch (e) {
        return requests.map(() => failure('reading the clock', e));
      }
      return requests.map((request): MarketResult => {
        try {
          return { ok: true, value: answer(sim, request, utcMs) };
        } catch (e) {
          return failure(request.kind, e);
        }
      });
    },
  };
}
