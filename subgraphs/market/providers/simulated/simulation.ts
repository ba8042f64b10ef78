/**
 * One seeded simulation: the per-instrument price paths and keys, plus the memos that make repeated work cheap.
 * Everything it returns is a pure function of (seed, ticker, time), so memoised values never go stale.
 */
import type { Instrument } from './catalog';
import { BoundedMap } from '../../bounded-map';
import { hashInts, hashString } from './hash';
import { createPricePath, priceAt, type PricePath } from './price-path';
import { closeTime, latestSession, sessionTime, tradingOrdinal, type Session } from './sessions';
import { monthSlice, monthVolume, volumeShare, type MonthVolume } from './volume';
import { civilFromDays, daysFromCivil } from './calendar';

// Local aliases: inside vm contexts such as jest's, every read of a global (`Math`) is a slow lookup.
const { floor, max, min } = Math;

export const DEFAULT_SEED = 'onegraph';
/** Enough for a year of daily closes plus 5Y weekly and decades of monthly ones, ~60 kB per instrument. */
const CLOSES_PER_INSTRUMENT = 2048;
/** Sixty years of months. */
const MONTHS_PER_INSTRUMENT = 720;

export interface InstrumentModel {
  readonly path: PricePath;
  /** Seeded key of the instrument for everything but prices (volume, news, financials, attention). */
  readonly key: number;
  /** Session closes by ordinal: daily, weekly and monthly charts and the 52-week range read the same ones. */
  readonly closes: BoundedMap<number, number>;
  /** Monthly volume totals (and their per-session split once needed). */
  readonly months: BoundedMap<number, MonthVolume>;
}

/** Where an instrument stands at an instant: the latest session that has opened, and the published prices. */
export interface Snapshot {
  readonly session: Session;
  /** The instant lies inside the regular session. */
  readonly live: boolean;
  /** Last price: the live price, or the last session's close. */
  readonly price: number;
  readonly previousClose: number;
}

export class Simulation {
  readonly seedKey: number;
  private readonly models = new Map<string, InstrumentModel>();

  constructor(seed: string | number) {
    this.seedKey = hashString(String(seed));
  }

  model(instrument: Instrument): InstrumentModel {
    let m = this.models.get(instrument.ticker);
    if (!m) {
      m = {
        path: createPricePath(this.seedKey, instrument),
        key: hashInts(hashString(instrument.ticker, this.seedKey), 0x5eed),
        closes: new BoundedMap(CLOSES_PER_INSTRUMENT),
        months: new BoundedMap(MONTHS_PER_INSTRUMENT),
      };
      this.models.set(instrument.ticker, m);
    }
    return m;
  }

  /** Published (rounded) price at an instant of a session; instants outside it are clamped to its open/close. */
  priceIn(instrument: Instrument, session: Session, utcMs: number): number {
    return priceAt(this.model(instrument).path, sessionTime(instrument.market, session, utcMs));
  }

  /** Published close of the session with this ordinal; needs no time-zone work. */
  closeOf(instrument: Instrument, ordinal: number): number {
    const m = this.model(instrument);
    let close = m.closes.get(ordinal);
    if (close === undefined) {
      close = priceAt(m.path, closeTime(instrument.market, ordinal));
      m.closes.set(ordinal, close);
    }
    return close;
  }

  snapshot(instrument: Instrument, utcMs: number): Snapshot {
    const session = latestSession(instrument.market, utcMs);
    return {
      session,
      live: utcMs < session.close,
      price: this.priceIn(instrument, session, utcMs),
      previousClose: this.closeOf(instrument, session.ordinal - 1),
    };
  }

  private month(instrument: Instrument, average: number, month: number): MonthVolume {
    const m = this.model(instrument);
    let v = m.months.get(month);
    if (v === undefined) {
      const market = instrument.market;
      const year = floor(month / 12);
      const first = tradingOrdinal(market, daysFromCivil(year, month - year * 12 + 1, 1));
      const next = tradingOrdinal(market, daysFromCivil(floor((month + 1) / 12), ((month + 1) % 12) + 1, 1));
      v = monthVolume(m.key, average, month, first, next - first);
      m.months.set(month, v);
    }
    return v;
  }

  /** Volume of all sessions dated in [fromDay, toDay] (local dates); 0 for an empty span, null without volume. */
  volumeBetween(instrument: Instrument, fromDay: number, toDay: number): number | null {
    const average = instrument.averageVolume;
    if (average === null) return null;
    if (toDay < fromDay) return 0;
    const market = instrument.market;
    // Sessions dated in [fromDay, toDay] are exactly the ordinals [ord(fromDay), ord(toDay + 1)).
    const fromOrdinal = tradingOrdinal(market, fromDay);
    const toOrdinal = tradingOrdinal(market, toDay + 1);
    const key = this.model(instrument).key;
    let sum = 0;
    for (let month = monthIndexOf(fromDay); month <= monthIndexOf(toDay); month++) {
      const v = this.month(instrument, average, month);
      const from = max(0, fromOrdinal - v.firstOrdinal);
      const to = min(v.sessions, toOrdinal - v.firstOrdinal);
      sum += monthSlice(key, v, from, to);
    }
    return sum;
  }

  /** Volume traded in a session up to an instant (clamped to the session). */
  volumeUntil(instrument: Instrument, session: Session, utcMs: number): number | null {
    const total = this.volumeBetween(instrument, session.day, session.day);
    if (total === null) return null;
    const f = (utcMs - session.open) / (session.close - session.open);
    return floor(total * volumeShare(instrument.market, f));
  }
}

function monthIndexOf(day: number): number {
  const c = civilFromDays(day);
  return c.year * 12 + c.month - 1;
}
