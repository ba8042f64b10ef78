/**
 * Company / instrument facts with today's trading range. The range figures are read off the charts the same
 * provider serves, so they agree by construction: open/high/low = first/max/min of the 1D chart, the 52-week
 * range spans every point of the 1Y chart and of today's 1D chart, volume = the sum of the 1D chart's volumes.
 * Company-only fields (CEO, employees, sector, P/E) are null for indices, ETFs, crypto and FX; market cap is
 * price × shares for stocks (in pounds for pence quotes), price × circulating supply for crypto, else null.
 */
import type { ChartPoint, CompanyInfo } from '../../model';
import { chartOf } from './charts';
import type { Instrument } from './catalog';
import { latestReportedQuarter, trailingEps } from './financials';
import { roundTo } from './quotes';
import type { Simulation } from './simulation';

function prices(points: readonly ChartPoint[]): number[] {
  return points.map((p) => p.price).filter((p): p is number => p !== null);
}

export function companyOf(sim: Simulation, instrument: Instrument, utcMs: number): CompanyInfo {
  const snap = sim.snapshot(instrument, utcMs);
  const day = chartOf(sim, instrument, '1D', utcMs, snap).points;
  const dayPrices = prices(day);
  const yearPrices = prices(chartOf(sim, instrument, '1Y', utcMs, snap).points).concat(dayPrices);
  const company = instrument.company;
  let marketCap: number | null = null;
  let peRatio: number | null = null;
  if (company !== null) {
    const price = snap.price * instrument.reportingUnit;
    marketCap = Math.round(price * company.sharesOutstanding);
    const eps = trailingEps(sim, instrument, latestReportedQuarter(sim, instrument, utcMs));
    peRatio = eps > 0 ? roundTo(price / eps, 2) : null;
  } else if (instrument.supply !== null) {
    marketCap = Math.round(snap.price * instrument.supply);
  }
  const volume = instrument.averageVolume === null ? null : day.reduce((sum, p) => sum + (p.volume ?? 0), 0);
  return {
    description: instrument.description,
    ceo: company?.ceo ?? null,
    employees: company?.employees ?? null,
    marketCap,
    open: dayPrices[0] ?? null,
    high: Math.max(...dayPrices),
    low: Math.min(...dayPrices),
    fiftyTwoWeekHigh: Math.max(...yearPrices),
    fiftyTwoWeekLow: Math.min(...yearPrices),
    peRatio,
    volume,
    sector: instrument.sector,
  };
}
