/**
 * Financial statements of stocks: the last 8 reported calendar quarters and the last 4 calendar years (fiscal
 * calendars are treated as calendar years). Each quarter's figures are a pure function of (seed, ticker,
 * quarter), so the history never changes; it only rolls forward when a quarter is reported, 20–44 days after it
 * ends. Amounts are in the reporting currency (the listing's; GBP for pence-quoted London listings).
 * - revenue and netIncome: whole currency units;
 * - eps = netIncome / sharesOutstanding and epsDiluted = netIncome / diluted shares (so epsDiluted ≤ eps when
 *   positive; equal to eps for a loss), both rounded to 2 decimals;
 * - operatingMargin: a percentage (30.5 means 30.5 %), 2 decimals;
 * - peRatio: the close on the period's last trading day / EPS over the period (trailing four quarters for a
 *   quarter), 2 decimals; null when that EPS is not positive.
 */
import type { FinancialPeriod } from '../../model';
import { quarterEndDay, quarterIndexOf, quarterLabel } from './calendar';
import type { CompanyFacts, Instrument } from './catalog';
import { gaussian, hashInts, pick, unit } from './hash';
import { ANCHOR_DAY } from './price-path';
import { tradingDayOnOrBefore, tradingOrdinal } from './sessions';
import type { Simulation } from './simulation';
import { localDayOf } from './timezones';
import { roundTo } from './quotes';

const QUARTERS_SHOWN = 8;
const YEARS_SHOWN = 4;

interface QuarterFigures {
  revenue: number;
  netIncome: number;
  operatingIncome: number;
  eps: number;
  epsDiluted: number;
}

function facts(instrument: Instrument): CompanyFacts {
  if (!instrument.company) throw new Error(`${instrument.ticker} has no company facts`);
  return instrument.company;
}

/** Day (local date) on which the quarter's results come out. */
export function reportDay(sim: Simulation, instrument: Instrument, quarter: number): number {
  return quarterEndDay(quarter) + 20 + pick(hashInts(sim.model(instrument).key, 11, quarter), 25);
}

/** The most recent quarter whose results are out at `utcMs`. */
export function latestReportedQuarter(sim: Simulation, instrument: Instrument, utcMs: number): number {
  const today = localDayOf(instrument.market.timeZone, utcMs);
  // Reports come 20–44 days after the quarter ends, so the previous quarter is either out or not yet.
  const previous = quarterIndexOf(today) - 1;
  return reportDay(sim, instrument, previous) <= today ? previous : previous - 1;
}

function dilutedEps(netIncome: number, shares: number, dilution: number, eps: number): number {
  // Dilution only lowers a profit per share; a loss per share stays the basic figure (anti-dilution).
  return netIncome > 0 ? roundTo(netIncome / (shares * (1 + dilution)), 2) : eps;
}

function quarterFigures(sim: Simulation, instrument: Instrument, quarter: number): QuarterFigures {
  const c = facts(instrument);
  const key = sim.model(instrument).key;
  const h = (salt: number): number => hashInts(key, salt, quarter);
  const years = (quarter - quarterIndexOf(ANCHOR_DAY)) / 4;
  const season = 1 + 0.04 * Math.sin((Math.PI / 2) * (quarter % 4) + unit(hashInts(key, 20)) * 2 * Math.PI);
  const revenue = Math.round((c.revenue / 4) * Math.exp(c.growth * years) * season * (1 + 0.03 * gaussian(h(21))));
  const netIncome = Math.round(revenue * (c.netMargin + 0.02 * gaussian(h(22))));
  const operatingIncome = revenue * (c.operatingMargin + 0.015 * gaussian(h(23)));
  const eps = roundTo(netIncome / c.sharesOutstanding, 2);
  const dilution = 0.003 + 0.017 * unit(h(24));
  return {
    revenue,
    netIncome,
    operatingIncome,
    eps,
    epsDiluted: dilutedEps(netIncome, c.sharesOutstanding, dilution, eps),
  };
}

/** Close on the last trading day of a period ending on `endDay`, in the reporting currency. */
function closeAt(sim: Simulation, instrument: Instrument, endDay: number): number {
  const ordinal = tradingOrdinal(instrument.market, tradingDayOnOrBefore(instrument.market, endDay));
  return sim.closeOf(instrument, ordinal) * instrument.reportingUnit;
}

function peRatio(price: number, eps: number): number | null {
  return eps > 0 ? roundTo(price / eps, 2) : null;
}

/** Sum of the reported (rounded) EPS of the four quarters ending with `quarter`. */
export function trailingEps(sim: Simulation, instrument: Instrument, quarter: number): number {
  let sum = 0;
  for (let q = quarter - 3; q <= quarter; q++) sum += quarterFigures(sim, instrument, q).eps;
  return roundTo(sum, 2);
}

function quarterPeriod(sim: Simulation, instrument: Instrument, quarter: number): FinancialPeriod {
  const f = quarterFigures(sim, instrument, quarter);
  return {
    fiscalEnd: quarterLabel(quarter),
    isAnnual: false,
    currency: instrument.reportingCurrency,
    revenue: f.revenue,
    netIncome: f.netIncome,
    eps: f.eps,
    epsDiluted: f.epsDiluted,
    operatingMargin: roundTo((100 * f.operatingIncome) / f.revenue, 2),
    peRatio: peRatio(closeAt(sim, instrument, quarterEndDay(quarter)), trailingEps(sim, instrument, quarter)),
  };
}

function yearPeriod(sim: Simulation, instrument: Instrument, year: number): FinancialPeriod {
  const shares = facts(instrument).sharesOutstanding;
  let revenue = 0;
  let netIncome = 0;
  let operatingIncome = 0;
  for (let q = year * 4; q < year * 4 + 4; q++) {
    const f = quarterFigures(sim, instrument, q);
    revenue += f.revenue;
    netIncome += f.netIncome;
    operatingIncome += f.operatingIncome;
  }
  const eps = roundTo(netIncome / shares, 2);
  const dilution = 0.003 + 0.017 * unit(hashInts(sim.model(instrument).key, 25, year));
  return {
    fiscalEnd: String(year),
    isAnnual: true,
    currency: instrument.reportingCurrency,
    revenue,
    netIncome,
    eps,
    epsDiluted: dilutedEps(netIncome, shares, dilution, eps),
    operatingMargin: roundTo((100 * operatingIncome) / revenue, 2),
    peRatio: peRatio(closeAt(sim, instrument, quarterEndDay(year * 4 + 3)), eps),
  };
}

/** Quarters newest first, then years newest first; [] for anything but a stock. */
export function financialsOf(sim: Simulation, instrument: Instrument, utcMs: number): FinancialPeriod[] {
  if (instrument.company === null) return [];
  const latest = latestReportedQuarter(sim, instrument, utcMs);
  const periods: FinancialPeriod[] = [];
  for (let q = latest; q > latest - QUARTERS_SHOWN; q--) periods.push(quarterPeriod(sim, instrument, q));
  // A year is reported with its fourth quarter.
  const lastYear = Math.floor((latest + 1) / 4) - 1;
  for (let y = lastYear; y > lastYear - YEARS_SHOWN; y--) periods.push(yearPeriod(sim, instrument, y));
  return periods;
}
