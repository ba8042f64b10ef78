/**
 * Charts. Every range ends with the quote's price at the same instant, and `previousClose` is the close just
 * before the period covered by the first point (for 1D: the quote's previous close).
 * - 1D: the latest session every 5 minutes from the open, plus a final point at the current instant;
 * - 5D: the last 5 sessions every 30 minutes (each from its open to its close);
 * - 1M, 6M, YTD, 1Y: one point per trading day (the session's close; today's latest price);
 * - 5Y: one point per week (its last session), MAX: one per month, since the catalog's `since` date.
 * Intraday dates carry time and UTC offset in the exchange's zone; the others are `YYYY-MM-DD` (session dates).
 * Volumes are per point (for a daily/weekly/monthly point, the sessions it covers); null where there is none.
 */
import type { ChartData, ChartPoint, ChartRange } from '../../model';
import { addMonths, civilFromDays, daysFromCivil, formatDay, MS_PER_MINUTE, mondayOf } from './calendar';
import type { Instrument } from './catalog';
import {
  nextTradingDay,
  previousSession,
  previousTradingDay,
  tradingDayOnOrAfter,
  tradingDayOnOrBefore,
  tradingOrdinal,
  type Session,
} from './sessions';
import type { Simulation, Snapshot } from './simulation';
import { formatInZone } from './timezones';

// Local aliases: inside vm contexts such as jest's, every read of a global (`Math`) is a slow lookup.
const { floor, max, min } = Math;

const ONE_DAY_STEP = 5 * MS_PER_MINUTE;
const FIVE_DAY_STEP = 30 * MS_PER_MINUTE;

/** Points of one session from its open to `end` (its close, or now), every `step`, with the end always included. */
function intradayPoints(
  sim: Simulation,
  instrument: Instrument,
  s: Session,
  end: number,
  step: number,
  out: ChartPoint[],
): void {
  const zone = instrument.market.timeZone;
  let volumeBefore = 0;
  const push = (t: number): void => {
    const cumulative = sim.volumeUntil(instrument, s, t);
    out.push({
      date: formatInZone(zone, t),
      price: sim.priceIn(instrument, s, t),
      volume: cumulative === null ? null : cumulative - volumeBefore,
    });
    if (cumulative !== null) volumeBefore = cumulative;
  };
  // Dates have whole seconds: a grid point in the same second as `end` would repeat its date, so `end` replaces it.
  const lastSecond = floor(end / 1000) * 1000;
  for (let t = s.open; t < lastSecond; t += step) push(t);
  push(end);
}

/**
 * 24-hour markets open a session at the instant the previous one closes (same time, same price): keep one point
 * there, carrying both volumes, instead of two points with the same date. The later point is kept, so a session
 * only a few milliseconds old still ends on the current price.
 */
function mergeSharedBoundary(points: ChartPoint[], firstOfSession: number): void {
  const last = points[firstOfSession - 1];
  const first = points[firstOfSession];
  if (last === undefined || first === undefined || last.date !== first.date) return;
  if (last.volume !== null && first.volume !== null) first.volume += last.volume;
  points.splice(firstOfSession - 1, 1);
}

interface Period {
  /** First and last trading day (local dates) the point covers. */
  first: number;
  last: number;
}

/** A point per period: the last session's close (today's price for the live one) and the periods' summed volume. */
function periodPoints(
  sim: Simulation,
  instrument: Instrument,
  snap: Snapshot,
  now: number,
  periods: readonly Period[],
): ChartPoint[] {
  const market = instrument.market;
  const today = snap.session;
  return periods.map((p) => {
    const isCurrent = p.last === today.day;
    const lastOrdinal = tradingOrdinal(market, p.last);
    // The current period holds today's session, which is still trading: its volume so far is added on top.
    const closed = sim.volumeBetween(instrument, p.first, isCurrent ? today.day - 1 : p.last);
    const volume =
      closed === null ? null : closed + (isCurrent ? (sim.volumeUntil(instrument, today, now) as number) : 0);
    return {
      date: formatDay(p.last),
      price: isCurrent ? snap.price : sim.closeOf(instrument, lastOrdinal),
      volume,
    };
  });
}

/** Pushes the trading days of [first, last] ∩ [from, to] as one period, if there are any. */
function pushPeriod(
  periods: Period[],
  instrument: Instrument,
  first: number,
  last: number,
  from: number,
  to: number,
): void {
  const market = instrument.market;
  const a = tradingDayOnOrAfter(market, max(first, from));
  const b = tradingDayOnOrBefore(market, min(last, to));
  if (a <= b) periods.push({ first: a, last: b });
}

function dailyPeriods(instrument: Instrument, from: number, to: number): Period[] {
  const periods: Period[] = [];
  for (let d = tradingDayOnOrAfter(instrument.market, from); d <= to; d = nextTradingDay(instrument.market, d)) {
    periods.push({ first: d, last: d });
  }
  return periods;
}

function weeklyPeriods(instrument: Instrument, from: number, to: number): Period[] {
  const periods: Period[] = [];
  for (let monday = mondayOf(from); monday <= to; monday += 7)
    pushPeriod(periods, instrument, monday, monday + 6, from, to);
  return periods;
}

function monthlyPeriods(instrument: Instrument, from: number, to: number): Period[] {
  const periods: Period[] = [];
  const start = civilFromDays(from);
  for (let m = start.year * 12 + start.month - 1; ; m++) {
    const first = daysFromCivil(floor(m / 12), (m % 12) + 1, 1);
    if (first > to) break;
    const next = daysFromCivil(floor((m + 1) / 12), ((m + 1) % 12) + 1, 1);
    pushPeriod(periods, instrument, first, next - 1, from, to);
  }
  return periods;
}

function rangeStart(range: ChartRange, today: number): number {
  switch (range) {
    case '1M':
      return addMonths(today, -1) + 1;
    case '6M':
      return addMonths(today, -6) + 1;
    case 'YTD':
      return daysFromCivil(civilFromDays(today).year, 1, 1);
    case '1Y':
      return addMonths(today, -12) + 1;
    // Whole weeks only: the first week starting after the 5-year boundary.
    case '5Y':
      return mondayOf(addMonths(today, -60)) + 7;
    default:
      return today;
  }
}

export function chartOf(
  sim: Simulation,
  instrument: Instrument,
  range: ChartRange,
  utcMs: number,
  snap = sim.snapshot(instrument, utcMs),
): ChartData {
  const market = instrument.market;
  const today = snap.session;
  const now = min(utcMs, today.close);
  switch (range) {
    case '1D': {
      const points: ChartPoint[] = [];
      intradayPoints(sim, instrument, today, now, ONE_DAY_STEP, points);
      return { previousClose: snap.previousClose, points };
    }
    case '5D': {
      const sessions = [today];
      while (sessions.length < 5) sessions.unshift(previousSession(market, sessions[0] as Session));
      const points: ChartPoint[] = [];
      for (const s of sessions) {
        const before = points.length;
        intradayPoints(sim, instrument, s, s === today ? now : s.close, FIVE_DAY_STEP, points);
        mergeSharedBoundary(points, before);
      }
      return { previousClose: sim.closeOf(instrument, (sessions[0] as Session).ordinal - 1), points };
    }
    case 'MAX': {
      const from = min(instrument.since, today.day);
      const periods = monthlyPeriods(instrument, from, today.day);
      return withPreviousClose(sim, instrument, periods, periodPoints(sim, instrument, snap, now, periods));
    }
    case '5Y': {
      const periods = weeklyPeriods(instrument, rangeStart(range, today.day), today.day);
      return withPreviousClose(sim, instrument, periods, periodPoints(sim, instrument, snap, now, periods));
    }
    default: {
      const periods = dailyPeriods(instrument, rangeStart(range, today.day), today.day);
      return withPreviousClose(sim, instrument, periods, periodPoints(sim, instrument, snap, now, periods));
    }
  }
}

function withPreviousClose(
  sim: Simulation,
  instrument: Instrument,
  periods: readonly Period[],
  points: ChartPoint[],
): ChartData {
  const first = periods[0] as Period;
  const before = previousTradingDay(instrument.market, first.first);
  return { previousClose: sim.closeOf(instrument, tradingOrdinal(instrument.market, before)), points };
}
