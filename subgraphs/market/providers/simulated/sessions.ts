/**
 * Trading hours. A market trades one session per trading day, in its own time zone; exchange holidays are
 * ignored (every Monday–Friday is a trading day) because no offline source of holiday calendars exists here and
 * the figures only have to be self-consistent.
 *
 * Sessions are numbered by an ordinal (trading days since 1970-01-01), computed in O(1), so the price path can be
 * laid out in "trading time" and evaluated at any instant without walking from an epoch.
 */
import { BoundedMap } from '../../bounded-map';
import { weekdayOf } from './calendar';
import { localDayOf, utcFromLocal } from './timezones';

// Local aliases: inside vm contexts such as jest's, every read of a global (`Math`) is a slow lookup.
const { floor } = Math;

export interface ExtendedHours {
  /** Local minute of the trading day when pre-market trading starts (04:00 = 240). */
  preOpen: number;
  /** Local minute when post-market trading ends (20:00 = 1200). */
  postClose: number;
}

export interface Market {
  readonly id: string;
  readonly timeZone: string;
  /** Local minutes after midnight of the session's date; negative = the evening before (FX opens 17:00 the day before). */
  readonly open: number;
  readonly close: number;
  /** Trading weekdays, 0 = Sunday. */
  readonly weekdays: readonly number[];
  /**
   * Share of one unit of the price path's trading time taken by the session. Below 1 the rest is the overnight
   * gap, so the next open differs from this close as real openings do; 1 makes the path continuous (24h markets).
   */
  readonly sessionShare: number;
  /** US pre- and post-market trading; null where the market has none. */
  readonly extended: ExtendedHours | null;
}

export interface Session {
  /** Local date of the session (days since 1970-01-01); FX sessions carry the date they close on. */
  readonly day: number;
  /** Trading days before this one since 1970-01-01. */
  readonly ordinal: number;
  /** UTC ms. */
  readonly open: number;
  readonly close: number;
}

const WEEKDAYS = [1, 2, 3, 4, 5] as const;
const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6] as const;
const STOCK_SHARE = 0.75;

function exchangeHours(
  id: string,
  timeZone: string,
  open: string,
  close: string,
  extended: ExtendedHours | null = null,
): Market {
  const minutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  return {
    id,
    timeZone,
    open: minutes(open),
    close: minutes(close),
    weekdays: WEEKDAYS,
    sessionShare: STOCK_SHARE,
    extended,
  };
}

/** US extended hours: pre-market from 04:00, post-market until 20:00 New York time. */
const US_EXTENDED: ExtendedHours = { preOpen: 4 * 60, postClose: 20 * 60 };

export const MARKETS = {
  US: exchangeHours('US', 'America/New_York', '09:30', '16:00', US_EXTENDED),
  // Indices are computed during regular hours only: same clock as the US exchanges, no extended session.
  US_INDEX: exchangeHours('US_INDEX', 'America/New_York', '09:30', '16:00'),
  IST: exchangeHours('IST', 'Europe/Istanbul', '10:00', '18:00'),
  LON: exchangeHours('LON', 'Europe/London', '08:00', '16:30'),
  ETR: exchangeHours('ETR', 'Europe/Berlin', '09:00', '17:30'),
  EPA: exchangeHours('EPA', 'Europe/Paris', '09:00', '17:30'),
  // Tokyo has closed at 15:30 since November 2024; its 11:30–12:30 lunch break is ignored.
  TYO: exchangeHours('TYO', 'Asia/Tokyo', '09:00', '15:30'),
  TSE: exchangeHours('TSE', 'America/Toronto', '09:30', '16:00'),
  // Crypto trades around the clock; a "session" is one UTC day, so the previous close is the price at UTC midnight.
  CRYPTO: {
    id: 'CRYPTO',
    timeZone: 'UTC',
    open: 0,
    close: 24 * 60,
    weekdays: EVERY_DAY,
    sessionShare: 1,
    extended: null,
  },
  // FX trades 24/5: each trading day runs 17:00–17:00 New York time, from Sunday evening to Friday 17:00.
  FX: {
    id: 'FX',
    timeZone: 'America/New_York',
    open: -7 * 60,
    close: 17 * 60,
    weekdays: WEEKDAYS,
    sessionShare: 1,
    extended: null,
  },
} as const satisfies Record<string, Market>;

export type MarketId = keyof typeof MARKETS;

interface MarketTables {
  trading: boolean[];
  /** Trading days among the first r days of a week that starts on a Thursday (day 0 is a Thursday). */
  prefix: number[];
  perWeek: number;
  sessions: BoundedMap<number, Session>;
}

const tables = new Map<string, MarketTables>();

function tablesOf(market: Market): MarketTables {
  let t = tables.get(market.id);
  if (!t) {
    const trading = Array.from({ length: 7 }, (_, wd) => market.weekdays.includes(wd));
    const prefix = [0];
    for (let r = 0; r < 7; r++) prefix.push((prefix[r] as number) + (trading[(r + 4) % 7] ? 1 : 0));
    t = { trading, prefix, perWeek: prefix[7] as number, sessions: new BoundedMap(4096) };
    tables.set(market.id, t);
  }
  return t;
}

export function isTradingDay(market: Market, day: number): boolean {
  return tablesOf(market).trading[weekdayOf(day)] as boolean;
}

/** Number of trading days in [1970-01-01, day). */
export function tradingOrdinal(market: Market, day: number): number {
  const t = tablesOf(market);
  const weeks = floor(day / 7);
  return weeks * t.perWeek + (t.prefix[day - weeks * 7] as number);
}

/** The session held on local date `day`; the caller checks that it is a trading day. */
export function sessionOn(market: Market, day: number): Session {
  return tablesOf(market).sessions.getOrCompute(day, () => ({
    day,
    ordinal: tradingOrdinal(market, day),
    open: utcFromLocal(market.timeZone, day, market.open),
    close: utcFromLocal(market.timeZone, day, market.close),
  }));
}

export function previousTradingDay(market: Market, day: number): number {
  let d = day - 1;
  while (!isTradingDay(market, d)) d--;
  return d;
}

export function nextTradingDay(market: Market, day: number): number {
  let d = day + 1;
  while (!isTradingDay(market, d)) d++;
  return d;
}

/** First trading day on or after `day`. */
export function tradingDayOnOrAfter(market: Market, day: number): number {
  return isTradingDay(market, day) ? day : nextTradingDay(market, day);
}

/** Last trading day on or before `day`. */
export function tradingDayOnOrBefore(market: Market, day: number): number {
  return isTradingDay(market, day) ? day : previousTradingDay(market, day);
}

/** The latest session that has opened at `utcMs` (the live one, or the last closed one). */
export function latestSession(market: Market, utcMs: number): Session {
  // A session opening the evening before its date (FX) may already be open on the previous local date.
  let day = localDayOf(market.timeZone, utcMs) + (market.open < 0 ? 1 : 0);
  for (;;) {
    day = tradingDayOnOrBefore(market, day);
    const s = sessionOn(market, day);
    if (s.open <= utcMs) return s;
    day--;
  }
}

export function previousSession(market: Market, s: Session): Session {
  return sessionOn(market, previousTradingDay(market, s.day));
}

export function nextSession(market: Market, s: Session): Session {
  return sessionOn(market, nextTradingDay(market, s.day));
}

/** Position on the price path's trading-time axis of an instant inside (or clamped into) a session. */
export function sessionTime(market: Market, s: Session, utcMs: number): number {
  const f = utcMs <= s.open ? 0 : utcMs >= s.close ? 1 : (utcMs - s.open) / (s.close - s.open);
  return s.ordinal + market.sessionShare * f;
}

/** Trading time of a session's close; needs no time-zone work, only the ordinal. */
export function closeTime(market: Market, ordinal: number): number {
  return ordinal + market.sessionShare;
}
